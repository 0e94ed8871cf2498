"""The command line's own words: usage errors on stderr, `--version` names the engine build, helps that help."""

from __future__ import annotations

import argparse
import contextlib
import io
from pathlib import Path
from typing import Any

import pytest

import engine
from tui.cli import COMMANDS, full_help, main


def test_version_names_the_engine_build(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--version"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("breaker-tui ") and f"(engine: {engine.build_info()})" in out


@pytest.mark.parametrize("argv", [[], ["dsh", "--profile", "dev"], ["-V"], ["version"]])
def test_usage_errors_go_to_stderr_not_stdout(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    assert main(argv) == 2
    got = capsys.readouterr()
    assert got.out == "" and "breaker-tui" in got.err


def test_doctor_help_prints_help_instead_of_running_the_checks(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as e:
        main(["doctor", "--help"])
    assert e.value.code == 0
    out = capsys.readouterr().out
    assert "usage: breaker-tui doctor" in out
    assert "engine build" not in out, "the checks did not run"


def test_the_help_lists_every_run_option_and_config_path() -> None:
    text = full_help()
    for option in ("--acp", "--no-tui", "--json", "--quiet", "--prompt", "--approvals", "--observe", "--theme"):
        assert option in text, option
    assert "config show|path" in text


def test_quiet_needs_no_tui(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--quiet", "--", "true"]) == 2
    assert "--quiet" in capsys.readouterr().err


def test_each_run_option_is_described_once_by_its_parser() -> None:
    from tui.cli import _run_parser

    text = " ".join(full_help().split())
    for action in _run_parser()._actions:
        assert action.help is not None and " ".join(action.help.split()) in text, action.option_strings


@pytest.mark.parametrize("name", ["replay", "demo", "mock-llm", "setup-dsh", "doctor", "calibrate", "config", "watch"])
def test_a_subcommand_s_help_says_what_its_usage_line_says(name: str, capsys: pytest.CaptureFixture[str]) -> None:
    from tui.cli import SUBCOMMANDS, usage

    does = SUBCOMMANDS[name].does
    assert does in usage()
    with pytest.raises(SystemExit):
        main([name, "--help"])
    assert " ".join(does.split())[1:] in " ".join(capsys.readouterr().out.split()), "one description, both places"


# A positional that picks what a subcommand does is described choice by choice.
UNDESCRIBED_YET: set[tuple[str, str]] = set()


def _parsers_of(name: str, monkeypatch: pytest.MonkeyPatch) -> list[argparse.ArgumentParser]:
    """The parsers a subcommand's `--help` parses with (a hand-written help parses with none)."""
    seen: list[argparse.ArgumentParser] = []
    parse = argparse.ArgumentParser.parse_known_args

    def recording(self: argparse.ArgumentParser, *a: Any, **k: Any) -> Any:
        seen.append(self)
        return parse(self, *a, **k)

    monkeypatch.setattr(argparse.ArgumentParser, "parse_known_args", recording)
    with contextlib.redirect_stdout(io.StringIO()), contextlib.suppress(SystemExit):
        COMMANDS[name](["--help"])
    monkeypatch.undo()
    return seen


def _undescribed(p: argparse.ArgumentParser) -> list[tuple[str, str]]:
    """Each option or positional of `p` without a description, and each action choice not named in it."""
    missing = []
    for action in p._actions:
        if isinstance(action, argparse._HelpAction):
            continue
        what = (p.prog, action.dest)
        if isinstance(action, argparse._SubParsersAction):
            described = {c.dest for c in action._choices_actions if c.help}
            missing += [(p.prog, sub) for sub in action.choices if sub not in described]
            missing += [m for sub in action.choices.values() for m in _undescribed(sub)]
        elif not action.help:
            missing.append(what)
        elif not action.option_strings and action.dest == "action" and action.choices:
            if any(f"{choice}:" not in action.help for choice in action.choices):
                missing.append(what)
    return missing


@pytest.mark.parametrize("name", list(COMMANDS))
def test_every_option_and_action_of_every_subcommand_is_described(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    missing = [m for p in _parsers_of(name, monkeypatch) for m in _undescribed(p)]
    assert [m for m in missing if m not in UNDESCRIBED_YET] == [], "described in --help and on the cli page"
    for known in UNDESCRIBED_YET:
        if known[0] == f"breaker-tui {name}":
            assert known in missing, f"{known} is described now: drop it from UNDESCRIBED_YET"


def _written(action: argparse.Action) -> list[str]:
    """The option as a person writes it before a command, with a value when it takes one."""
    if action.nargs == 0:
        return [action.option_strings[0]]
    return [action.option_strings[0], str(next(iter(action.choices))) if action.choices else "x"]


def _run_options() -> list[argparse.Action]:
    from tui.cli import _run_parser

    return [a for a in _run_parser()._actions if a.option_strings]


@pytest.mark.parametrize("option", _run_options(), ids=lambda a: a.option_strings[0])
def test_a_run_option_before_a_subcommand_is_that_subcommand_s_or_refused_by_it_by_name(
    option: argparse.Action, capsys: pytest.CaptureFixture[str]
) -> None:
    """Never "unknown command '--theme'" and a page of usage: the subcommand takes it, or names it in one line."""
    written = _written(option)
    try:
        code = main([*written, "demo", "--list"])
    except SystemExit as e:  # argparse: the subcommand does not take this option
        code = int(e.code or 0)
    got = capsys.readouterr()
    assert "unknown command" not in got.err
    if code == 0:
        assert "tool-loop" in got.out  # read as `demo --list OPTION`
    else:
        assert code == 2 and f"breaker-tui demo: error: unrecognized arguments: {'='.join(written)}\n" in got.err
        assert len(got.err.splitlines()) <= 4, got.err


@pytest.mark.parametrize("argv", [["--theme", "nope", "demo", "--list"], ["--no-tui", "demo", "--list"]])
def test_the_options_demo_takes_work_before_it(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    assert main(argv) == 0
    assert "tool-loop" in capsys.readouterr().out


@pytest.mark.parametrize("argv", [["--observe"], ["--theme", "nope"], ["--no-tui", "dsh"]])
def test_an_option_with_no_command_says_so_in_one_line(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1, err  # no usage burying it
    assert err.startswith(f"breaker-tui: {argv[0]} is an option, not a command") and "-- COMMAND" in err


@pytest.mark.parametrize(
    "argv",
    [
        ["replay", "/nonexistent/rec.jsonl"],
        ["eval", "/nonexistent"],
        ["scan", "/nonexistent"],
        ["demo", "no-such-scenario"],
        ["config", "show", "--config", "/nonexistent.toml"],
        ["calibrate", "--config", "/nonexistent.toml"],
    ],
    ids=lambda argv: argv[0],
)
def test_a_subcommand_s_bad_path_error_is_one_line_that_names_it(
    argv: list[str], capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "empty.toml").write_text("")  # a config that loads, so the bad path is what is refused
    monkeypatch.setenv("BREAKER_TUI_CONFIG", str(tmp_path / "empty.toml"))
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"breaker-tui {argv[0]}: ") and err.count("\n") == 1, err


@pytest.mark.parametrize("name", list(COMMANDS))
def test_every_subcommand_help_starts_with_its_description_as_a_sentence(
    name: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """`agents --help` said "the ACP agents breaker-tui knows", lower-case, and `setup-agent --help` nothing."""
    try:
        code: object = main([name, "--help"])
    except SystemExit as e:  # argparse's way; a command that reads its own arguments returns
        code = e.code
    assert code == 0
    blocks = capsys.readouterr().out.split("\n\n")
    assert blocks[0].startswith(f"usage: breaker-tui {name}"), blocks[0]
    said = blocks[1]
    assert said[:1].isupper() and not said.endswith(":"), f"{name} --help: {said[:80]!r}"


@pytest.mark.parametrize("argv", [["--no-tui"], ["--no-tui", "--json"], []])
def test_a_missing_command_is_named_as_such_with_or_without_a_screen(
    argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    """Without a screen the run's own start said `[Errno 2] No such file or directory: 'x'`."""
    assert main([*argv, "--", "no-such-command-anywhere"]) == 3
    assert capsys.readouterr().err.strip() == "breaker-tui: no-such-command-anywhere: command not found on PATH"
