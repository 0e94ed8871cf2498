"""The repeat breaker's configuration: seed defaults, one-level merge and fail-loud validation."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any, Literal, cast

from pydantic import BaseModel, ConfigDict, Field

from engine.errors import ConfigError
from engine.jsjson import js_number
from engine.keynames import CAMEL_ALIASES, aliases, check_spellings

PREFIX = "repeat-tool-breaker: "
_SHELL_IGNORE = ["description", "timeoutMs", "run_in_background", "justification"]
DEFAULT_IGNORE: dict[str, list[str]] = {
    "*": ["description", "timeoutMs", "run_in_background", "justification", "reason", "title", "comment"],
    "bash": list(_SHELL_IGNORE),
    "pwsh": list(_SHELL_IGNORE),
    "shell": list(_SHELL_IGNORE),
}
DEFAULT_ALIASES: dict[str, str] = {
    "open-data.canada.ca": "open.canada.ca",
    "www.open.canada.ca": "open.canada.ca",
    "www.open-data.canada.ca": "open.canada.ca",
}
DEFAULT_LIMITS: dict[str, float | None] = {
    "exact": 5,
    "cmd": 5,
    "net": 5,
    "sink": 5,
    "site": None,
    "family:http-fetch": None,
    "verb:curl": None,
    "verb:wget": None,
}
REMOVED = {
    "denyAfter": "use `limits.exact` (2 = deny the 2nd identical call)",
    "warnAfter": "the advisory tier was removed; the guard now denies instead of warning",
    "registerAdvisory": "the advisory tier was removed",
    "maxSamePath": "there is no path-only read cap; file actions are identified by position via `exact:`",
    "readTools": "read-like tools are detected from the tool name by `fingerprints()`",
    "matchReadBySubstring": "read-like tools are detected from the tool name by `fingerprints()`",
}


class RepeatConfig(BaseModel):
    """Knobs of the tool-call repeat breaker (dsh-repeat-tool-breaker 0.3.3 semantics)."""

    model_config = ConfigDict(frozen=True, alias_generator=CAMEL_ALIASES)

    window: int = 12
    """How many recent tool calls per agent are remembered (integer >= 4)."""
    local_hosts: Literal["deny", "ask", "allow"] = "ask"
    """When only local addresses make a call a repeat: deny it, ask the operator, or never count them."""
    preview_chars: int = 400
    """How many UTF-16 units of a fingerprint the denial text quotes (integer >= 1)."""
    result_preview_chars: int = 800
    """How many UTF-16 units of the previous result the denial text quotes (integer >= 1)."""
    exclude: tuple[str, ...] = ("todo_write",)
    """Tool-name wildcard patterns never counted (replaces the default list)."""
    include: tuple[str, ...] = ()
    """When non-empty, only tool names matching one of these wildcard patterns are counted."""
    limits: dict[str, float | None] = Field(default_factory=lambda: dict(DEFAULT_LIMITS))
    """Cap per fingerprint kind or whole key (finite number >= 2, or null for none); the cap-th repeat is denied."""
    ignore_args: dict[str, Any] = Field(default_factory=lambda: {k: list(v) for k, v in DEFAULT_IGNORE.items()})
    """Top-level argument keys ignored when fingerprinting, per tool name (`*` for all tools)."""
    host_aliases: dict[str, Any] = Field(default_factory=lambda: dict(DEFAULT_ALIASES))
    """Host spellings that mean the same host (bare hostname -> canonical hostname)."""


_R = RepeatConfig()  # the defaults `merge_repeat` fills in, as declared above


def js_str(v: Any) -> str:
    """JavaScript's `String(value)`, for the ` (got X)` tails."""
    if v is None:
        return "null"
    if v is True:
        return "true"
    if v is False:
        return "false"
    if isinstance(v, (int, float)):
        return js_number(v) if not (isinstance(v, float) and math.isnan(v)) else "NaN"
    if isinstance(v, list):
        return ",".join("" if x is None else js_str(x) for x in v)
    if isinstance(v, dict):
        return "[object Object]"
    return str(v)


def _is_int(v: Any) -> bool:
    return (isinstance(v, int) and not isinstance(v, bool)) or (
        isinstance(v, float) and math.isfinite(v) and v.is_integer()
    )


def _is_number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


_ALIASES = aliases(RepeatConfig)  # seed name -> snake_case name, e.g. localHosts -> local_hosts


def merge_repeat(raw: Any) -> RepeatConfig:
    """Merge user overrides onto the defaults exactly as the seed's `mergeDefaults` + `validateCfg`.

    A key may be given by its snake_case name or by its seed name; a message names the key as it was
    written (the seed's own messages when the seed names are used), and the `ConfigError` carries it.
    The checks run in the seed's order: the first failing one is the message.
    """
    _check_names(raw)
    given = {_ALIASES.get(k, k): k for k in raw}  # snake_case name -> the key as written
    cfg = {_ALIASES.get(k, k): v for k, v in raw.items()}
    _check_kinds(cfg, given)
    window = cfg.get("window", _R.window)
    if not _is_int(window) or window < 4:
        raise _fail(given, "window", f"`KEY` must be an integer >= 4 (got {js_str(window)})")
    local = cfg.get("local_hosts", _R.local_hosts)
    if local not in ("deny", "ask", "allow") or not isinstance(local, str):
        raise _fail(given, "local_hosts", f"`KEY` must be one of deny, ask, allow (got {js_str(local)})")
    for key, dflt in (("preview_chars", _R.preview_chars), ("result_preview_chars", _R.result_preview_chars)):
        v = cfg.get(key, dflt)
        if not _is_int(v) or v < 1:
            raise _fail(given, key, f"`KEY` must be an integer >= 1 (got {js_str(v)})")
    limits: dict[str, Any] = dict(DEFAULT_LIMITS)
    limits.update(cfg.get("limits") or {})
    _check_tables(cfg, given, limits)
    ignore: dict[str, Any] = {k: list(v) for k, v in DEFAULT_IGNORE.items()}
    ignore.update(cfg.get("ignore_args") or {})
    host_aliases: dict[str, Any] = dict(DEFAULT_ALIASES)
    host_aliases.update(cfg.get("host_aliases") or {})
    return RepeatConfig(
        window=int(window),
        local_hosts=cast(Literal["deny", "ask", "allow"], local),
        preview_chars=int(cfg.get("preview_chars", _R.preview_chars)),
        result_preview_chars=int(cfg.get("result_preview_chars", _R.result_preview_chars)),
        exclude=tuple(cfg.get("exclude", _R.exclude)),
        include=tuple(cfg.get("include", _R.include)),
        limits=limits,
        ignore_args=ignore,
        host_aliases=host_aliases,
    )


def _fail(given: Mapping[str, str], field: str, rule: str) -> ConfigError:
    """The error for `field`, named as the user wrote it (`KEY` in `rule` stands for that name)."""
    return ConfigError(PREFIX + rule.replace("KEY", given.get(field, field)), key=given.get(field, field))


def _check_names(raw: Any) -> None:
    """An object whose keys are all known (a removed key names what replaced it; a misspelling its fix)."""
    if not isinstance(raw, Mapping):
        raise ConfigError(PREFIX + "config must be an object")
    for key in raw:
        if key in REMOVED:
            raise ConfigError(f"{PREFIX}`{key}` was removed in 0.2.0 — {REMOVED[key]}", key=key)
    try:
        check_spellings(raw, RepeatConfig, "repeat")
    except ConfigError as e:
        raise ConfigError(PREFIX + str(e), key=e.key) from None


def _check_kinds(cfg: Mapping[str, Any], given: Mapping[str, str]) -> None:
    """The tables are objects and the lists are arrays of strings."""
    for key in ("ignore_args", "host_aliases", "limits"):
        if key in cfg and not isinstance(cfg[key], Mapping):
            raise _fail(given, key, "`KEY` must be an object")
    for key in ("exclude", "include"):
        if key in cfg:
            v = cfg[key]
            if not isinstance(v, list) or not all(isinstance(x, str) for x in v):
                raise _fail(given, key, "`KEY` must be an array of strings")


def _check_tables(cfg: Mapping[str, Any], given: Mapping[str, str], limits: Mapping[str, Any]) -> None:
    """Each merged limit, each tool's ignored arguments and each host alias has the right type."""
    for key, v in limits.items():
        if v is None:
            continue
        if not _is_number(v) or not math.isfinite(v) or v < 2:
            raise _fail(
                given, "limits", f'limit "{key}" must be a finite number >= 2, or null to disable it (got {js_str(v)})'
            )
    for tool, keys in (cfg.get("ignore_args") or {}).items():
        if not isinstance(keys, list) or not all(isinstance(k, str) for k in keys):
            raise _fail(given, "ignore_args", f'KEY "{tool}" must be an array of strings (got {js_str(keys)})')
    for host, canonical in (cfg.get("host_aliases") or {}).items():
        if not isinstance(canonical, str):
            raise _fail(given, "host_aliases", f'KEY "{host}" must be a host name string (got {js_str(canonical)})')


def effective(cfg: RepeatConfig) -> dict[str, Any]:
    """The merged values as the conformance vectors list them: by the seed's key names."""
    return {
        "window": cfg.window,
        "localHosts": cfg.local_hosts,
        "previewChars": cfg.preview_chars,
        "resultPreviewChars": cfg.result_preview_chars,
        "exclude": list(cfg.exclude),
        "include": list(cfg.include),
        "limits": dict(cfg.limits),
        "ignoreArgs": dict(cfg.ignore_args),
        "hostAliases": dict(cfg.host_aliases),
    }
