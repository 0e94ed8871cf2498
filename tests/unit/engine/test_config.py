"""Config validation names the key, the rule and the value; removed keys name their replacement."""

from __future__ import annotations

import pytest

from engine.config import BreakerConfig
from engine.errors import ConfigError


@pytest.mark.parametrize(
    ("data", "needle"),
    [
        ({"repeat": {"window": 3}}, "`window` must be an integer >= 4 (got 3)"),
        ({"repeat": {"denyAfter": 2}}, "`denyAfter` was removed in 0.2.0 — use `limits.exact`"),
        ({"repeat": {"windw": 12}}, "unknown key `repeat.windw` — did you mean `window`?"),
        ({"thinking": {"block_chars": 0}}, "`thinking.block_chars` input should be greater than or equal to 8 (got 0)"),
        ({"thinking": {"novelty_overlap": "high"}}, "`thinking.novelty_overlap`"),
        ({"thinking": {"novelty_streek": 3}}, "did you mean `novelty_streak`?"),
        ({"repeat": {"local_hosts": "ASK"}}, "`local_hosts` must be one of deny, ask, allow (got ASK)"),
        # a seed name is accepted; an error about it names it as written, and its snake_case name
        ({"thinking": {"blockChars": 0}}, "`thinking.blockChars` input should be greater than or equal to 8 (got 0)"),
        ({"thinking": {"blockChars": 0}}, "`blockChars` is the seed name of `block_chars`; both are accepted"),
        ({"thinking": {"noveltyOverlap": "high"}}, "`thinking.noveltyOverlap`"),
        ({"thinking": {"noveltyStreek": 3}}, "did you mean `noveltyStreak`? (`noveltyStreak` is the seed name of"),
        ({"repeat": {"localHosts": "ASK"}}, "`localHosts` must be one of deny, ask, allow (got ASK) — `localHosts` is"),
        ({"engine": {"pagingLimit": -1}}, "`pagingLimit` is the earlier name of `paging_limit`"),
        # both spellings of one key in one table: an error naming both
        ({"repeat": {"window": 8, "preview_chars": 9, "previewChars": 9}}, "both `preview_chars` and `previewChars`"),
        ({"thinking": {"deg_streak": 3, "degStreak": 3}}, "[thinking] both `deg_streak` and `degStreak` are set"),
        ({"engine": {"cycle_window": 8, "cycleWindow": 9}}, "[engine] both `cycle_window` and `cycleWindow` are set"),
        ({"thinkng": {}}, "unknown section `thinkng`"),
        ({"repeat": {"limits": {"net": 1}}}, 'limit "net" must be a finite number >= 2'),
    ],
)
def test_bad_values_fail_loud(data: dict, needle: str) -> None:  # type: ignore[type-arg]
    with pytest.raises(ConfigError) as e:
        BreakerConfig.from_mapping(data, where="breaker.toml")
    assert needle in str(e.value)
    assert str(e.value).startswith("breaker.toml")


def test_defaults_and_merge() -> None:
    cfg = BreakerConfig.from_mapping({"repeat": {"limits": {"site": 20}, "exclude": []}})
    assert cfg.repeat.window == 12 and cfg.repeat.limits["site"] == 20 and cfg.repeat.limits["exact"] == 5
    assert cfg.repeat.exclude == ()
    assert cfg.thinking.block_chars == 128 and cfg.thinking.deg_streak == 2


def test_toml_off_disables_a_cap() -> None:
    cfg = BreakerConfig.from_mapping({"repeat": {"limits": {"net": "off", "site": 20}}})
    assert cfg.repeat.limits["net"] is None and cfg.repeat.limits["site"] == 20


SEED_STYLE = {
    "repeat": {"localHosts": "deny", "previewChars": 50, "hostAliases": {"a.example": "b.example"}},
    "thinking": {"noveltyStreak": 4, "degStreak": 3, "maxReasoningChars": 0, "toolFailureDenyAfter": 5},
    "engine": {"cycleWindow": 8, "backstopLimit": 0},
}
SNAKE_STYLE = {
    "repeat": {"local_hosts": "deny", "preview_chars": 50, "host_aliases": {"a.example": "b.example"}},
    "thinking": {"novelty_streak": 4, "deg_streak": 3, "max_reasoning_chars": 0, "tool_failure_deny_after": 5},
    "engine": {"cycle_window": 8, "backstop_limit": 0},
}


def test_the_seed_names_and_the_snake_case_names_load_the_same_settings() -> None:
    seed, snake = BreakerConfig.from_mapping(SEED_STYLE), BreakerConfig.from_mapping(SNAKE_STYLE)
    assert seed == snake
    assert snake.repeat.local_hosts == "deny" and snake.repeat.host_aliases["a.example"] == "b.example"
    assert snake.thinking.novelty_streak == 4 and snake.engine.cycle_window == 8
    assert snake != BreakerConfig()


def test_every_camel_case_key_is_an_alias_of_a_snake_case_field() -> None:
    from engine.config import EngineConfig, ThinkingConfig
    from engine.keynames import aliases
    from engine.repeat_config import RepeatConfig

    for model in (RepeatConfig, ThinkingConfig, EngineConfig):
        assert all(name == name.lower() for name in model.model_fields), model.__name__
        for alias, name in aliases(model).items():
            assert name in model.model_fields and alias != name
    assert aliases(ThinkingConfig)["degEmojiRatioMin"] == "deg_emoji_ratio_min"
    assert aliases(RepeatConfig)["resultPreviewChars"] == "result_preview_chars"


def test_the_seed_merge_takes_both_spellings_and_names_the_key_as_written() -> None:
    from engine.repeat_config import effective, merge_repeat

    assert effective(merge_repeat({"localHosts": "allow"})) == effective(merge_repeat({"local_hosts": "allow"}))
    assert effective(merge_repeat({"ignore_args": {"x": ["y"]}}))["ignoreArgs"]["x"] == ["y"]
    for raw, message in (
        ({"localHosts": 1}, "repeat-tool-breaker: `localHosts` must be one of deny, ask, allow (got 1)"),
        ({"local_hosts": 1}, "repeat-tool-breaker: `local_hosts` must be one of deny, ask, allow (got 1)"),
        ({"resultPreviewChars": 0}, "repeat-tool-breaker: `resultPreviewChars` must be an integer >= 1 (got 0)"),
        ({"ignore_args": []}, "repeat-tool-breaker: `ignore_args` must be an object"),
    ):
        with pytest.raises(ConfigError) as e:
            merge_repeat(raw)
        assert str(e.value) == message
        assert e.value.key == next(iter(raw))
    with pytest.raises(ConfigError) as e:
        merge_repeat({"hostAliases": {}, "host_aliases": {}})
    assert "both `host_aliases` and `hostAliases` are set" in str(e.value)


def test_a_recording_made_before_the_rename_replays_with_its_own_config() -> None:
    """Recordings store `BreakerConfig.model_dump`; older ones hold the camelCase names."""
    from engine.config import EngineConfig, ThinkingConfig
    from engine.keynames import aliases
    from engine.repeat_config import RepeatConfig

    cfg = BreakerConfig.from_mapping(SNAKE_STYLE)
    new = cfg.model_dump(mode="json")
    old = {
        section: {({v: k for k, v in aliases(model).items()}).get(k, k): v for k, v in new[section].items()}
        for section, model in (("repeat", RepeatConfig), ("thinking", ThinkingConfig), ("engine", EngineConfig))
    }
    assert "noveltyStreak" in old["thinking"] and "localHosts" in old["repeat"] and "cycleWindow" in old["engine"]
    assert BreakerConfig.model_validate(old) == cfg == BreakerConfig.model_validate(new)
