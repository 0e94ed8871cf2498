"""`config show` prints snake_case keys as valid TOML that loads back to the same settings."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from engine.config import EngineConfig, ThinkingConfig
from engine.keynames import aliases
from engine.repeat_config import RepeatConfig
from tui.cli import main
from wrapper.settings import Settings, load

SEED_STYLE = """\
[repeat]
localHosts = "deny"
limits = { exact = "off", net = 3, "verb:curl" = 2.5 }
hostAliases = { "a.example" = "b.example" }
ignoreArgs = { bash = ["description", "cwd"] }
exclude = []

[thinking]
noveltyStreak = 4
deg_streak = 3
degMeaningRatioMax = 0.125

[engine]
cycleWindow = 8
mode = "seed"

[wrapper]
recordings_dir = "/tmp/rec \\u00fc \\U0001F600 \\"q\\" \\\\ \\t end"
verdict_timeout_s = 12

[ui]
theme = "breaker-light"

[keys]
kill = "ctrl+x"
"replay.step" = "right,l"
"""


def _show(capsys: pytest.CaptureFixture[str], path: Path) -> str:
    """`config show` of an accepted file: its loosened values are in effect, so they are what it prints."""
    assert main(["config", "accept", "--config", str(path)]) == 0
    capsys.readouterr()
    assert main(["config", "show", "--config", str(path)]) == 0
    return capsys.readouterr().out


def _same(a: Settings, b: Settings) -> None:
    assert (a.engine, a.wrapper, a.ui, a.acp, a.keys) == (b.engine, b.wrapper, b.ui, b.acp, b.keys)


def test_config_show_pasted_back_loads_the_same_settings(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src = tmp_path / "seed.toml"
    src.write_text(SEED_STYLE, encoding="utf-8")
    first = _show(capsys, src)
    printed = tomllib.loads(first)
    camel = {**aliases(RepeatConfig), **aliases(ThinkingConfig), **aliases(EngineConfig)}
    for section in ("repeat", "thinking", "engine"):
        assert not set(printed[section]) & set(camel), f"[{section}] printed a camelCase key"
    assert printed["thinking"]["novelty_streak"] == 4 and printed["engine"]["cycle_window"] == 8
    assert printed["repeat"]["limits"]["exact"] == "off"  # a cap that is off is printed as "off", not dropped
    pasted = tmp_path / "pasted.toml"
    pasted.write_text(first, encoding="utf-8")
    original, again = load(src), load(pasted)
    _same(original, again)
    assert original.engine.repeat.limits["exact"] is None and original.engine.repeat.limits["verb:curl"] == 2.5
    assert original.wrapper.recordings_dir == '/tmp/rec ü 😀 "q" \\ \t end'
    assert original.engine != Settings().engine
    # the second round prints the same values: only the origin comments name the other file
    second = _show(capsys, pasted)
    assert tomllib.loads(second) == printed
    assert all(ord(c) < 0x7F and (c.isprintable() or c == "\n") for c in first)  # no control reaches the terminal


def test_config_show_says_once_which_seed_names_the_file_used(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    src = tmp_path / "seed.toml"
    src.write_text(SEED_STYLE, encoding="utf-8")
    out = _show(capsys, src)
    note = "# `noveltyStreak` is the seed name of `novelty_streak`; both are accepted"
    assert out.count(note) == 1
    assert "# `cycleWindow` is the earlier name of `cycle_window`; both are accepted" in out
    assert f"novelty_streak = 4    # {src} (written `noveltyStreak`)" in out
    assert f"deg_streak = 3    # {src}\n" in out
    assert "the seed name of `deg_streak`" not in out
    pasted = tmp_path / "pasted.toml"
    pasted.write_text(out, encoding="utf-8")
    assert "seed name" not in _show(capsys, pasted)  # a snake_case file gets no note


def test_the_defaults_round_trip_too(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("BREAKER_TUI_CONFIG")  # the platform's location, absent: the defaults
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    assert main(["config", "show"]) == 0
    out = capsys.readouterr().out
    pasted = tmp_path / "pasted.toml"
    pasted.write_text(out, encoding="utf-8")
    _same(load(pasted), Settings())


def test_config_may_come_before_the_command(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src = tmp_path / "seed.toml"
    src.write_text(SEED_STYLE, encoding="utf-8")
    assert main(["--config", str(src), "config", "show"]) == 0
    assert f"file: {src}" in capsys.readouterr().out


LOOSE = """\
[repeat]
local_hosts = "allow"
limits = { exact = 50, net = 3 }

[keys]
"approve.once" = "x"
"""


def test_config_show_prints_the_value_in_effect_and_the_unapplied_one_beside_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from wrapper.weakening import hold_back

    src = tmp_path / "loose.toml"
    src.write_text(LOOSE, encoding="utf-8")
    assert main(["config", "show", "--config", str(src)]) == 0
    out = capsys.readouterr().out
    not_applied = "not applied until `breaker-tui config accept`"
    assert f'local_hosts = "ask"    # default; "allow" in {src} is {not_applied}' in out
    limits = next(line for line in out.splitlines() if line.startswith("limits = "))
    assert limits.startswith("limits = { exact = 5, cmd = 5, net = 3,"), limits  # the stricter entry applies
    assert f"exact = 50 in {src} is {not_applied}" in limits
    assert f'# "approve.once" is built in    # "x" in {src} is {not_applied}' in out
    pasted = tmp_path / "pasted.toml"
    pasted.write_text(out, encoding="utf-8")
    _same(load(pasted), hold_back(load(src)))  # what it prints is what a session runs with
    # accepted, the file's values are in effect and print as such
    assert main(["config", "accept", "--config", str(src)]) == 0
    accepted = capsys.readouterr().out
    assert f"accepting: {src}: repeat.limits.exact = 50 (default 5)" in accepted  # a cap is a whole number
    assert main(["config", "show", "--config", str(src)]) == 0
    out = capsys.readouterr().out
    assert f'local_hosts = "allow"    # {src}' in out and not_applied not in out
