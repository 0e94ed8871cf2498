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
        ({"thinking": {"blockChars": 0}}, "`thinking.blockChars` input should be greater than or equal to 8 (got 0)"),
        ({"thinking": {"noveltyOverlap": "high"}}, "`thinking.noveltyOverlap`"),
        ({"thinking": {"noveltyStreek": 3}}, "did you mean `noveltyStreak`"),
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
    assert cfg.thinking.blockChars == 128 and cfg.thinking.degStreak == 2


def test_toml_off_disables_a_cap() -> None:
    cfg = BreakerConfig.from_mapping({"repeat": {"limits": {"net": "off", "site": 20}}})
    assert cfg.repeat.limits["net"] is None and cfg.repeat.limits["site"] == 20


def test_from_toml_text() -> None:
    from engine.config import from_toml

    cfg = from_toml("[repeat]\nwindow = 8\n[thinking]\ndegStreak = 3\n", "x.toml")
    assert cfg.repeat.window == 8 and cfg.thinking.degStreak == 3
    with pytest.raises(ConfigError, match=r"x\.toml: not valid TOML"):
        from_toml("[repeat\n", "x.toml")
