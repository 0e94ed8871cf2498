"""Every lens knob has one home: the validated `ThinkingConfig`; only the seed paths repair bad options."""

from __future__ import annotations

import math

import pytest

from engine.breaker import Breaker
from engine.config import BreakerConfig, ThinkingConfig
from engine.errors import ConfigError
from engine.lenses.degeneracy import DegeneracyDetector, DegeneracySettings
from engine.lenses.repetition import RepetitionDetector, RepetitionSettings
from engine.seed import seedopts
from engine.tools.failures import FailureGuard, FailureSettings
from engine.tools.progress import SHELL_TOOLS
from wrapper import monitor


def test_the_seed_paths_and_the_model_agree_on_every_default() -> None:
    assert seedopts.repetition_settings(None) == RepetitionSettings.from_config()
    assert seedopts.degeneracy_settings({}) == DegeneracySettings.from_config()
    assert seedopts.failure_settings(None) == FailureSettings.from_config()
    assert RepetitionDetector().s == RepetitionSettings.from_config(ThinkingConfig())
    assert DegeneracyDetector().s == DegeneracySettings.from_config(ThinkingConfig())
    assert FailureGuard().s == FailureSettings.from_config(ThinkingConfig())


def test_the_breaker_reads_the_validated_table() -> None:
    cfg = BreakerConfig.from_mapping(
        {"thinking": {"novelty_streak": 3, "deg_streak": 4, "block_chars": 96, "tool_failure_deny_after": 5}}
    )
    b = Breaker(cfg)
    assert b._rep.novelty_streak == 3 and b._rep.block_chars == 96
    assert b._deg.streak == 4 and b._deg.block_chars == 96
    assert b.failures.s.deny_after == 5


def test_out_of_range_is_an_error_in_the_model_not_a_clamp() -> None:
    with pytest.raises(ConfigError, match="novelty_overlap"):
        BreakerConfig.from_mapping({"thinking": {"novelty_overlap": 1.5}})
    with pytest.raises(ConfigError, match="tool_failure_history"):
        BreakerConfig.from_mapping({"thinking": {"tool_failure_history": 3}})
    with pytest.raises(ConfigError, match="noveltyOverlap"):  # the seed name, as written
        BreakerConfig.from_mapping({"thinking": {"noveltyOverlap": 1.5}})


def test_the_seed_paths_repair_bad_options_as_the_seeds_do() -> None:
    r = seedopts.repetition_settings({"blockChars": 96.7, "noveltyOverlap": 1.5, "noveltyStreak": -2})
    assert (r.block_chars, r.novelty_overlap, r.novelty_streak) == (96, 1.0, 10)
    d = seedopts.degeneracy_settings({"meaningRatioMax": -1, "streak": True, "emojiMin": "8"})
    assert (d.meaning_ratio_max, d.streak, d.emoji_min) == (0.0, 2, 8)
    f = seedopts.failure_settings({"toolFailureHistory": 3, "toolFailureDenyAfter": 0, "toolFailureSteerAfter": 2.5})
    assert (f.history, f.deny_after, f.steer_after) == (8, 1, 2.5)
    assert seedopts.failure_settings({"toolFailureHistory": math.inf}).history == 64


def test_the_monitor_uses_the_engines_shell_tool_names() -> None:
    for tool in SHELL_TOOLS:
        assert monitor.shell_failed(tool, "oops\n[exit code: 2]"), tool
    assert not monitor.shell_failed("bash", "fine\n[exit code: 0]")
    assert not monitor.shell_failed("read_file", "text\n[exit code: 2]")
