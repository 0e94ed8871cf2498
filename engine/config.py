"""Every engine knob as pydantic models: seed defaults, fail-loud validation, clear messages."""

from __future__ import annotations

import difflib
from collections.abc import Mapping
from typing import Any, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from engine.errors import ConfigError
from engine.keynames import CAMEL_ALIASES, aliases, check_spellings, note
from engine.repeat_config import RepeatConfig, js_str, merge_repeat


class ThinkingConfig(BaseModel):
    """Knobs of the reasoning-loop and tool-failure breaker (dsh-thinking-breaker 1.2.0 semantics)."""

    model_config = ConfigDict(frozen=True, extra="forbid", strict=True, alias_generator=CAMEL_ALIASES)

    enabled: bool = True
    """Master switch for the reasoning lenses, the retry flow and the tool-failure arm."""
    max_reasoning_chars: int = Field(120000, ge=0)
    """Abort a reasoning stream longer than this many UTF-16 units (0 = no cap)."""
    retry_without_thinking: bool = True
    """After an aborted stream, retry the step once with thinking off."""
    max_loop_retries_per_turn: int = Field(1, ge=0)
    """How many such retries a turn gets; a trip after that ends the turn."""
    max_tokens: int = Field(0, ge=0)
    """Lower every request's max tokens to this (0 = leave alone)."""
    skip_aux_calls: bool = True
    """Do not watch side requests (session titles and the like). In the default mode side requests are never
    watched and never switch off, reset or feed the main stream's lenses, whatever this says; `mode = "seed"` keeps
    the seed's per-agent switch."""
    post_trip_hint: bool = True
    """Prepend a "that reasoning was a dead end" hint to the next tool result after a trip."""
    tool_failure_guard: bool = True
    """Steer, then deny, a call shape that keeps failing in a turn."""
    tool_failure_steer_after: int = Field(2, ge=1)
    """Rewrite the result with guidance from this many failures of one signature."""
    tool_failure_deny_after: int = Field(3, ge=1)
    """Deny the next attempt before dispatch after this many failures of one signature; in the default mode
    also the next call that still carries what this many identical errors named, across turns (`cause-failure`)."""
    tool_failure_history: int = Field(64, ge=8)
    """How many failure signatures per agent are remembered."""
    tool_failure_signatures: Literal["text", "code"] = "text"
    """Kept for seed compatibility; a signature is the tool name plus its normalised arguments either way."""
    degeneracy_guard: bool = True
    """Watch reasoning for symbol and emoji floods (lens A2)."""
    degeneracy_on_answer: bool = False
    """Also watch the answer stream with lens A2."""
    deg_evidence_min: int = Field(2, ge=1)
    """Secondary flags needed, besides the meaning gate, for a block to count as degenerate."""
    deg_streak: int = Field(2, ge=1)
    """Consecutive degenerate blocks that trip."""
    deg_meaning_ratio_max: float = Field(0.08, ge=0, le=1)
    """The meaning gate: letters and digits per non-space character at or below this."""
    deg_noise_ratio_min: float = Field(0.65, ge=0, le=1)
    """`noisy` flag: symbols and emoji per non-space character at or above this."""
    deg_variety_ratio_max: float = Field(0.3, ge=0, le=1)
    """`low-variety` flag: distinct characters per min(non-space, 48) at or below this."""
    deg_run_len_min: int = Field(24, ge=1)
    """`run-heavy` flag: a run of one symbol at least this long..."""
    deg_run_count_min: int = Field(3, ge=1)
    """...or at least this many runs of 3 or more."""
    deg_emoji_min: int = Field(8, ge=1)
    """`emoji-flood` flag: at least this many emoji..."""
    deg_emoji_ratio_min: float = Field(0.4, ge=0, le=1)
    """...making up at least this share of the non-space characters."""
    block_chars: int = Field(128, ge=8)
    """Block size of both lenses, in UTF-16 units."""
    history_blocks: int = Field(32, ge=1)
    """How many earlier blocks lens A compares against."""
    min_repeat_gap: int = Field(3, ge=1)
    """Lens A skips blocks closer than this."""
    novelty_overlap: float = Field(0.7, ge=0, le=1)
    """A block whose best shingle overlap reaches this is low-novelty."""
    novelty_streak: int = Field(10, ge=1)
    """Consecutive low-novelty blocks that trip."""


M = TypeVar("M", bound=BaseModel)
REPEAT_KEYS = (*RepeatConfig.model_fields, *aliases(RepeatConfig))


class EngineConfig(BaseModel):
    """Which rule set the engine runs."""

    model_config = ConfigDict(frozen=True, extra="forbid", strict=True, alias_generator=CAMEL_ALIASES)

    mode: Literal["default", "seed"] = "default"
    """`default`: progress-aware rules; `seed`: reproduce the two seed plugins exactly."""
    same_failure_limit: int = Field(4, ge=0)
    """Deny a call that failed this many times with the same error even with changes in between (0 = off)."""
    same_error_limit: int = Field(4, ge=0)
    """Deny a tool and command (the shell verb, or the editor's sub-command) after this many failures with one error
    text (whitespace aside) and nothing changed, whatever the arguments; the same limit sets the same-answer and
    same-result rules (one call shape returning one result this many times in a row, nothing changed). 0 turns all
    three off."""
    tool_failure_limit: int = Field(10, ge=0)
    """Deny a tool whose last this many calls all failed with one error, whatever the arguments (0 = off)."""
    cycle_window: int = Field(16, ge=4)
    """How many recent dispatched calls the cycle rule looks at."""
    cycle_repeats: int = Field(12, ge=2)
    """Deny a seen call when this many of those repeated a (call, result) pair already seen this turn."""
    paging_limit: int = Field(20, ge=0)
    """Deny reading one file again after this many reads with no change to the workspace (0 = off)."""
    backstop_limit: int = Field(10, ge=0)
    """Deny an identical call at this many occurrences with no new result in `backstop_window` calls (a changed
    result starts its count over; 0 = off)."""
    backstop_window: int = Field(20, ge=2)
    """The window of the identical-call backstop, in calls."""
    monologue_steps: int = Field(3, ge=0)
    """End the turn when this many consecutive steps restate one answer or one plan (0 = off)."""
    verbatim_lens: bool = True
    """Trip a reasoning stream whose tail is one unit written four times."""

    @property
    def seed(self) -> bool:
        """Whether the seed rules run unchanged."""
        return self.mode == "seed"


class BreakerConfig(BaseModel):
    """The whole engine configuration: the repeat breaker and the thinking breaker."""

    model_config = ConfigDict(frozen=True)

    repeat: RepeatConfig = Field(default_factory=lambda: RepeatConfig())
    """`[repeat]`: tool-call repeat breaker."""
    thinking: ThinkingConfig = Field(default_factory=lambda: ThinkingConfig())
    """`[thinking]`: reasoning-loop lenses, retry flow and tool-failure arm."""
    engine: EngineConfig = Field(default_factory=lambda: EngineConfig())
    """`[engine]`: which rule set runs (`mode`)."""

    @classmethod
    def from_mapping(cls, data: Mapping[str, Any], where: str = "config") -> BreakerConfig:
        """Validate the `repeat`, `thinking` and `engine` tables; raise ConfigError naming key, rule and value.

        Keys are snake_case; a camelCase (seed) name is accepted for each, and an error about a key
        written that way names both spellings.
        """
        unknown = [k for k in data if k not in ("repeat", "thinking", "engine")]
        if unknown:
            raise ConfigError(f"{where}: unknown section `{unknown[0]}` (known: repeat, thinking, engine)")
        rep = data.get("repeat", {})
        if not isinstance(rep, Mapping):
            raise ConfigError(f"{where}: `repeat` must be a table (got {js_str(rep)})")
        for key in rep:
            if key not in REPEAT_KEYS and key not in _REMOVED_OK:
                raise ConfigError(f"{where}: unknown key `repeat.{key}`{_suggest(key, RepeatConfig, 'repeat')}")
        try:
            check_spellings(rep, RepeatConfig, "repeat")
        except ConfigError as e:
            raise ConfigError(f"{where}: [repeat] {e}", e.key) from None
        rep = dict(rep)
        if isinstance(rep.get("limits"), Mapping):
            # TOML has no null: "off" (or "none") disables a cap, as null does in the seed
            rep["limits"] = {
                k: None if isinstance(v, str) and v.lower() in ("off", "none") else v for k, v in rep["limits"].items()
            }
        try:
            repeat = merge_repeat(rep)
        except ConfigError as e:
            raise ConfigError(f"{where}: [repeat] {e}{_alias_tail('repeat', RepeatConfig, e.key)}", e.key) from None
        thinking = _validate(ThinkingConfig, data, "thinking", where)
        engine = _validate(EngineConfig, data, "engine", where)
        return cls(repeat=repeat, thinking=thinking, engine=engine)


def _validate(model: type[M], data: Mapping[str, Any], section: str, where: str) -> M:
    """One strict table (`thinking`, `engine`): both spellings of a key, then pydantic's rules."""
    table = data.get(section, {})
    if not isinstance(table, Mapping):
        raise ConfigError(f"{where}: `{section}` must be a table (got {js_str(table)})")
    try:
        check_spellings(table, model, section)
        return model.model_validate(dict(table))
    except ConfigError as e:
        raise ConfigError(f"{where}: [{section}] {e}", e.key) from None
    except ValidationError as e:
        raise ConfigError(f"{where}: {describe(e, section, model)}") from None


_REMOVED_OK = ("denyAfter", "warnAfter", "registerAdvisory", "maxSamePath", "readTools", "matchReadBySubstring")


def _suggest(key: str, model: type[BaseModel], section: str) -> str:
    """The closest known key, in the spelling closest to what was written (both names for an alias)."""
    names = aliases(model)
    close = difflib.get_close_matches(key, [*model.model_fields, *names], n=1)
    if not close:
        return ""
    if close[0] in names:
        return f" — did you mean `{close[0]}`? ({note(section, close[0], names[close[0]])})"
    return f" — did you mean `{close[0]}`?"


def _alias_tail(section: str, model: type[BaseModel], key: str | None) -> str:
    """` — <note>` when `key` is a camelCase alias of one of `model`'s keys, else nothing."""
    canonical = aliases(model).get(key or "")
    return f" — {note(section, key, canonical)}" if key and canonical else ""


def describe(err: ValidationError, section: str, model: type[BaseModel]) -> str:
    """Turn the first pydantic error into one sentence: key (as written), rule, value."""
    e = err.errors()[0]
    key = ".".join(str(p) for p in e["loc"])
    if e["type"] == "extra_forbidden":
        return f"unknown key `{section}.{key}`{_suggest(key, model, section)}"
    tail = _alias_tail(section, model, str(e["loc"][0])) if e["loc"] else ""
    return f"`{section}.{key}` {e['msg'].lower()} (got {js_str(e.get('input'))}){tail}"
