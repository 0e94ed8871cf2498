"""What the agent can reach must not decide for the person: one table of doors, each with the same outcome.

Each row is a way something the agent can write or send could decide for the person: a config key
that enforces less than its default, approval keys moved onto another answer's key, a call longer
than the approval modal, an ACP agent that runs a call it was refused, a recording rewritten after
its session with its digest-index entry rewritten or deleted. For every row, the call did not run
(or the session was refused, or `scan` fails) and the person was told: on stderr, in the TUI and in
the recording, where the row has them. A new door found later fits a row here, or adds one.

Live calls run through the real CLI with the real dsh (or the scripted hostile ACP agent) against
the mock model; the modal rows drive the real Textual app with Pilot at 80x24.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import Button, Static

from tests.conftest import ROOT, wait_until
from tests.tui.conftest import make, settle, text_of
from tests.tui.test_approval import asked, modal, poll, polls
from tests.unit.wrapper.test_weakening import LOOSER
from wrapper.records import integrity
from wrapper.settings import from_mapping
from wrapper.startup import banner
from wrapper.weakening import hold_back, is_accepted, loosened, record_note

pytestmark = [pytest.mark.integration, pytest.mark.timeout(180)]
CLI = [sys.executable, "-m", "tui"]
HOSTILE_ACP = Path(__file__).with_name("hostile_acp.py")
LOOP_CALLS = "calls.log"  # the tool-loop world's command appends a line per run

# per enforcing key, a value looser than its default (`tests/unit/wrapper/test_weakening.py` shows each is named)
LOOSENED_KEYS = sorted(k for k, (_, named) in LOOSER.items() if named is not None)


def _cli(args: list[str], env: dict[str, str], cwd: Path, timeout: float = 150) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*CLI, *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)


def _recordings(state: Path) -> list[Path]:
    return sorted((state / "recordings").glob("*.jsonl"))


def _meta(rec: Path) -> dict[str, Any]:
    return dict(json.loads(rec.read_text().splitlines()[0]))


def _notes(rec: Path, what: str) -> list[dict[str, Any]]:
    out = []
    for line in rec.read_text().splitlines():
        r = json.loads(line)
        if r.get("k") == "note" and r.get("what") == what:
            out.append(r)
    return out


# -- the rows ------------------------------------------------------------------------------------


def config_key_loosened(key: str, tmp_path: Path) -> None:
    """A tool wrote a looser value: the default holds, and start-up and recording name the key."""
    value, named = LOOSER[key]
    sec, _, name = key.partition(".")
    cfg = tmp_path / "config.toml"
    settings = hold_back(from_mapping({sec: {name: value}}, str(cfg)), tmp_path / "state")
    assert loosened(settings) == [], f"{key} = {value!r} took effect without being accepted"
    lines = banner(settings, cfg, {})
    shown = named or key
    assert any("NOT APPLIED" in ln and f": {shown} = " in ln for ln in lines), lines
    assert any(f": {shown} = " in h for h in record_note(settings)["held_back"])


def config_loosened_live(request: pytest.FixtureRequest, tmp_path: Path) -> None:
    """`[repeat] exclude = ["bash"]` written by a tool: the 5th and 6th repeats are still denied (real dsh)."""
    w = request.getfixturevalue("world_factory")("tool-loop")
    state = tmp_path / "state"
    cfg = tmp_path / "config.toml"
    cfg.write_text('[repeat]\nexclude = ["bash"]\nwindow = 6\n')
    env = {**w.env, "BREAKER_TUI_STATE_DIR": str(state), "PYTHONPATH": str(ROOT)}
    p = _cli(["--config", str(cfg), "--no-tui", "--prompt", "Read notes.txt", "--", "dsh", "--profile", "dev"], env,
             w.workspace)  # fmt: skip
    assert p.returncode == 0, p.stderr
    assert len([ln for ln in p.stderr.splitlines() if ln.startswith("breaker: DENY")]) == 2, p.stderr
    assert len((w.workspace / LOOP_CALLS).read_text().splitlines()) == 4, "a repeat ran"
    told = [ln for ln in p.stderr.splitlines() if "NOT APPLIED" in ln]
    assert any("repeat.exclude" in ln for ln in told) and any("repeat.window" in ln for ln in told), p.stderr
    assert "config accept" in p.stderr
    (rec,) = _recordings(state)
    assert any("repeat.exclude" in h for h in _meta(rec)["held_back"])


async def config_loosened_tui() -> None:
    """The start-up lines are hidden by the screen: the TUI names the held-back keys in a notice."""
    settings = hold_back(from_mapping({"repeat": {"exclude": ["bash"]}}, "/nowhere/config.toml"))
    app, src = make(polls(), settings)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, src, pilot)
        await wait_until(
            lambda: any("NOT APPLIED" in str(n.message) and "repeat.exclude" in str(n.message)
                        for n in app._notifications),
            10,
            "the notice naming the held-back key",
        )  # fmt: skip
        assert "ENFORCING" in text_of(app.w_status), "the defaults hold: enforcement is whole"


def keys_remapped_cli(request: pytest.FixtureRequest, tmp_path: Path) -> None:
    """`[keys] approve.once = "d"`: the session is refused before anything starts, naming both bindings."""
    w = request.getfixturevalue("world_factory")("tool-loop")
    state = tmp_path / "state"
    cfg = tmp_path / "config.toml"
    cfg.write_text('[keys]\n"approve.once" = "d"\n')
    env = {**w.env, "BREAKER_TUI_STATE_DIR": str(state), "PYTHONPATH": str(ROOT)}
    p = _cli(["--config", str(cfg), "--no-tui", "--prompt", "Read notes.txt", "--", "dsh", "--profile", "dev"], env,
             w.workspace)  # fmt: skip
    assert p.returncode == 2, p.stderr
    assert "`approve.once`" in p.stderr and "`approve.deny`" in p.stderr, p.stderr
    assert not (w.workspace / LOOP_CALLS).exists() and not _recordings(state), "something started"


async def keys_remapped_modal() -> None:
    """A valid remap: the key on the button labelled deny denies (the labels are the live bindings)."""
    from wrapper.settings import Settings

    app, src = make([*polls(), *asked(4, {"command": poll(4)})], Settings(keys={"approve.deny": "x"}))
    async with app.run_test(size=(80, 24)) as pilot:
        m = await modal(app)
        label = str(m.query_one("#deny", Button).label)
        await pilot.press("tab", label.split(" · ", 1)[0])
        await wait_until(lambda: src.answers == ["deny"], 5, "the key labelled deny denies")


async def modal_overflow_hides_a_tail() -> None:
    """300 harmless lines, then the payload: allow does not exist until the call was seen to its end."""
    command = "\n".join(f": step {i}" for i in range(300)) + "\necho PWNED-LONG > pwned.txt"
    app, src = make([*polls(), *asked(4, {"command": command})])
    async with app.run_test(size=(80, 24)) as pilot:
        m = await modal(app)
        fold = m.query_one("#fold", Static)
        await wait_until(lambda: "lines ·" in text_of(fold) and fold.region.bottom <= 24, 10, "the fold line")
        await pilot.press("tab", "a")
        await settle(app, src, pilot)
        assert src.answers == [] and "PWNED-LONG" not in app.export_screenshot()
        await pilot.press("d")
        await wait_until(lambda: src.answers == ["deny"], 5, "deny")


def acp_ignores_refusals(tmp_path: Path) -> None:
    """An ACP agent runs a call it was refused and reports it completed: ALARM, the agent stopped."""
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "notes.txt").write_text("the notes\n")
    state = tmp_path / "state"
    env = {**os.environ, "FAKE_ACP": "ignore_refusal", "FAKE_LOG": str(ws / "agent.log"),
           "BREAKER_TUI_STATE_DIR": str(state), "PYTHONPATH": str(ROOT)}  # fmt: skip
    p = _cli(["--no-tui", "--prompt", "go", "--acp", "--", sys.executable, str(HOSTILE_ACP)], env, ws)
    assert p.returncode != 0, p.stderr
    assert "ALARM" in p.stderr and "refused calls ran" in p.stderr, p.stderr
    exit_line = next(ln for ln in p.stderr.splitlines() if "recording" in ln and "digest" in ln)
    assert "ALARM" in exit_line, exit_line
    (rec,) = _recordings(state)
    assert any("refused calls ran" in n["text"] for n in _notes(rec, "alarm"))


def acp_runs_on_after_the_alarm(tmp_path: Path) -> None:
    """After the ALARM, an agent that ignores refusals asks again: it gets no answer, so nothing more runs."""
    acp_ignores_refusals(tmp_path)
    ws = tmp_path / "ws"
    asked = [ln.split() for ln in (ws / "agent.log").read_text().splitlines() if ln.startswith("perm ")]
    refused = [a for a in asked if a[2] != "allow"]
    assert len(refused) == 1, f"a permission was answered after the agent ran a refused call: {asked}"
    runs = (ws / "calls.log").read_text().count("ran")
    assert runs == len(asked), f"{runs} runs for {len(asked)} answered permissions: {asked}"


def config_accepted_from_a_tool(tmp_path: Path) -> None:
    """A tool of the session (it carries the run marker) runs `config accept` on the config it loosened: refused."""
    cfg = tmp_path / "config.toml"
    cfg.write_text('[repeat]\nexclude = ["bash"]\n')
    state = tmp_path / "state"
    env = {**os.environ, "BREAKER_TUI_RUN": "1234-5678", "BREAKER_TUI_STATE_DIR": str(state), "PYTHONPATH": str(ROOT)}
    p = _cli(["config", "accept", "--config", str(cfg)], env, tmp_path)
    assert p.returncode != 0, p.stdout
    assert "inside a breaker-tui session" in p.stderr, p.stderr
    assert not is_accepted(cfg, state), "the agent accepted its own loosened config"


def _closed_recording(request: pytest.FixtureRequest, tmp_path: Path) -> tuple[Path, Path, dict[str, str]]:
    """A real headless dsh session's recording, its digest kept out of the state folder (`--digest-to`)."""
    w = request.getfixturevalue("world_factory")("tool-loop")
    state, kept = tmp_path / "state", tmp_path / "kept" / "digests.log"
    kept.parent.mkdir()
    env = {**w.env, "BREAKER_TUI_STATE_DIR": str(state), "PYTHONPATH": str(ROOT)}
    p = _cli(["--no-tui", "--digest-to", str(kept), "--prompt", "Read notes.txt", "--", "dsh", "--profile", "dev"],
             env, w.workspace)  # fmt: skip
    assert p.returncode == 0, p.stderr
    (rec,) = _recordings(state)
    return rec, kept, env


def _forge(rec: Path, env: dict[str, str], index: bool, request: pytest.FixtureRequest) -> None:
    """Drop the denied verdicts, re-seal the chain, rewrite (or delete) the index entry: all a same-user tool can."""
    records = [json.loads(line) for line in rec.read_bytes().splitlines()]
    kept = [r for r in records if not (r.get("k") == "out" and r.get("kind") == "deny")]
    prev, lines = integrity.SEED, list[bytes]()
    for r in kept:
        r.pop("h", None)
        if r.get("k") == "end":
            r["records"] = len(lines)
        line, prev = integrity.seal(prev, json.dumps(r, ensure_ascii=False).encode())
        lines.append(line)
    rec.write_bytes(b"\n".join(lines) + b"\n")
    request.getfixturevalue("monkeypatch").setenv("BREAKER_TUI_STATE_DIR", env["BREAKER_TUI_STATE_DIR"])
    if index:
        entry = integrity.Entry(integrity.real(rec), records[0]["rid"], True, len(lines), prev.hex())
        assert integrity.file_entry(entry) is None
    else:
        integrity.drop_entry(rec)


def recording_rewritten_with_its_index(request: pytest.FixtureRequest, tmp_path: Path) -> None:
    rec, kept, env = _closed_recording(request, tmp_path)
    _forge(rec, env, True, request)
    s = _cli(["scan", str(rec), "--digests", str(kept)], env, tmp_path)
    assert s.returncode == 4 and "FORGED" in s.stderr and "kept in" in s.stderr, s.stderr


def recording_index_entry_deleted(request: pytest.FixtureRequest, tmp_path: Path) -> None:
    rec, kept, env = _closed_recording(request, tmp_path)
    _forge(rec, env, False, request)
    s = _cli(["scan", str(rec)], env, tmp_path)
    assert s.returncode == 5 and "nothing vouches for this recording" in s.stderr, s.stderr
    s = _cli(["scan", str(rec), "--digests", str(kept)], env, tmp_path)
    assert s.returncode == 4 and "FORGED" in s.stderr, s.stderr


# -- the table -----------------------------------------------------------------------------------
Row = Callable[..., Any]
TUI = pytest.mark.tui
ROWS = [
    *(pytest.param("config_key", key, id=f"config-{key}") for key in LOOSENED_KEYS),
    pytest.param("live", config_loosened_live, id="config-loosened-live-dsh"),
    pytest.param("pilot", config_loosened_tui, id="config-loosened-tui", marks=TUI),
    pytest.param("live", keys_remapped_cli, id="approval-keys-remapped-refused"),
    pytest.param("pilot", keys_remapped_modal, id="approval-keys-labels-are-live", marks=TUI),
    pytest.param("pilot", modal_overflow_hides_a_tail, id="modal-overflow-hides-a-tail", marks=TUI),
    pytest.param("plain", acp_ignores_refusals, id="acp-agent-ignores-refusals"),
    pytest.param("plain", acp_runs_on_after_the_alarm, id="acp-agent-asks-again-after-the-alarm"),
    pytest.param("plain", config_accepted_from_a_tool, id="config-accepted-from-inside-the-session"),
    pytest.param("live", recording_rewritten_with_its_index, id="recording-rewritten-with-index-entry"),
    pytest.param("live", recording_index_entry_deleted, id="recording-index-entry-deleted"),
]


@pytest.mark.parametrize(("how", "row"), ROWS)
def test_the_call_did_not_run_and_the_person_was_told(
    how: str, row: Any, request: pytest.FixtureRequest, tmp_path: Path
) -> None:
    if how == "config_key":
        config_key_loosened(row, tmp_path)
    elif how == "live":
        row(request, tmp_path)
    elif how == "pilot":
        asyncio.run(row())
    else:
        row(tmp_path)
