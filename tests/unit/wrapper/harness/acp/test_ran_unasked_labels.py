"""A call that ran without asking and then tripped is labelled so everywhere: never counted or shown as denied.

ACP agents run reads (and read-only commands) without asking, so the breaker judges them only after they
ran; a trip then cancels the turn. Nothing was refused, so the counters (scores panel, narrow summary, the
exit line), the notice line, `--no-tui`'s stderr, and `scan` of the recording say "ran, then tripped", not
"denied".
"""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from tests.unit.wrapper.harness.acp.test_acp_monitor import OPTIONS, asked_call, finish, fresh, unasked_read, upd
from tui.app import _denial_notice
from tui.cli import main
from tui.widgets.scores import summary
from wrapper.harness.acp.monitor import AcpMonitor
from wrapper.harness.base import recording_line
from wrapper.headless import human
from wrapper.items import VerdictItem
from wrapper.monitor import Info
from wrapper.records.recorder import Recorder


def read_loop(m: AcpMonitor, n: int = 5) -> list[Any]:
    return [unasked_read(m, i) for i in range(n)]


def test_the_engine_counts_a_tripped_unasked_call_apart_from_denials() -> None:
    m = fresh()
    rs = read_loop(m)
    assert rs[-1].cancel, "the 5th identical read trips and cancels the turn"
    s = m.breaker.snapshot().get("s1")
    assert s is not None
    assert (s.denials, s.ran_tripped) == (0, 1)


def test_a_refusal_before_running_is_still_a_denial() -> None:
    m = fresh()
    for n in range(5):
        cid, r = asked_call(m, n, "cat notes.txt; echo ran >> calls.log")
        if r.question is not None:
            m.answered({"options": OPTIONS}, r.question, "allow-once")
            finish(m, cid, "The release is on Friday.")
    s = m.breaker.snapshot().get("s1")
    assert s is not None and (s.denials, s.ran_tripped) == (1, 0)


def test_the_score_summary_and_the_notice_line_say_ran_then_tripped() -> None:
    m = fresh()
    rs = read_loop(m)
    s = m.breaker.snapshot().get("s1")
    text = summary(s).plain
    assert "denied 0" in text and "ran, then tripped 1" in text, text
    v = next(i for i in rs[-1].items if isinstance(i, VerdictItem))
    assert v.ran and v.verdict.kind == "deny"
    notice = _denial_notice(v)
    assert "ran without asking, then tripped" in notice and "denied" not in notice
    line = human(v)  # --no-tui's stderr line
    assert line is not None and "RAN without asking, then tripped" in line and "DENY" not in line, line


def test_the_exit_line_counts_it_as_ran_not_denied(tmp_path: Path) -> None:
    m = fresh()
    read_loop(m)
    rec = Recorder(tmp_path / "r.jsonl", {"harness": "acp"})
    rec.write("note", {"what": "x"})
    line = recording_line(SimpleNamespace(recorder=rec, breaker=m.breaker, turns_done=1, turns_started=1, info=Info()))
    rec.close()
    assert "0 denied" in line and "1 ran then tripped" in line, line


def _recording(tmp_path: Path) -> Path:
    """An ACP recording of a Claude-shaped read loop, as `AcpSession` writes it."""
    path = tmp_path / "acp.jsonl"
    rec = Recorder(path, {"harness": "acp", "agent": "claude"})
    rec.write("acp", {"dir": "c2a", "msg": {"jsonrpc": "2.0", "id": 1, "method": "session/new", "params": {}}})
    rec.write("acp", {"dir": "a2c", "msg": {"jsonrpc": "2.0", "id": 1, "result": {"sessionId": "s1"}}})
    rec.write("note", {"what": "prompt", "text": "Read notes.txt.", "followup": False})
    for n in range(5):
        cid = f"r{n}"
        for u in (
            {"sessionUpdate": "tool_call", "toolCallId": cid, "kind": "read", "title": "Read", "rawInput": {}},
            {"sessionUpdate": "tool_call_update", "toolCallId": cid, "rawInput": {"file_path": "/w/notes.txt"}},
            {
                "sessionUpdate": "tool_call_update",
                "toolCallId": cid,
                "status": "completed",
                "content": [{"type": "content", "content": {"type": "text", "text": "Friday."}}],
            },
        ):
            rec.write("acp", {"dir": "a2c", "msg": {"jsonrpc": "2.0", "method": "session/update", "params": upd(**u)}})
    rec.close()
    return path


def test_scan_of_the_recording_says_ran_not_deny(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _recording(tmp_path)
    assert main(["scan", str(path)]) == 1  # still a loop finding
    out = capsys.readouterr().out
    ran = [ln for ln in out.splitlines() if " RAN " in ln]
    assert len(ran) == 1 and "ran without asking, then tripped" in ran[0] and "5/5" in ran[0], out
    assert "DENY" not in out and out.count("ALLOW") == 4, out
    assert main(["scan", "--json", str(path)]) == 1
    found = [json.loads(ln) for ln in capsys.readouterr().out.splitlines() if ln.startswith("{")]
    tripped = [f for f in found if f.get("kind") == "verdict" and f["verdict"] != "allow"]
    assert len(tripped) == 1 and tripped[0].get("ran") is True, tripped


def test_replay_of_the_recording_re_derives_the_ran_label(tmp_path: Path) -> None:
    from wrapper.harness.acp.replay import AcpReplayer
    from wrapper.records.sources import load

    r = AcpReplayer(load(_recording(tmp_path)))
    verdicts = [s.item for s in r.steps() if isinstance(s.item, VerdictItem)]
    assert [(v.verdict.kind, v.ran) for v in verdicts] == [("allow", True)] * 4 + [("deny", True)]
    assert _denial_notice(verdicts[-1]).startswith("⚠ read ran without asking, then tripped")
    s = r.monitor.breaker.snapshot().get("s1")
    assert s is not None and (s.denials, s.ran_tripped) == (0, 1)
