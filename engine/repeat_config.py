"""The repeat breaker's configuration: seed defaults, one-level merge and fail-loud validation."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any, Literal, cast

from pydantic import BaseModel, ConfigDict, Field

from engine.errors import ConfigError
from engine.jsjson import js_number

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

    model_config = ConfigDict(frozen=True)

    window: int = 12
    """How many recent tool calls per agent are remembered (integer >= 4)."""
    localHosts: Literal["deny", "ask", "allow"] = "ask"
    """When only local addresses make a call a repeat: deny it, ask the operator, or never count them."""
    previewChars: int = 400
    """How many UTF-16 units of a fingerprint the denial text quotes (integer >= 1)."""
    resultPreviewChars: int = 800
    """How many UTF-16 units of the previous result the denial text quotes (integer >= 1)."""
    exclude: tuple[str, ...] = ("todo_write",)
    """Tool-name wildcard patterns never counted (replaces the default list)."""
    include: tuple[str, ...] = ()
    """When non-empty, only tool names matching one of these wildcard patterns are counted."""
    limits: dict[str, float | None] = Field(default_factory=lambda: dict(DEFAULT_LIMITS))
    """Cap per fingerprint kind or whole key (finite number >= 2, or null for none); the cap-th repeat is denied."""
    ignoreArgs: dict[str, Any] = Field(default_factory=lambda: {k: list(v) for k, v in DEFAULT_IGNORE.items()})
    """Top-level argument keys ignored when fingerprinting, per tool name (`*` for all tools)."""
    hostAliases: dict[str, Any] = Field(default_factory=lambda: dict(DEFAULT_ALIASES))
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


def merge_repeat(raw: Any) -> RepeatConfig:
    """Merge user overrides onto the defaults exactly as the seed's `mergeDefaults` + `validateCfg`."""
    if not isinstance(raw, Mapping):
        raise ConfigError(PREFIX + "config must be an object")
    for key in raw:
        if key in REMOVED:
            raise ConfigError(f"{PREFIX}`{key}` was removed in 0.2.0 — {REMOVED[key]}")
    for key in ("ignoreArgs", "hostAliases", "limits"):
        if key in raw and not isinstance(raw[key], Mapping):
            raise ConfigError(f"{PREFIX}`{key}` must be an object")
    for key in ("exclude", "include"):
        if key in raw:
            v = raw[key]
            if not isinstance(v, list) or not all(isinstance(x, str) for x in v):
                raise ConfigError(f"{PREFIX}`{key}` must be an array of strings")
    window = raw.get("window", _R.window)
    if not _is_int(window) or window < 4:
        raise ConfigError(f"{PREFIX}`window` must be an integer >= 4 (got {js_str(window)})")
    local = raw.get("localHosts", _R.localHosts)
    if local not in ("deny", "ask", "allow") or not isinstance(local, str):
        raise ConfigError(f"{PREFIX}`localHosts` must be one of deny, ask, allow (got {js_str(local)})")
    for key, dflt in (("previewChars", _R.previewChars), ("resultPreviewChars", _R.resultPreviewChars)):
        v = raw.get(key, dflt)
        if not _is_int(v) or v < 1:
            raise ConfigError(f"{PREFIX}`{key}` must be an integer >= 1 (got {js_str(v)})")
    limits: dict[str, Any] = dict(DEFAULT_LIMITS)
    limits.update(raw.get("limits") or {})
    for key, v in limits.items():
        if v is None:
            continue
        if not _is_number(v) or not math.isfinite(v) or v < 2:
            raise ConfigError(
                f'{PREFIX}limit "{key}" must be a finite number >= 2, or null to disable it (got {js_str(v)})'
            )
    for tool, keys in (raw.get("ignoreArgs") or {}).items():
        if not isinstance(keys, list) or not all(isinstance(k, str) for k in keys):
            raise ConfigError(f'{PREFIX}ignoreArgs "{tool}" must be an array of strings (got {js_str(keys)})')
    for host, canonical in (raw.get("hostAliases") or {}).items():
        if not isinstance(canonical, str):
            raise ConfigError(f'{PREFIX}hostAliases "{host}" must be a host name string (got {js_str(canonical)})')
    ignore: dict[str, Any] = {k: list(v) for k, v in DEFAULT_IGNORE.items()}
    ignore.update(raw.get("ignoreArgs") or {})
    aliases: dict[str, Any] = dict(DEFAULT_ALIASES)
    aliases.update(raw.get("hostAliases") or {})
    return RepeatConfig(
        window=int(window),
        localHosts=cast(Literal["deny", "ask", "allow"], local),
        previewChars=int(raw.get("previewChars", _R.previewChars)),
        resultPreviewChars=int(raw.get("resultPreviewChars", _R.resultPreviewChars)),
        exclude=tuple(raw.get("exclude", _R.exclude)),
        include=tuple(raw.get("include", _R.include)),
        limits=limits,
        ignoreArgs=ignore,
        hostAliases=aliases,
    )


def effective(cfg: RepeatConfig) -> dict[str, Any]:
    """The merged values as the conformance vectors list them."""
    return {
        "window": cfg.window,
        "localHosts": cfg.localHosts,
        "previewChars": cfg.previewChars,
        "resultPreviewChars": cfg.resultPreviewChars,
        "exclude": list(cfg.exclude),
        "include": list(cfg.include),
        "limits": dict(cfg.limits),
        "ignoreArgs": dict(cfg.ignoreArgs),
        "hostAliases": dict(cfg.hostAliases),
    }
