"""Every engine knob as pydantic models: seed defaults, fail-loud validation, clear messages."""

from __future__ import annotations

import difflib
import tomllib
from collections.abc import Mapping
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from engine.errors import ConfigError
from engine.repeat_config import RepeatConfig, js_str, merge_repeat


class ThinkingConfig(BaseModel):
    """Knobs of the reasoning-loop and tool-failure breaker (dsh-thinking-breaker 1.2.0 semantics)."""

    model_config = ConfigDict(frozen=True, extra="forbid", strict=True)

    enabled: bool = True
    """Master switch for the reasoning lenses, the retry flow and the tool-failure arm."""
    maxReasoningChars: int = Field(120000, ge=0)
    """Abort a reasoning stream longer than this many UTF-16 units (0 = no cap)."""
    retryWithoutThinking: bool = True
    """After an aborted stream, retry the step once with thinking off."""
    maxLoopRetriesPerTurn: int = Field(1, ge=0)
    """How many such retries a turn gets; a trip after that ends the turn."""
    maxTokens: int = Field(0, ge=0)
    """Lower every request's max tokens to this (0 = leave alone)."""
    skipAuxCalls: bool = True
    """Do not watch side requests (session titles and the like)."""
    postTripHint: bool = True
    """Prepend a "that reasoning was a dead end" hint to the next tool result after a trip."""
    toolFailureGuard: bool = True
    """Steer, then deny, a call shape that keeps failing in a turn."""
    toolFailureSteerAfter: int = Field(2, ge=1)
    """Rewrite the result with guidance from this many failures of one signature."""
    toolFailureDenyAfter: int = Field(3, ge=1)
    """Deny the next attempt before dispatch after this many failures of one signature."""
    toolFailureHistory: int = Field(64, ge=8)
    """How many failure signatures per agent are remembered."""
    toolFailureSignatures: Literal["text", "code"] = "text"
    """Kept for seed compatibility; a signature is the tool name plus its normalised arguments either way."""
    degeneracyGuard: bool = True
    """Watch reasoning for symbol and emoji floods (lens A2)."""
    degeneracyOnAnswer: bool = False
    """Also watch the answer stream with lens A2."""
    degEvidenceMin: int = Field(2, ge=1)
    """Secondary flags needed, besides the meaning gate, for a block to count as degenerate."""
    degStreak: int = Field(2, ge=1)
    """Consecutive degenerate blocks that trip."""
    degMeaningRatioMax: float = Field(0.08, ge=0, le=1)
    """The meaning gate: letters and digits per non-space character at or below this."""
    degNoiseRatioMin: float = Field(0.65, ge=0, le=1)
    """`noisy` flag: symbols and emoji per non-space character at or above this."""
    degVarietyRatioMax: float = Field(0.3, ge=0, le=1)
    """`low-variety` flag: distinct characters per min(non-space, 48) at or below this."""
    degRunLenMin: int = Field(24, ge=1)
    """`run-heavy` flag: a run of one symbol at least this long..."""
    degRunCountMin: int = Field(3, ge=1)
    """...or at least this many runs of 3 or more."""
    degEmojiMin: int = Field(8, ge=1)
    """`emoji-flood` flag: at least this many emoji..."""
    degEmojiRatioMin: float = Field(0.4, ge=0, le=1)
    """...making up at least this share of the non-space characters."""
    blockChars: int = Field(128, ge=8)
    """Block size of both lenses, in UTF-16 units."""
    historyBlocks: int = Field(32, ge=1)
    """How many earlier blocks lens A compares against."""
    minRepeatGap: int = Field(3, ge=1)
    """Lens A skips blocks closer than this."""
    noveltyOverlap: float = Field(0.7, ge=0, le=1)
    """A block whose best shingle overlap reaches this is low-novelty."""
    noveltyStreak: int = Field(10, ge=1)
    """Consecutive low-novelty blocks that trip."""


REPEAT_KEYS = tuple(RepeatConfig.model_fields)


class EngineConfig(BaseModel):
    """Which rule set the engine runs."""

    model_config = ConfigDict(frozen=True, extra="forbid", strict=True)

    mode: Literal["default", "seed"] = "default"
    """`default`: progress-aware rules; `seed`: reproduce the two seed plugins exactly."""
    sameFailureLimit: int = Field(4, ge=0)
    """Deny a call that failed this many times with the same error even with changes in between (0 = off)."""
    sameErrorLimit: int = Field(4, ge=0)
    """Deny a tool and command (shell verb) after this many failures with one error, nothing changed (0 = off)."""
    toolFailureLimit: int = Field(10, ge=0)
    """Deny a tool whose last this many calls all failed with one error, whatever the arguments (0 = off)."""
    cycleWindow: int = Field(16, ge=4)
    """How many recent dispatched calls the cycle rule looks at."""
    cycleRepeats: int = Field(12, ge=2)
    """Deny a seen call when this many of those repeated a (call, result) pair already seen this turn."""
    pagingLimit: int = Field(20, ge=0)
    """Deny reading one file again after this many reads with no change to the workspace (0 = off)."""
    backstopLimit: int = Field(10, ge=0)
    """Deny an identical call at this many occurrences in `backstopWindow` calls, whatever its results (0 = off)."""
    backstopWindow: int = Field(20, ge=2)
    """The window of the identical-call backstop, in calls."""
    monologueSteps: int = Field(3, ge=0)
    """End the turn when this many consecutive steps restate one answer or one plan (0 = off)."""
    verbatimLens: bool = True
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
        """Validate the `repeat`, `thinking` and `engine` tables; raise ConfigError naming key, rule and value."""
        unknown = [k for k in data if k not in ("repeat", "thinking", "engine")]
        if unknown:
            raise ConfigError(f"{where}: unknown section `{unknown[0]}` (known: repeat, thinking, engine)")
        rep = data.get("repeat", {})
        if not isinstance(rep, Mapping):
            raise ConfigError(f"{where}: `repeat` must be a table (got {js_str(rep)})")
        for key in rep:
            if key not in REPEAT_KEYS and key not in _REMOVED_OK:
                raise ConfigError(f"{where}: unknown key `repeat.{key}`{_suggest(key, REPEAT_KEYS)}")
        rep = dict(rep)
        if isinstance(rep.get("limits"), Mapping):
            # TOML has no null: "off" (or "none") disables a cap, as null does in the seed
            rep["limits"] = {
                k: None if isinstance(v, str) and v.lower() in ("off", "none") else v for k, v in rep["limits"].items()
            }
        try:
            repeat = merge_repeat(rep)
        except ConfigError as e:
            raise ConfigError(f"{where}: [repeat] {e}") from None
        th = data.get("thinking", {})
        if not isinstance(th, Mapping):
            raise ConfigError(f"{where}: `thinking` must be a table (got {js_str(th)})")
        try:
            thinking = ThinkingConfig.model_validate(dict(th))
        except ValidationError as e:
            raise ConfigError(f"{where}: {describe(e, 'thinking', tuple(ThinkingConfig.model_fields))}") from None
        eng = data.get("engine", {})
        if not isinstance(eng, Mapping):
            raise ConfigError(f"{where}: `engine` must be a table (got {js_str(eng)})")
        try:
            engine = EngineConfig.model_validate(dict(eng))
        except ValidationError as e:
            raise ConfigError(f"{where}: {describe(e, 'engine', tuple(EngineConfig.model_fields))}") from None
        return cls(repeat=repeat, thinking=thinking, engine=engine)


def from_toml(text: str, where: str = "config") -> BreakerConfig:
    """Parse TOML text (no file access here) and validate it as a `BreakerConfig`."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise ConfigError(f"{where}: not valid TOML: {e}") from None
    return BreakerConfig.from_mapping(data, where)


_REMOVED_OK = ("denyAfter", "warnAfter", "registerAdvisory", "maxSamePath", "readTools", "matchReadBySubstring")


def _suggest(key: str, known: tuple[str, ...]) -> str:
    close = difflib.get_close_matches(key, known, n=1)
    return f" — did you mean `{close[0]}`?" if close else ""


def describe(err: ValidationError, section: str, known: tuple[str, ...]) -> str:
    """Turn the first pydantic error into one sentence: key, rule, value."""
    e = err.errors()[0]
    key = ".".join(str(p) for p in e["loc"])
    if e["type"] == "extra_forbidden":
        return f"unknown key `{section}.{key}`{_suggest(key, known)}"
    return f"`{section}.{key}` {e['msg'].lower()} (got {js_str(e.get('input'))})"
