"""The command as a newcomer first meets it, in real processes: quick answers, no screen without a
terminal, every exit status written down, a prompt nobody can receive refused.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pexpect
import pytest

from tests.conftest import ROOT, SHARED
from tui.cli import full_help
from wrapper.exits import Exit

CLI = [sys.executable, "-m", "tui"]
HEAVY = ("textual", "asyncio", "pydantic", "engine.breaker", "engine.config", "wrapper.harness")


def _modules_after(args: list[str]) -> tuple[str, list[str]]:
    """What `breaker-tui ARGS` prints, and which heavy modules it had imported by then."""
    probe = (
        "import sys, json\n"
        "from tui.cli import main\n"
        f"code = main({args!r})\n"
        f"heavy = sorted(m for m in sys.modules if m.startswith({HEAVY!r}))\n"
        "print(json.dumps(heavy))\n"
    )
    p = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, timeout=60, check=True)
    *printed, last = p.stdout.splitlines()
    return "\n".join(printed), json.loads(last)


@pytest.mark.parametrize("args", [["--version"], ["--help"]])
def test_version_and_help_answer_before_the_app_or_the_engine_is_imported(args: list[str]) -> None:
    printed, heavy = _modules_after(args)
    assert printed.startswith(("breaker-tui ", "breaker-tui [OPTIONS]")), printed
    assert heavy == [], f"{args[0]} imported {heavy} before answering"


def test_every_exit_status_is_in_the_help_and_the_guide() -> None:
    text = full_help()
    guide = (ROOT / "docs" / "guide.md").read_text()
    section = guide.split("## Exit statuses", 1)[1].split("\n## ", 1)[0]
    for code in Exit:
        assert re.search(rf"^\s+{int(code)}\s", text, re.M), f"{int(code)} missing from --help"
        assert re.search(rf"\b{int(code)}\b", section), f"{int(code)} missing from the guide's exit statuses"


def _scratch_env(tmp_path: Path) -> dict[str, str]:
    env = {**os.environ, "BREAKER_TUI_STATE_DIR": str(tmp_path / "state")}
    env["BREAKER_TUI_CONFIG"] = str(tmp_path / "no-config.toml")
    (tmp_path / "no-config.toml").write_text("")  # named, so it must exist: empty is all defaults
    return env


@pytest.mark.parametrize("args", [["--", "true"], ["demo"], ["replay", "-"]])
def test_the_screen_is_refused_without_a_terminal_and_nothing_is_written_to_the_files(
    args: list[str], tmp_path: Path
) -> None:
    out, err = tmp_path / "o", tmp_path / "e"
    if args[0] == "replay":  # a real session log, so only the terminal is wrong
        args = ["replay", str(SHARED / "samples" / "dsh" / "session.raw.jsonl")]
    with out.open("w") as o, err.open("w") as e:
        p = subprocess.run(
            [*CLI, *args], stdin=subprocess.DEVNULL, stdout=o, stderr=e, env=_scratch_env(tmp_path), timeout=60
        )
    said = err.read_text()
    assert p.returncode == Exit.USAGE, said
    assert "not a terminal" in said and ("--no-tui" in said or "scan" in said)
    assert "\x1b" not in said + out.read_text(), "escape codes were written into a file"
    assert not (tmp_path / "state").exists() or not list((tmp_path / "state").rglob("*.jsonl")), "a recording was made"


def test_a_background_process_group_is_told_so_instead_of_being_stopped(tmp_path: Path) -> None:
    # as `timeout 600 make demo` did: `timeout` puts its child in a process group of its own, which
    # is not the terminal's foreground group (the shell's, here pexpect's `sh`, is)
    child = pexpect.spawn(
        "sh",
        ["-c", " ".join(["timeout", "100", *CLI, "--", "true"])],
        cwd=str(ROOT),
        env=_scratch_env(tmp_path),
        dimensions=(24, 80),
        encoding="utf-8",
        timeout=60,
    )
    try:
        child.expect("background process group")
        child.expect(pexpect.EOF)
    finally:
        child.close(force=True)
    assert child.exitstatus == Exit.USAGE


def test_a_prompt_for_a_plain_command_is_refused_with_what_to_do_instead(tmp_path: Path) -> None:
    p = subprocess.run(
        [*CLI, "--no-tui", "--prompt", "hello", "--", "true"],
        capture_output=True,
        text=True,
        env=_scratch_env(tmp_path),
        timeout=60,
    )
    assert p.returncode == Exit.USAGE
    assert "plain command, which takes no prompts" in p.stderr and "stdin" in p.stderr


def test_json_lines_end_with_the_recording_and_its_digest(tmp_path: Path) -> None:
    p = subprocess.run(
        [*CLI, "--no-tui", "--json", "--", "sh", "-c", "echo hi"],
        capture_output=True,
        text=True,
        env=_scratch_env(tmp_path),
        timeout=60,
    )
    assert p.returncode == 0, p.stderr
    end = json.loads(p.stdout.splitlines()[-1])
    assert end["kind"] == "end" and Path(end["recording"]).is_file(), end
    assert re.fullmatch(r"[0-9a-f]{16,}", end["digest"]) and end["digest"][:16] in end["text"], end


def test_a_state_folder_that_cannot_be_written_ends_with_recording_not_kept(tmp_path: Path) -> None:
    env = _scratch_env(tmp_path)
    env["BREAKER_TUI_STATE_DIR"] = str(tmp_path / "a-file")  # a file where the folder is (root ignores modes)
    (tmp_path / "a-file").write_text("")
    p = subprocess.run([*CLI, "--no-tui", "--", "true"], capture_output=True, text=True, env=env, timeout=60)
    assert p.returncode == 0
    assert p.stderr.splitlines()[-1].startswith("breaker-tui: recording NOT KEPT: cannot record to"), p.stderr


def test_demo_list_marks_what_needs_an_acp_agent_and_demo_refuses_it_without_one(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from tui.cli import main

    assert main(["demo", "--list"]) == 0
    listed = {line.split()[0]: line for line in capsys.readouterr().out.splitlines() if line.strip()}
    assert "[needs --agent]" in listed["plan-and-edit"] and "[needs --agent]" not in listed["tool-loop"]
    assert main(["demo", "plan-and-edit"]) == Exit.USAGE
    err = capsys.readouterr().err
    assert "plan-and-edit needs an ACP agent's todo tool (todowrite)" in err and "--agent" in err
    assert main(["demo", "tool-loop", "--agent", "nosuch"]) == Exit.USAGE
    assert "unknown agent 'nosuch'" in capsys.readouterr().err


def test_a_scenario_an_agent_cannot_play_is_marked_and_refused_for_it_with_the_reason(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from tui.cli import main
    from wrapper.harness.registry import known_agents
    from wrapper.mock.scenarios import NOT_WITH, SCENARIOS

    assert main(["demo", "--list"]) == 0
    listed = {line.split()[0]: line for line in capsys.readouterr().out.splitlines() if line.strip()}
    assert "[not with gemini]" in listed["read-loop"] and "[not with" not in listed["tool-loop"]
    assert main(["demo", "read-loop", "--agent", "gemini"]) == Exit.USAGE
    err = capsys.readouterr().err
    assert "read-loop cannot play with gemini: Gemini CLI ends the turn itself" in err, err
    for scenario, agents in NOT_WITH.items():
        assert scenario in SCENARIOS and set(agents) <= set(known_agents()), (scenario, agents)


def test_doctor_finds_a_recordings_folder_that_cannot_be_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from wrapper.doctor import _recordings_check

    (tmp_path / "a-file").write_text("")
    monkeypatch.setenv("BREAKER_TUI_STATE_DIR", str(tmp_path / "a-file" / "state"))
    bad = _recordings_check()
    assert not bad.ok and "cannot be written" in bad.detail and "recordings_dir" in bad.fix
    monkeypatch.setenv("BREAKER_TUI_STATE_DIR", str(tmp_path / "fresh" / "state"))
    assert _recordings_check().ok, "a folder not made yet is fine when its parent can be written"


def test_doctor_says_what_comes_next_a_profile_then_a_key_or_the_mock(tmp_path: Path) -> None:
    from tui.cli import next_step

    env = {"DSH_HOME": str(tmp_path / "dsh")}
    assert "breaker-tui init-profile dev" in next_step(env)
    (tmp_path / "dsh" / "profiles" / "dev").mkdir(parents=True)
    without_key = next_step(env)
    assert "DEEPSEEK_API_KEY" in without_key and "mock-llm" in without_key
    assert next_step({**env, "DEEPSEEK_API_KEY": "sk-x"}).startswith("breaker-tui -- dsh --profile dev")


def test_the_screen_says_what_is_starting_before_it_opens(tmp_path: Path) -> None:
    child = pexpect.spawn(
        sys.executable,
        ["-m", "tui", "--", "true"],
        cwd=str(ROOT),
        env=_scratch_env(tmp_path),
        dimensions=(24, 80),
        timeout=60,
    )
    try:
        child.expect(rb"breaker-tui: starting true \(the screen opens in a moment\)")
        assert b"\x1b[?1049h" not in (child.before or b""), "the line comes before the screen"
        child.expect(rb"quit")
        child.sendcontrol("q")
        child.expect(pexpect.EOF)
    finally:
        child.close(force=True)
    assert child.exitstatus == 0


def test_the_demo_says_what_is_starting_before_its_setup(tmp_path: Path) -> None:
    """The demo finds dsh, starts the mock model and lays out its world before the screen: not in silence."""
    child = pexpect.spawn(
        sys.executable,
        ["-m", "tui", "demo"],
        cwd=str(ROOT),
        env=_scratch_env(tmp_path),
        dimensions=(24, 80),
        timeout=60,
    )
    try:
        child.expect(
            rb"breaker-tui: starting the demo tool-loop \(dsh and the mock model; the screen opens in a moment\)"
        )
        assert b"\x1b[?1049h" not in (child.before or b""), "the line comes before the screen"
    finally:
        child.close(force=True)


def test_demo_refuses_the_headless_output_options_without_no_tui(capsys: pytest.CaptureFixture[str]) -> None:
    from tui.cli import main

    assert main(["demo", "tool-loop", "--json"]) == Exit.USAGE
    assert "--json only work(s) with --no-tui" in capsys.readouterr().err


@pytest.mark.slow  # the real dsh against the mock model: a few seconds, and `make check` has no dsh
def test_demo_no_tui_takes_the_main_commands_json_and_quiet(tmp_path: Path) -> None:
    """`demo --no-tui --json` gives JSON lines on stdout, as `breaker-tui --no-tui --json -- CMD` does."""
    p = subprocess.run(
        [*CLI, "demo", "tool-loop", "--no-tui", "--json", "--quiet"],
        cwd=ROOT,
        env=_scratch_env(tmp_path),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert p.returncode == 0, p.stderr
    kinds = {json.loads(line)["kind"] for line in p.stdout.splitlines()}
    assert {"status", "verdict", "end"} <= kinds, kinds


def test_doctor_keeps_its_columns_for_a_long_check_name(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """`agent opencode install` is longer than the name column was: its detail started a column late."""
    import wrapper.doctor
    from tui.cli import main
    from wrapper.toolchain import Check

    checks = [
        Check("python", True, "3.11.7"),
        Check("agent opencode install", True, "every file matches the manifest setup-agent wrote"),
        Check("dsh", False, "not found", "breaker-tui setup-dsh"),
    ]
    monkeypatch.setattr(wrapper.doctor, "doctor", lambda config=None: checks)
    assert main(["doctor"]) == Exit.CANNOT_START
    lines = capsys.readouterr().out.splitlines()
    starts = {line.index(d) for line, d in zip(lines, ("3.11.7", "every file", "not found"), strict=False)}
    assert len(starts) == 1, lines
    assert lines[3].index("fix:") in starts, "the fix sits under the detail"
