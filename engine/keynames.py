"""One naming style for config keys: snake_case is canonical, the camelCase names stay accepted.

The `[repeat]` and `[thinking]` tables started as the option objects of the two seed dsh plugins,
whose keys are camelCase (`noveltyStreak`, `localHosts`); `[engine]` followed that style until it
became snake_case with the rest of the file. Every key is now read, printed and documented by its
snake_case name; its camelCase spelling (exactly `to_camel` of the snake name) is an alias on input,
so seed option objects, older config files and older recordings still load. Giving both spellings of
one key in one table is an error naming both, never a silent pick.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import AliasChoices, AliasGenerator, BaseModel
from pydantic.alias_generators import to_camel

from engine.errors import ConfigError


def _choices(field: str) -> AliasChoices:
    # pydantic reports an error under the spelling that was written, so messages can name it as written
    return AliasChoices(field, to_camel(field))


CAMEL_ALIASES = AliasGenerator(validation_alias=_choices)
"""The models' `alias_generator`: each field also accepts its camelCase name on input."""

# what a camelCase name is to the user, per table: the seed plugins' own, or this project's earlier style
_KIND = {"repeat": "seed name", "thinking": "seed name", "engine": "earlier name"}


def aliases(model: type[BaseModel]) -> dict[str, str]:
    """camelCase alias -> snake_case field name, for the fields whose two spellings differ.

    Only models built with `CAMEL_ALIASES` have aliases; the wrapper's tables were always snake_case.
    """
    out: dict[str, str] = {}
    if model.model_config.get("alias_generator") is not CAMEL_ALIASES:
        return out
    for name in model.model_fields:
        camel = to_camel(name)
        if camel != name:
            out[camel] = name
    return out


def note(section: str, alias: str, canonical: str) -> str:
    """The one sentence that says an alias was used and that it is fine."""
    return f"`{alias}` is the {_KIND.get(section, 'camelCase name')} of `{canonical}`; both are accepted"


def check_spellings(table: Mapping[str, Any], model: type[BaseModel], section: str) -> dict[str, str]:
    """The aliases `table` uses (snake name -> alias as written); both spellings of one key is an error."""
    used: dict[str, str] = {}
    for alias, canonical in aliases(model).items():
        if alias in table:
            if canonical in table:
                kind = _KIND.get(section, "camelCase name")
                raise ConfigError(
                    f"both `{canonical}` and `{alias}` are set, but `{alias}` is the {kind} of `{canonical}`: "
                    "one key given twice; keep one",
                    key=alias,
                )
            used[canonical] = alias
    return used


def canonical(table: Mapping[str, Any], model: type[BaseModel], section: str) -> dict[str, Any]:
    """`table` with every alias renamed to its snake_case name (other keys as they are)."""
    check_spellings(table, model, section)
    names = aliases(model)
    return {names.get(k, k): v for k, v in table.items()}
