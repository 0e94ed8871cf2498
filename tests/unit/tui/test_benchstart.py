"""The start-up benchmark's reading of a terminal (when the first word, the marker and the first frame
came), how it starts Toad (which interpreter, which home, no network) and how it reports the ratios.
"""

from __future__ import annotations

import json
import platform
import sys
from pathlib import Path

import pytest

from tui import benchstart
from tui.benchstart import (
    ALT_SCREEN,
    FIRST_SCREEN,
    NOWHERE,
    PROXIES,
    TOAD_FIRST_SCREEN,
    Toad,
    Watch,
    report,
    toad_command,
    toad_env,
    turn_about,
    turn_ratio,
    versions,
)

FRAME = ALT_SCREEN + b"\x1b[1;1H" + b"\x1b[7m" + b"x" * 120 + b"\x1b[0m"


def test_a_frame_is_a_frame_s_worth_of_text_on_the_alternate_screen() -> None:
    w = Watch(None)
    w.take(b"breaker-tui: starting sh\r\n" + b"y" * 500, 0.1)  # text, but not on the alternate screen
    assert w.word == 0.1 and not w.frame and not w.done()
    w.take(ALT_SCREEN + b"\x1b[2J\x1b[H", 0.2)  # the screen taken, nothing drawn yet
    assert not w.done()
    w.take(FRAME[len(ALT_SCREEN) :], 0.5)
    assert w.frame == 0.5 and w.done()


def test_with_a_marker_the_screen_is_up_once_the_marker_is_drawn() -> None:
    w = Watch(FIRST_SCREEN)
    w.take(FRAME, 0.4)
    assert not w.done()
    w.take(b"\x1b[24;1H\x1b[1m^q\x1b[0m quit", 0.6)  # the marker split by escapes still counts
    assert w.done() and (w.frame, w.marked) == (0.4, 0.6)


# what Toad 0.6 writes before its first frame: the alternate screen and its modes, its questions to
# the terminal (DECRQM), the window title (an OSC) several times; no text of a frame among them
TOAD_PREAMBLE = (
    ALT_SCREEN
    + b"\x1b[?1000h\x1b[?1003h\x1b[?1015h\x1b[?1006h\x1b[?25l\x1b[?1004h\x1b[>25u"
    + b"\x1b[?2026$p\x1b[?2048$p\x1b[?2004h\x1b[?7l"
    + b"\x1b]22;default\x07"
    + "\x1b]0;\U0001f438 Toad\x07".encode() * 40
)
TOAD_TOP = "\x1b[2;3H\x1b[38;5;90;48;5;235m⣿⣿⣿\x1b[0m\r\n🐸 Toad v0.6.20\r\n".encode() + b"The universal interface " * 6
TOAD_FOOTER = (
    b"\x1b[24;35H\x1b[1;38;5;253;48;5;236m ^r \x1b[0mResume\x1b[24;60H\x1b[1m ^p \x1b[0m\x1b[38;5;248mpalette\x1b[0m"
)


def test_toad_s_modes_queries_and_titles_are_no_frame() -> None:
    w = Watch(TOAD_FIRST_SCREEN)
    w.take(TOAD_PREAMBLE, 1.3)
    assert not w.frame and not w.marked and not w.done()


def test_toad_s_first_screen_is_its_frame_drawn_down_to_the_footer_across_reads() -> None:
    w = Watch(TOAD_FIRST_SCREEN)
    w.take(TOAD_PREAMBLE, 1.3)
    w.take(TOAD_TOP, 2.41)  # a frame's worth of text has come: the frame has begun, not ended
    assert w.frame == 2.41 and not w.done()
    cut = TOAD_FOOTER.index(b"38;5;248m")  # the read ends inside an escape sequence
    w.take(TOAD_FOOTER[:cut], 2.412)
    assert not w.done()
    w.take(TOAD_FOOTER[cut:], 2.416)
    assert w.done() and w.marked == 2.416


def test_turns_are_taken_and_each_median_is_its_own() -> None:
    calls: list[str] = []
    times = {"a": iter([3.0, 1.0, 2.0]), "b": iter([10.0, 30.0, 20.0])}

    def timer(name: str) -> float:
        calls.append(name)
        return next(times[name])

    got = turn_about({"a": lambda: timer("a"), "b": lambda: timer("b")}, 3)
    assert got == {"a": 2.0, "b": 20.0}
    assert calls == ["a", "b"] * 3


def test_the_ratio_to_toad_is_taken_turn_by_turn() -> None:
    # the machine twice as slow in the last turn: the medians' ratio (2/2) would hide it
    assert turn_ratio([1.0, 2.0, 4.0], [2.0, 2.0, 8.0]) == 0.5
    with pytest.raises(ValueError):
        turn_ratio([1.0], [1.0, 2.0])


def test_toad_gets_a_home_of_its_own_no_statistics_and_no_network(tmp_path: Path) -> None:
    base = {"HOME": "/root", "NO_PROXY": "*", "no_proxy": "*", "HTTPS_PROXY": "http://proxy:3128", "PATH": "/bin"}
    env = toad_env(base, tmp_path)
    for key in ("HOME", "XDG_CONFIG_HOME", "XDG_STATE_HOME", "XDG_DATA_HOME"):
        assert Path(env[key]).is_relative_to(tmp_path), key
    assert Path(env["HOME"]).is_dir()
    assert all(env[p] == NOWHERE for p in PROXIES) and "NO_PROXY" not in env and "no_proxy" not in env
    assert env["PATH"] == "/bin" and base["HOME"] == "/root" and base["NO_PROXY"] == "*"
    settings = json.loads((Path(env["XDG_CONFIG_HOME"]) / "toad" / "toad.json").read_text())
    assert settings["statistics"]["allow_collect"] is False


def _fake_python(where: Path, has_toad: bool) -> Path:
    where.mkdir(parents=True)
    exe = where / "python"
    exe.write_text(f"#!/bin/sh\nexit {0 if has_toad else 1}\n")
    exe.chmod(0o755)
    return exe


@pytest.fixture
def no_toad_anywhere(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """No cached Toad and no interpreter on PATH, so nothing is installed by the test."""
    monkeypatch.setattr(benchstart, "TOAD_HOME", tmp_path / "cache")
    (tmp_path / "empty").mkdir()
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    return tmp_path


def test_a_given_interpreter_with_toad_runs_the_toad_script_beside_it(
    no_toad_anywhere: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    python = _fake_python(no_toad_anywhere / "venv" / "bin", has_toad=True)
    monkeypatch.setenv("BREAKER_BENCH_TOAD_PYTHON", str(python))
    assert toad_command() == (Toad([str(python), "-m", "toad"], str(python)), "")
    (python.parent / "toad").write_text("")
    assert toad_command() == (Toad([str(python.parent / "toad")], str(python)), "")


def test_a_given_interpreter_without_toad_is_not_timed_as_toad(
    no_toad_anywhere: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    python = _fake_python(no_toad_anywhere / "venv" / "bin", has_toad=False)
    monkeypatch.setenv("BREAKER_BENCH_TOAD_PYTHON", str(python))
    toad, why = toad_command(say=lambda _: None)
    assert toad is None and "needs Python >= 3.14" in why


def test_the_cached_toad_runs_on_the_cache_s_interpreter(
    no_toad_anywhere: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("BREAKER_BENCH_TOAD_PYTHON", raising=False)
    bin_ = no_toad_anywhere / "cache" / "bin"
    bin_.mkdir(parents=True)
    (bin_ / "toad").write_text("")
    assert toad_command() == (Toad([str(bin_ / "toad")], str(bin_ / "python")), "")


def test_versions_names_the_interpreter_and_a_missing_toad() -> None:
    got = versions(sys.executable)
    assert got.startswith(f"Python {platform.python_version()}, batrachian-toad ")
    assert "Traceback" not in got


FIGURES = {
    "load_1m_before": 1.0,
    "load_1m_after": 1.5,
    "python_pass_s": 0.02,
    "version_s": 0.1,
    "help_s": 0.05,
    "first_word_s": 0.05,
    "first_screen_s": 0.8,
    "first_frame_s": 0.8,
}
TOAD_FIGURES = {
    "toad_python_pass_s": 0.025,
    "toad_version_s": 0.5,
    "toad_first_screen_s": 2.0,
    "toad_first_frame_s": 1.6,
    "first_screen_per_toad": 0.45,
}


def _line(lines: list[str], start: str) -> str:
    (found,) = (line for line in lines if line.startswith(start))
    return found


def test_the_report_gives_ratios_to_each_floor_and_to_toad() -> None:
    lines = report(FIGURES | TOAD_FIGURES, "80x24", "1.00 0.50 0.20")
    version = _line(lines, "breaker-tui --version")
    assert "5.0x python -c pass" in version and "0.20x Toad" in version and "target < 0.3 s: met" in version
    assert "20.0x python -c pass" in _line(lines, "Toad --version")  # Toad's own interpreter is its floor
    screen = _line(lines, "first screen 80x24")
    assert "40.0x python -c pass" in screen and "0.40x Toad" in screen
    assert "0.50x Toad" in _line(lines, "first frame 80x24")
    assert "80.0x python -c pass" in _line(lines, "Toad first screen 80x24")
    assert "Toad" not in _line(lines, "breaker-tui --help")
    assert "breaker-tui / Toad, first screen, turn by turn (median): 0.45x" in lines
    assert lines[0].startswith("load     average 1.00 before, 1.50 after") and lines[0].endswith("1.00 0.50 0.20")


def test_without_toad_the_report_has_no_toad_and_says_a_missed_target() -> None:
    lines = report(FIGURES | {"first_screen_s": 1.6}, "80x24")
    assert not any("Toad" in line for line in lines)
    assert "target < 1.5 s: NOT met" in _line(lines, "first screen 80x24")
    assert len(lines) == 1 + 6
