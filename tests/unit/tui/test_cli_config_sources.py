"""Every way a person names a config file fails the same way when that file cannot be used.

A hardened config that is silently not read is worse than an error: the session runs with the defaults and
nobody is told. So the file named by `--config` (before or after the command) and the file named by
`$BREAKER_TUI_CONFIG` are refused alike when missing, a directory or unreadable, by the commands that read
the config and by `doctor`. Only the platform's own location, which nobody named, may be absent (all defaults).

The matrix is sources x conditions x commands: a new way to name the file is one more row in `SOURCES`.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import SHARED
from tui.cli import main
from wrapper.exits import Exit

Named = tuple[list[str], dict[str, str]]  # the arguments before/after the command, and the environment


def _flag_before(command: list[str], path: Path) -> Named:
    return ["--config", str(path), *command], {}


def _flag_after(command: list[str], path: Path) -> Named:
    return [*command, "--config", str(path)], {}


def _environment(command: list[str], path: Path) -> Named:
    return list(command), {"BREAKER_TUI_CONFIG": str(path)}


SOURCES: dict[str, Callable[[list[str], Path], Named]] = {
    "--config before the command": _flag_before,
    "--config after the command": _flag_after,
    "$BREAKER_TUI_CONFIG": _environment,
}


def _missing(tmp: Path) -> Path:
    return tmp / "cfg" / "nonexist.toml"


def _directory(tmp: Path) -> Path:
    (tmp / "a-folder.toml").mkdir()
    return tmp / "a-folder.toml"


def _unreadable(tmp: Path) -> Path:
    if os.geteuid() == 0:
        pytest.skip("root reads a file whatever its mode: no unreadable file can be made here")
    f = tmp / "locked.toml"
    f.write_text('[ui]\ntheme = "breaker-light"\n')
    f.chmod(0)
    return f


CONDITIONS: dict[str, Callable[[Path], Path]] = {
    "missing": _missing,
    "a directory": _directory,
    "unreadable": _unreadable,
}


def _run(named: Named, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    args, env = named
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    code = main(args)
    got = capsys.readouterr()
    return code, got.out, got.err


@pytest.mark.parametrize("condition", CONDITIONS)
@pytest.mark.parametrize("source", SOURCES)
def test_config_show_refuses_a_named_file_it_cannot_use_whatever_named_it(
    source: str,
    condition: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    path = CONDITIONS[condition](tmp_path)
    code, out, err = _run(SOURCES[source](["config", "show"], path), monkeypatch, capsys)
    assert code == Exit.USAGE, f"{source} naming a {condition} file: exit {code}\n{out}"
    assert err.startswith(f"breaker-tui config: bad config: {path}: "), err
    assert "absent: all defaults" not in out + err


READERS = {  # commands that read the config: each refuses an unusable one before anything else, screen or not
    "config show": ["config", "show"],
    "demo": ["demo"],
    "replay": ["replay", str(SHARED / "samples" / "dsh" / "session.raw.jsonl")],
    "run": ["--", "true"],
}


@pytest.mark.parametrize("reader", READERS)
@pytest.mark.parametrize("source", SOURCES)
def test_every_command_that_reads_the_config_refuses_a_missing_named_one_first(
    source: str, reader: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _missing(tmp_path)
    command = READERS[reader]
    if command[0] == "--":  # a run: its options go before `--`
        args, env = SOURCES[source]([], path)
        named = ([*args, *command], env)
    else:
        named = SOURCES[source](command, path)
    code, _, err = _run(named, monkeypatch, capsys)
    assert code == Exit.USAGE, err
    assert f"bad config: {path}: no such config file" in err and "not a terminal" not in err, err


@pytest.mark.parametrize("condition", CONDITIONS)
def test_every_source_fails_with_the_same_words(
    condition: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    path = CONDITIONS[condition](tmp_path)
    said = set()
    for source, name in SOURCES.items():
        with monkeypatch.context() as m:
            m.delenv("BREAKER_TUI_CONFIG")
            said.add(_run(name(["config", "show"], path), m, capsys)[:3:2])
        assert len(said) == 1, f"{source} fails differently: {said}"


def _without_the_agents_checks(monkeypatch: pytest.MonkeyPatch) -> None:
    """The harnesses' and hooks' checks run programs for seconds and read no config: only the config line matters."""
    import wrapper.doctor

    monkeypatch.setattr(wrapper.doctor, "harness_checks", list)
    monkeypatch.setattr(wrapper.doctor, "hook_checks", list)


@pytest.mark.parametrize("condition", CONDITIONS)
@pytest.mark.parametrize("source", SOURCES)
def test_doctor_reports_a_named_file_it_cannot_use_as_a_problem(
    source: str,
    condition: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    path = CONDITIONS[condition](tmp_path)
    _without_the_agents_checks(monkeypatch)
    code, out, _ = _run(SOURCES[source](["doctor"], path), monkeypatch, capsys)
    line = next(x for x in out.splitlines() if x.split()[1:2] == ["config"])
    assert not line.startswith("ok"), f"{source} naming a {condition} file: {line}"
    assert str(path) in line
    assert code != Exit.OK


def test_only_the_platform_location_nobody_named_may_be_absent(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("BREAKER_TUI_CONFIG")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    default = tmp_path / "xdg" / "breaker-tui" / "config.toml"
    code, out, err = _run((["config", "show"], {}), monkeypatch, capsys)
    assert code == Exit.OK, err
    assert out.startswith(f"# effective breaker-tui config; file: {default} (absent: all defaults)")
    _without_the_agents_checks(monkeypatch)
    _, out, _ = _run((["doctor"], {}), monkeypatch, capsys)
    assert f"ok       config        {default} (absent: all defaults)" in out
