"""The command line's own words: usage errors on stderr, `--version` names the engine build, helps that help."""

from __future__ import annotations

import pytest

import engine
from tui.cli import full_help, main


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
