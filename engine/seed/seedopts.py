"""The seed plugins' lenient option handling, for the runs that must reproduce them exactly.

The seeds read raw plugin options and silently repair bad ones: a non-positive or non-numeric
count falls back to its default, a fraction is floored, a ratio is clamped into [0, 1], and the
tool-failure knobs are kept as whatever JSON value came in. The conformance vectors and the
calibration tables exercise exactly that behaviour, so it lives here, used by the conformance runner
and the calibration sweeps. Every other path builds its settings from the validated pydantic model
in `engine.config` (`*.from_config`), where an out-of-range value is an error, never a clamp.
"""

from __future__ import annotations

import math
from typing import Any

from engine.config import ThinkingConfig
from engine.lenses.degeneracy import DegeneracySettings
from engine.lenses.repetition import RepetitionSettings
from engine.tools.failures import FailureSettings

_D = ThinkingConfig()


def num(v: Any, default: int) -> int:
    """The seeds' integer sanitiser: floor of a finite positive number, else the default."""
    if isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) and v > 0:
        return math.floor(v)
    return default


def ratio(v: Any, default: float) -> float:
    """The seeds' ratio sanitiser: clamp a finite number to [0, 1], else the default."""
    if isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v):
        return min(1.0, max(0.0, float(v)))
    return default


def repetition_settings(opts: dict[str, Any] | None) -> RepetitionSettings:
    """Lens-A settings from raw seed options (bad values fall back to the defaults)."""
    o = opts or {}
    return RepetitionSettings(
        num(o.get("blockChars"), _D.block_chars),
        num(o.get("historyBlocks"), _D.history_blocks),
        num(o.get("minRepeatGap"), _D.min_repeat_gap),
        ratio(o.get("noveltyOverlap"), _D.novelty_overlap),
        num(o.get("noveltyStreak"), _D.novelty_streak),
    )


def degeneracy_settings(opts: dict[str, Any] | None) -> DegeneracySettings:
    """Lens-A2 settings from raw seed options (bad values fall back to the defaults)."""
    o = opts or {}
    return DegeneracySettings(
        num(o.get("blockChars"), _D.block_chars),
        num(o.get("evidenceMin"), _D.deg_evidence_min),
        num(o.get("streak"), _D.deg_streak),
        ratio(o.get("meaningRatioMax"), _D.deg_meaning_ratio_max),
        ratio(o.get("noiseRatioMin"), _D.deg_noise_ratio_min),
        ratio(o.get("varietyRatioMax"), _D.deg_variety_ratio_max),
        num(o.get("runLenMin"), _D.deg_run_len_min),
        num(o.get("runCountMin"), _D.deg_run_count_min),
        num(o.get("emojiMin"), _D.deg_emoji_min),
        ratio(o.get("emojiRatioMin"), _D.deg_emoji_ratio_min),
    )


def failure_settings(opts: dict[str, Any] | None) -> FailureSettings:
    """Tool-failure settings from the seed option names (`enabled`, `toolFailure*`).

    The seed compares the two thresholds as they come, against at least 1 (NaN counts as 1), and
    remembers at least 8 signatures (the default when the history is not a finite number).
    """
    o = opts or {}
    hist = o.get("toolFailureHistory", _D.tool_failure_history)
    finite = isinstance(hist, (int, float)) and math.isfinite(hist)
    return FailureSettings(
        bool(o.get("enabled", _D.enabled)),
        bool(o.get("toolFailureGuard", _D.tool_failure_guard)),
        max(1, o.get("toolFailureSteerAfter", _D.tool_failure_steer_after)),
        max(1, o.get("toolFailureDenyAfter", _D.tool_failure_deny_after)),
        max(8, math.floor(hist)) if finite else _D.tool_failure_history,
    )
