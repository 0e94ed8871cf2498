"""The config file's wrapper-side sections: each validated by its model, an error naming file, key and rule."""

from __future__ import annotations

import pytest

from engine.errors import ConfigError
from wrapper.settings import ASK_WAIT_S, Settings, from_mapping
from wrapper.weakening import loosened


def test_the_hooks_section_sets_the_hook_server() -> None:
    s = from_mapping({"hooks": {"metrics": "127.0.0.1:9464", "ask_wait_s": 5}}, "cfg.toml")
    assert (s.hooks.metrics, s.hooks.ask_wait_s) == ("127.0.0.1:9464", 5)
    assert s.origins["hooks.ask_wait_s"] == "cfg.toml"
    assert Settings().hooks.ask_wait_s == ASK_WAIT_S and Settings().hooks.metrics == ""


@pytest.mark.parametrize(
    ("table", "named"),
    [({"ask_wait_s": 19}, "hooks.ask_wait_s"), ({"port": 1}, "hooks.port"), ({"ask_wait_s": "soon"}, "hooks")],
)
def test_a_bad_hooks_key_is_a_config_error_naming_it(table: dict[str, object], named: str) -> None:
    with pytest.raises(ConfigError) as e:
        from_mapping({"hooks": table}, "cfg.toml")
    assert str(e.value).startswith("cfg.toml: ") and named in str(e.value)


def test_the_hooks_section_never_loosens_the_breaker() -> None:
    assert loosened(from_mapping({"hooks": {"ask_wait_s": 18, "metrics": "9464"}}, "cfg.toml")) == []
