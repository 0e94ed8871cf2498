"""A crafted recording replayed through the real app: every recorded text is shown inert.

The recording is the probe's (`reliability-probes/hostile_recording.py`): markup, an OSC title, clear-screen
and cursor-home escapes, bidi controls and a C1 CSI in every place a recording can put text, and odd kinds,
numbers and times. Before the fix the recorded approval answer reached the terminal raw (the title became
REPLAY-PWNED and the screen was cleared). The whole stream, the screen, the title and the exit summary are
checked, not only the answer; an answer that is not one is replayed as the deny it was.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from tests.conftest import wait_until
from tests.tui.conftest import stream_text
from tui.app import create_app
from tui.player import ReplaySource
from wrapper.records.sources import load
from wrapper.settings import Settings

E = "[bold red]x[/] [/] [link=http://e]l[/link] \x1b]0;REPLAY-PWNED\x07\x1b[2J\x1b[H \u202eevil\u202c \x9b31m"
S = "s1"
CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def hostile_recording(out: Path) -> Path:
    """The probe's recording, record for record."""
    chunk = {"type": "tool-call-delta", "id": E, "name": E, "argumentsDelta": E}
    recs: list[dict[str, Any]] = [
        {
            "at": 1.0,
            "k": "meta",
            "format": "breaker-tui-recording",
            "version": 2,
            "argv": ["dsh", E],
            "cwd": E,
            "config": {},
        },
        {"at": 1.1, "k": "note", "what": "launch", "argv": [E, 5, None], "generation": 1},
        {"at": 1.2, "k": "in", "t": "ready", "sessionId": S, "provider": E, "model": E},
        {"at": 1.3, "k": "note", "what": E, "text": E},
        {"at": 1.4, "k": "child", "text": E + "\n" * 3},
        {"at": 1.5, "k": "in", "t": "event", "sessionId": S, "event": {"type": "turn/start", "data": {"turn": 1}}},
        {"at": 1.6, "k": "in", "t": "request_start", "sessionId": S, "purpose": None, "turn": 1, "step": 1},
        {
            "at": 1.7,
            "k": "in",
            "t": "event",
            "sessionId": S,
            "event": {"type": "assistant/chunk", "data": {"chunk": {"type": "reasoning-delta", "text": E}}},
        },
        {
            "at": 1.8,
            "k": "in",
            "t": "event",
            "sessionId": E,
            "event": {"type": "assistant/chunk", "data": {"chunk": chunk}},
        },
        {"at": 1.9, "k": "in", "t": "agent_created", "sessionId": E, "depth": 1},
        {"at": 2.0, "k": "in", "t": "runner_error", "message": E},
        {"at": 2.1, "k": "in", "t": "agent_error", "sessionId": S, "message": E},
        {"at": 2.2, "k": "in", "t": "request_error", "sessionId": S, "message": E, "code": E, "ours": False},
    ]
    for i in range(6):
        args = {"command": "curl http://127.0.0.1:9/" + E}
        recs.append(
            {
                "at": 3.0 + i,
                "k": "in",
                "t": "verdict_request",
                "id": f"v{i}",
                "sessionId": S,
                "callId": f"c{i}",
                "name": E,
                "args": args,
            }
        )
        recs.append(
            {
                "at": 3.0 + i,
                "k": "in",
                "t": "approval_request",
                "id": f"a{i}",
                "sessionId": S,
                "toolName": E,
                "callId": f"c{i}",
                "reason": E,
            }
        )
        recs.append({"at": 3.1 + i, "k": "out", "t": "approval_response", "id": f"a{i}", "answer": E, "outcome": E})
    recs.append({"at": 1e18, "k": "note", "what": "exit", "code": E})
    recs.append({"at": -5, "k": "note", "what": "stall", "text": E})
    recs.append({"at": 1e18, "k": "end", "complete": True, "records": len(recs)})
    out.write_text("".join(json.dumps(r) + "\n" for r in recs))
    return out


def _inert(text: str, where: str) -> None:
    assert "REPLAY-PWNED\x07" not in text and "\x1b" not in text, f"a raw escape in {where}"
    bad = CONTROL.search(text)
    assert bad is None, f"control character {bad.group(0)!r} in {where}"


async def test_a_hostile_recording_replays_inert_everywhere(tmp_path: Path) -> None:
    settings = Settings()
    src = ReplaySource(load(hostile_recording(tmp_path / "h.jsonl")), settings, speed=0)
    app = create_app(src, settings)
    async with app.run_test(size=(160, 60)) as pilot:
        await wait_until(lambda: src.done, 30, "the replay to finish")
        await pilot.pause()
        shown = stream_text(app)
        # a recorded answer that is not one of the answers is applied (and shown) as the refusal it was live:
        # its text never reaches the screen, raw or as markup
        assert shown.count("✔ approval: deny (unknown)") == 6, "each recorded answer is shown, as the deny applied"
        assert "approval: [bold red]" not in shown
        _inert(shown, "the stream")
        _inert(app.title + app.sub_title, "the title")
        _inert(app.export_screenshot(), "the screenshot")
