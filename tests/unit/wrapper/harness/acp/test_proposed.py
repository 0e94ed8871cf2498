"""opencode proposing an edit it was allowed is acknowledged; nothing else reaches a file system we lack."""

from __future__ import annotations

from typing import Any

from wrapper.harness.acp.proposed import WRITE, ProposedEdits

PATH = "/w/notes.txt"


def edit_permission(path: str = PATH, kind: str = "edit") -> dict[str, Any]:
    """opencode 1.18's request for an edit, as recorded."""
    return {
        "sessionId": "ses_1",
        "toolCall": {
            "toolCallId": "call_1",
            "title": path,
            "kind": kind,
            "rawInput": {"filepath": path, "diff": "@@ -1 +1 @@\n-a\n+b\n"},
        },
        "options": [{"optionId": "once", "kind": "allow_once", "name": "Allow once"}],
    }


def write(path: str = PATH) -> dict[str, Any]:
    return {"sessionId": "ses_1", "path": path, "content": "b\n"}


def test_the_write_that_follows_an_edit_it_asked_about_is_its_proposal_once() -> None:
    p = ProposedEdits()
    p.asked(edit_permission())
    assert p.take(WRITE, write()) == PATH
    assert p.take(WRITE, write()) is None  # a second write to it was not proposed by an ask


def test_writes_nobody_asked_about_and_other_methods_are_not_proposals() -> None:
    p = ProposedEdits()
    assert p.take(WRITE, write()) is None
    p.asked(edit_permission())
    assert p.take(WRITE, write("/etc/passwd")) is None
    assert p.take("fs/read_text_file", {"sessionId": "ses_1", "path": PATH}) is None
    assert p.take("terminal/create", {"sessionId": "ses_1", "command": "sh"}) is None
    p.asked(edit_permission("/w/other.txt", kind="execute"))
    assert p.take(WRITE, write("/w/other.txt")) is None


def test_a_flood_of_asks_is_bounded() -> None:
    p = ProposedEdits()
    for i in range(1000):
        p.asked(edit_permission(f"/w/{i}.txt"))
    assert p.take(WRITE, write("/w/0.txt")) is None
    assert p.take(WRITE, write("/w/999.txt")) == "/w/999.txt"
