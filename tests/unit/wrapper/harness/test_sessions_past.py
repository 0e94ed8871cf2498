"""The session list from real recordings (written by the `Recorder`), `--resume ID` checks, the history log."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from wrapper.harness.acp.history import HistoryLog, is_state
from wrapper.harness.past import agent_label, list_sessions, valid_session_id
from wrapper.harness.registry import resume_problem, session_label
from wrapper.records.recorder import Recorder


def _acp_recording(d: Path, name: str, agent: str, cwd: str, sid: str, prompt: str, load: bool = False) -> Path:
    rec = Recorder(d / name, {"argv": [agent, "acp"], "cwd": cwd, "harness": "acp", "agent": agent})
    rec.write("note", {"what": "launch", "argv": [agent], "generation": 1})
    rec.write("acp", {"dir": "c2a", "msg": {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {}}})
    if load:
        params = {"cwd": cwd, "mcpServers": [], "sessionId": sid}
        rec.write("acp", {"dir": "c2a", "msg": {"jsonrpc": "2.0", "id": 2, "method": "session/load", "params": params}})
    else:
        rec.write("acp", {"dir": "a2c", "msg": {"jsonrpc": "2.0", "id": 2, "result": {"sessionId": sid}}})
    if prompt:
        rec.write("note", {"what": "prompt", "text": prompt, "followup": False})
    rec.close()
    return d / name


def _dsh_recording(d: Path, name: str, cwd: str, sid: str, prompt: str) -> Path:
    rec = Recorder(d / name, {"argv": ["dsh", "--profile", "dev"], "cwd": cwd})
    rec.write("in", {"t": "hello", "pid": 1})
    rec.write("in", {"t": "ready", "sessionId": sid, "model": "m", "resumed": False})
    rec.write("out", {"t": "prompt", "text": prompt, "delivered": True})
    rec.close()
    return d / name


def test_sessions_are_listed_per_agent_and_folder_newest_first_one_row_per_id(tmp_path: Path) -> None:
    d, ws, other = tmp_path / "rec", str(tmp_path / "ws"), str(tmp_path / "elsewhere")
    os.makedirs(ws)
    os.makedirs(other)
    first = _acp_recording(d, "20261201-100000-session.jsonl", "claude", ws, "sess-a", "Fix the test.")
    _acp_recording(d, "20261201-110000-session.jsonl", "claude", ws, "sess-b", "Read notes.txt.")
    resumed = _acp_recording(d, "20261201-120000-session.jsonl", "claude", ws, "sess-a", "And now?", load=True)
    _acp_recording(d, "20261201-130000-session.jsonl", "opencode", ws, "ses_other_agent", "x")
    _acp_recording(d, "20261201-140000-session.jsonl", "claude", other, "sess-elsewhere", "y")
    _dsh_recording(d, "20261201-150000-dev-session-x.jsonl", ws, "session-1234", "Wait for the dev server.")
    _acp_recording(d, "20261201-160000-session.jsonl", "claude", ws, "never-prompted", "")
    for n, p in enumerate([first, d / "20261201-110000-session.jsonl", resumed]):
        os.utime(p, (1_800_000_000 + n, 1_800_000_000 + n))
    got = list_sessions(d, "claude", ws)
    assert [s.session_id for s in got] == ["sess-a", "sess-b"], "newest first, resumed one counted once"
    a = got[0]
    assert a.runs == 2 and a.path == resumed, "the newest recording of the session is the one opened"
    assert a.title == "Fix the test.", "the title is the first prompt of its oldest run"
    dsh = list_sessions(d, "dsh --profile dev", ws)
    assert [(s.session_id, s.title) for s in dsh] == [("session-1234", "Wait for the dev server.")]
    assert list_sessions(d, "claude", other)[0].session_id == "sess-elsewhere"
    assert list_sessions(tmp_path / "missing", "claude", ws) == []


def test_a_recording_with_a_hostile_session_id_is_not_listed(tmp_path: Path) -> None:
    d, ws = tmp_path / "rec", str(tmp_path)
    _acp_recording(d, "20261201-100000-session.jsonl", "claude", ws, "--dangerously-skip-permissions", "a")
    _acp_recording(d, "20261201-110000-session.jsonl", "claude", ws, "id with\x1b[2J escape", "b")
    _acp_recording(d, "20261201-120000-session.jsonl", "claude", ws, "good-1", "c")
    (d / "20261201-130000-session.jsonl").write_text("not json\n")
    assert [s.session_id for s in list_sessions(d, "claude", ws)] == ["good-1"]


@pytest.mark.parametrize(
    ("sid", "ok"),
    [
        ("ses_dcbba624fffe0FhN2hEbyXe617", True),
        ("57563658-c1e9-442e-b94d-dbe75812844a", True),
        ("session-80a4fb84-98e5-4bf2-8b7c-bae83222ad05", True),
        ("-x", False),
        ("--resume", False),
        ("", False),
        ("a b", False),
        ("a\nb", False),
        ("x" * 201, False),
    ],
)
def test_valid_session_id(sid: str, ok: bool) -> None:
    assert valid_session_id(sid) is ok


def test_resume_problem_names_what_is_wrong() -> None:
    assert resume_problem(["claude"], False, "57563658-c1e9") == ""
    assert resume_problem(["dsh", "--profile", "dev"], False, "session-1") == ""
    assert "one task" in resume_problem(["dsh", "--profile", "headless"], False, "session-1")
    assert "neither" in resume_problem(["cat"], False, "abc")
    assert "not a session id" in resume_problem(["claude"], False, "--evil")
    assert resume_problem(["my-agent", "--stdio"], True, "abc") == ""


def test_session_label_matches_what_the_recordings_say() -> None:
    assert session_label(["claude"]) == agent_label({"harness": "acp", "agent": "claude"}) == "claude"
    assert session_label(["claude-agent-acp"]) == "claude"
    assert session_label(["dsh", "--profile", "dev"]) == "dsh --profile dev"
    assert agent_label({"argv": ["dsh", "--profile=dev", "--resume", "x"]}) == "dsh --profile dev"
    assert session_label(["/opt/bin/my-agent"], acp=True) == "my-agent"


def _upd(kind: str, **kw: object) -> dict[str, object]:
    return {"sessionId": "s", "update": {"sessionUpdate": kind, **kw}}


def test_history_log_joins_chunks_names_calls_once_and_is_bounded() -> None:
    h = HistoryLog()
    h.feed(_upd("user_message_chunk", content={"type": "text", "text": "Read "}))
    h.feed(_upd("user_message_chunk", content={"type": "text", "text": "notes.txt."}))
    h.feed(_upd("agent_thought_chunk", content={"type": "text", "text": "I should read it"}))
    h.feed(_upd("tool_call", toolCallId="c1", title="cat notes.txt"))
    h.feed(_upd("tool_call_update", toolCallId="c1", status="completed"))
    h.feed(_upd("tool_call", toolCallId="c1", title="cat notes.txt"))  # the same call again: one line
    h.feed(_upd("agent_message_chunk", content={"type": "text", "text": "Done.\x1b[2J"}))
    assert h.take() == ["you: Read notes.txt.", "tool: cat notes.txt", "agent: Done.\x1b[2J"]
    assert h.updates == 7
    for n in range(500):
        h.feed(_upd("tool_call", toolCallId=f"x{n}", title="t"))
    assert len(h.take()) + 3 == 200 and h.dropped == 303, "at most 200 lines in all"
    assert is_state(_upd("available_commands_update")) and not is_state(_upd("tool_call"))


def test_a_run_that_resumed_another_session_counts_for_both(tmp_path: Path) -> None:
    """Open the app (a new session), resume an old one from the list, prompt it: that run is the old one's too."""
    d, ws = tmp_path / "rec", str(tmp_path)
    old = _acp_recording(d, "20261201-100000-session.jsonl", "claude", ws, "old-1", "First question")
    rec = Recorder(d / "20261201-110000-session.jsonl", {"cwd": ws, "harness": "acp", "agent": "claude"})
    rec.write("acp", {"dir": "a2c", "msg": {"jsonrpc": "2.0", "id": 2, "result": {"sessionId": "fresh-2"}}})
    params = {"cwd": ws, "mcpServers": [], "sessionId": "old-1"}
    rec.write("acp", {"dir": "c2a", "msg": {"jsonrpc": "2.0", "id": 2, "method": "session/load", "params": params}})
    rec.write("note", {"what": "prompt", "text": "Second question", "followup": False})
    rec.close()
    os.utime(old, (1_700_000_000, 1_700_000_000))  # before the other
    got = list_sessions(d, "claude", ws)
    assert [(s.session_id, s.runs, s.title) for s in got] == [("old-1", 2, "First question")], "fresh-2: no prompt"
    assert got[0].path == d / "20261201-110000-session.jsonl"
