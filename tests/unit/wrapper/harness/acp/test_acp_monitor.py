"""`AcpMonitor`, the pure decisions about ACP frames: joins, refusals, trips, follow-ups, observe modes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from engine import events as ev
from engine.errors import ConfigError
from wrapper.harness.acp.calls import CallState
from wrapper.harness.acp.monitor import AcpMonitor
from wrapper.items import ApprovalItem, EngineItem, ResultItem, StatusItem, TripItem, VerdictItem
from wrapper.mock.scenarios import LOOP_SENTENCE, ToolCallSpec
from wrapper.mock.tools import declared, fit_call
from wrapper.settings import AcpSettings, Settings, from_mapping

SAMPLES = Path(__file__).resolve().parents[5] / ".." / "shared" / "samples" / "acp"
OPTIONS = [
    {"optionId": "once", "kind": "allow_once", "name": "Allow once"},
    {"optionId": "always", "kind": "allow_always", "name": "Always allow"},
    {"optionId": "reject", "kind": "reject_once", "name": "Reject"},
]


def upd(**u: Any) -> dict[str, Any]:
    return {"sessionId": "s1", "update": u}


def fresh(**acp: Any) -> AcpMonitor:
    m = AcpMonitor(Settings(acp=AcpSettings(**acp)), agent_name="test")
    m.session_started("s1", "mock", False)
    m.prompt_sent("go")
    return m


def asked_call(m: AcpMonitor, n: int, command: str) -> Any:
    """opencode's shape: empty tool_call, the input in an update, then the permission request."""
    cid = f"c{n}"
    m.update(upd(sessionUpdate="tool_call", toolCallId=cid, title="bash", kind="execute", rawInput={"cwd": "/w"}))
    m.update(upd(sessionUpdate="tool_call_update", toolCallId=cid, rawInput={"command": command, "cwd": "/w"}))
    r = m.permission({"sessionId": "s1", "toolCall": {"toolCallId": cid, "title": command}, "options": OPTIONS})
    return cid, r


def finish(m: AcpMonitor, cid: str, text: str = "ok", status: str = "completed") -> Any:
    return m.update(
        upd(
            sessionUpdate="tool_call_update",
            toolCallId=cid,
            status=status,
            content=[{"type": "content", "content": {"type": "text", "text": text}}],
        )
    )


def test_a_denied_call_that_asks_is_refused_with_reject_once_and_the_reason() -> None:
    m = fresh()
    for n in range(4):
        cid, r = asked_call(m, n, "cat" + " " * (1 + n % 2) + "notes.txt; echo ran >> calls.log")
        assert r.question is not None and not r.question.from_breaker, "the agent's own ask goes to the person"
        assert "Allow once" in r.question.reason
        m.answered({"options": OPTIONS}, r.question, "allow-once")
        finish(m, cid)
    cid, r = asked_call(m, 4, "cat notes.txt; echo ran >> calls.log")
    assert r.question is None
    assert r.reply == {"outcome": {"outcome": "selected", "optionId": "reject"}}
    v = next(i for i in r.items if isinstance(i, VerdictItem))
    assert v.verdict.kind == "deny" and v.args == {"command": "cat notes.txt; echo ran >> calls.log"}
    assert any(isinstance(i, StatusItem) and "reject_once" in i.text for i in r.items)
    # ACP carries no text with a rejection: the turn is cancelled and the model told why, with the result
    assert r.cancel and r.followup is not None
    assert "REPEAT_TOOL_BLOCKED" in r.followup and "Previous tool result:\nok" in r.followup
    cid, r = asked_call(m, 5, "cat notes.txt; echo ran >> calls.log")
    assert r.reply == {"outcome": {"outcome": "selected", "optionId": "reject"}}
    assert not r.cancel and r.followup is None, "one follow-up per turn"


def test_go_on_after_a_refusal_is_not_a_fresh_window_but_the_reset_key_is() -> None:
    m = fresh()
    for n in range(5):
        cid, r = asked_call(m, n, "cat notes.txt; echo ran >> calls.log")
        if r.question is not None:
            m.answered({"options": OPTIONS}, r.question, "allow-once")
            finish(m, cid)
    assert r.followup is not None
    m.prompt_done({"stopReason": "cancelled"})
    m.prompt_sent(m.followup_text(r.followup), followup=True)
    m.prompt_done({"stopReason": "end_turn"})
    m.prompt_sent("go on")  # the person's next message: the repeat is still refused before it runs
    _, r = asked_call(m, 6, "cat  notes.txt; echo ran >> calls.log")
    assert r.question is None and r.reply == {"outcome": {"outcome": "selected", "optionId": "reject"}}
    m.prompt_done({"stopReason": "end_turn"})
    m.breaker.reset_windows()  # the explicit reset key still gives a fresh window
    m.prompt_sent("go on")
    _, r = asked_call(m, 7, "cat notes.txt; echo ran >> calls.log")
    assert r.question is not None


def test_a_turn_without_refusal_still_resets_on_the_next_message() -> None:
    m = fresh()
    for n in range(4):
        cid, r = asked_call(m, n, "cat notes.txt; echo ran >> calls.log")
        assert r.question is not None
        m.answered({"options": OPTIONS}, r.question, "allow-once")
        finish(m, cid)
    m.prompt_done({"stopReason": "end_turn"})
    m.prompt_sent("now read it again")
    _, r = asked_call(m, 4, "cat notes.txt; echo ran >> calls.log")
    assert r.question is not None, "a person's new task gives a new window"


def test_a_follow_up_quotes_the_task_where_the_agent_drops_a_cancelled_prompt() -> None:
    m = fresh()
    m.prompt_done({"stopReason": "end_turn"})
    m.prompt_sent("Fix calc.py so that check.py passes.")
    assert m.followup_text("[breaker-tui] stop.") == "[breaker-tui] stop."
    m.quotes_prompt = True  # Gemini's preset
    text = m.followup_text("[breaker-tui] stop.")
    assert text.startswith("[breaker-tui] stop.") and text.endswith("Fix calc.py so that check.py passes.")


def test_allow_turn_never_answers_another_permission_and_agent_asks_allow_skips_the_person() -> None:
    m = fresh()
    _, r = asked_call(m, 0, "make test")
    assert r.question is not None
    m.answered({"options": OPTIONS}, r.question, "allow-turn")
    _, r2 = asked_call(m, 1, "make lint")
    assert r2.question is not None, "another permission gets its own decision (allow-turn covers local repeats only)"
    m2 = fresh(agent_asks="allow")
    _, r3 = asked_call(m2, 0, "make test")
    assert r3.question is None and r3.reply is not None and r3.reply["outcome"]["optionId"] == "once"


def unasked_read(m: AcpMonitor, n: int) -> Any:
    """Claude's shape for a Read: no permission request, input in an update, then completed."""
    cid = f"r{n}"
    m.update(upd(sessionUpdate="tool_call", toolCallId=cid, kind="read", title="Read", rawInput={}))
    m.update(upd(sessionUpdate="tool_call_update", toolCallId=cid, rawInput={"file_path": "/w/notes.txt"}))
    return finish(m, cid, "The release is on Friday.")


def test_unasked_repeats_cancel_the_turn_with_one_followup_then_only_cancel() -> None:
    m = fresh()
    for n in range(4):
        r = unasked_read(m, n)
        assert not r.cancel
    r = unasked_read(m, 4)
    assert r.cancel and r.followup is not None and "exact:read:" in r.followup
    r_during = unasked_read(m, 5)  # the cancel is on its way: no second action
    assert not r_during.cancel
    items = m.prompt_done({"stopReason": "cancelled"})
    assert not any(isinstance(i, EngineItem) and isinstance(i.event, ev.TurnEnd) for i in items), "turn continues"
    m.prompt_sent(r.followup, followup=True)
    r2 = unasked_read(m, 6)
    assert r2.cancel and r2.followup is None, "the second trip in a turn only cancels"
    assert any(isinstance(i, StatusItem) and "over to you" in i.text for i in r2.items)
    end = m.prompt_done({"stopReason": "cancelled"})
    assert [i.event.reason for i in end if isinstance(i, EngineItem) and isinstance(i.event, ev.TurnEnd)] == [
        "cancelled"
    ]
    assert m.exit_status() == 1


def test_a_new_person_prompt_resets_the_per_turn_trip_budget() -> None:
    m = fresh()
    for n in range(5):
        unasked_read(m, n)
    m.prompt_done({"stopReason": "cancelled"})
    m.pending_followup = False
    m.end_turn()
    m.prompt_sent("something else")
    assert m.tool_trips == 0


def loop_reasoning(m: AcpMonitor) -> list[Any]:
    out = []
    for i in range(40):
        out.append(
            m.update(
                upd(sessionUpdate="agent_thought_chunk", content={"type": "text", "text": LOOP_SENTENCE.format(i=i)})
            )
        )
    return out


def test_a_reasoning_trip_cancels_and_reprompts_once_then_only_cancels() -> None:
    m = fresh()
    rs = [r for r in loop_reasoning(m) if r.cancel]
    assert len(rs) == 1 and rs[0].followup is not None and "without re-deliberating" in rs[0].followup
    trip = next(i for i in rs[0].items if isinstance(i, TripItem))
    assert "follow-up" in trip.sent
    m.prompt_done({"stopReason": "cancelled"})
    m.prompt_sent(rs[0].followup, followup=True)
    rs2 = [r for r in loop_reasoning(m) if r.cancel]
    assert len(rs2) == 1 and rs2[0].followup is None


@pytest.mark.parametrize("key", ["reasoning", "unasked"])
def test_observe_modes_only_show(key: str) -> None:
    m = fresh(**{key: "observe"})
    rs = loop_reasoning(m) if key == "reasoning" else [unasked_read(m, n) for n in range(6)]
    assert not any(r.cancel for r in rs)


def test_deny_observe_sends_a_denied_call_to_the_person() -> None:
    m = fresh(deny="observe")
    for n in range(4):
        cid, r = asked_call(m, n, "cat notes.txt; echo ran >> calls.log")
        m.answered({"options": OPTIONS}, r.question, "allow-once")
        finish(m, cid)
    _, r = asked_call(m, 4, "cat notes.txt; echo ran >> calls.log")
    assert r.question is not None and r.reply is None


def test_cancel_turn_answer_cancels_and_answers_cancelled() -> None:
    m = fresh()
    _, r = asked_call(m, 0, "rm -rf build")
    r2 = m.answered({"options": OPTIONS}, r.question, "cancel-turn")
    assert r2.cancel and r2.reply == {"outcome": {"outcome": "cancelled"}}
    assert any(isinstance(i, ApprovalItem) and i.answer == "cancel-turn" for i in r2.items)


@pytest.mark.parametrize(
    ("u", "expected"),
    [
        (
            {"kind": "execute", "rawInput": {"command": ["/bin/bash", "-lc", "ls -la"], "cwd": "/w"}},
            ("bash", {"command": "ls -la"}),
        ),
        ({"kind": "execute", "rawInput": {"command": ["git", "log", "-n 3"]}}, ("bash", {"command": "git log '-n 3'"})),
        ({"kind": "execute", "title": "npm test"}, ("bash", {"command": "npm test"})),
        (
            {"kind": "read", "rawInput": {"filePath": "/w/a.txt", "offset": 3}},
            ("read", {"path": "/w/a.txt", "offset": 3}),
        ),
        (
            {"kind": "fetch", "rawInput": {"url": "http://127.0.0.1:8000/x"}},
            ("web_fetch", {"url": "http://127.0.0.1:8000/x"}),
        ),
        (
            {"kind": "edit", "rawInput": {"file_path": "/w/a.txt", "content": "x"}},
            ("write", {"path": "/w/a.txt", "content": "x"}),
        ),
    ],
)
def test_each_agents_call_shape_becomes_the_engines_call(u: dict[str, Any], expected: tuple[str, Any]) -> None:
    c = CallState("x")
    c.merge(u)
    assert c.engine_call() == expected


def test_a_plan_update_ends_the_models_request_as_a_call_does() -> None:
    m = fresh()
    thought = {"type": "text", "text": "I will plan this first."}
    steps = []
    for u in (
        upd(sessionUpdate="agent_thought_chunk", content=thought),
        upd(sessionUpdate="plan", entries=[{"content": "edit", "status": "pending", "priority": "medium"}]),
        upd(sessionUpdate="agent_thought_chunk", content={"type": "text", "text": "Now the edit."}),
    ):
        steps += [i.event for i in m.update(u).items if isinstance(i, EngineItem) and isinstance(i.event, ev.StepStart)]
    assert len(steps) == 1, "the thought after the plan starts a step of its own"


def _edit(title: str, new: str, raw: dict[str, Any] | None = None, path: str = "/w/notes.txt") -> tuple[str, Any]:
    """An edit as Gemini (a title and its diff) or Codex (its call's numbers and its diff) reports it."""
    c = CallState("x")
    diff = {"type": "diff", "path": path, "oldText": "a\n", "newText": new}
    c.merge({"kind": "edit", "title": title, "content": [diff], **({"rawInput": raw} if raw else {})})
    return c.engine_call()


def test_an_edit_reported_by_a_title_and_a_diff_is_judged_by_what_it_changes() -> None:
    # Gemini's title is the same for every edit of a file: two different edits are two calls
    first, second = _edit("Writing to notes.txt", "b\n"), _edit("Writing to notes.txt", "c\n")
    assert first != second
    assert first == _edit("Writing to notes.txt", "b\n")
    assert first[1]["path"] == "/w/notes.txt"
    assert _edit("Writing to notes.txt", "b\n", path="/w/other.txt") != first


def test_the_agents_numbering_of_calls_is_not_part_of_what_a_call_does() -> None:
    # Codex numbers each call and turn in its arguments: the same patch twice is one call made twice
    a = _edit("Edit /w/notes.txt", "b\n", {"call_id": "call_1", "turn_id": "7"})
    b = _edit("Edit /w/notes.txt", "b\n", {"call_id": "call_2", "turn_id": "8"})
    assert a == b and "call_id" not in a[1]
    assert a != _edit("Edit /w/notes.txt", "c\n", {"call_id": "call_3", "turn_id": "8"})
    c = CallState("y")
    c.merge({"kind": "other", "name": "lookup", "rawInput": {"q": "x", "call_id": "call_4"}})
    assert c.engine_call() == ("lookup", {"q": "x"})


@pytest.mark.parametrize("agent", ["opencode", "claude", "codex", "gemini"])
def test_captured_sessions_feed_without_errors(agent: str) -> None:
    path = SAMPLES / f"{agent}.frames.jsonl"
    if not path.exists():
        pytest.skip(f"{path} is missing (../shared beside the checkout)")
    m = AcpMonitor(Settings(), agent_name=agent)
    m.session_started("s", "", False)
    m.prompt_sent("x")
    n = 0
    for line in path.read_text().splitlines():
        msg = json.loads(line)["msg"]
        if msg.get("method") == "session/update":
            m.update(msg["params"])
        elif msg.get("method") == "session/request_permission":
            r = m.permission(msg["params"])
            n += 1
            assert r.reply is not None or r.question is not None
    assert n > 0


@pytest.mark.parametrize("junk", [{}, {"update": None}, {"update": {"sessionUpdate": "tool_call"}}, {"update": []}])
def test_bad_frames_never_raise(junk: dict[str, Any]) -> None:
    m = fresh()
    m.update(junk)
    m.permission(junk)


def test_scripted_calls_fit_each_agents_declared_tools() -> None:
    claude = {"tools": [{"name": "Read", "input_schema": {"properties": {"file_path": {}}, "required": ["file_path"]}}]}
    assert fit_call(ToolCallSpec("read", {"path": "notes.txt"}), declared(claude), "/w") == ToolCallSpec(
        "Read", {"file_path": "/w/notes.txt"}
    )
    opencode = {
        "tools": [
            {
                "type": "function",
                "function": {
                    "name": "bash",
                    "parameters": {
                        "properties": {"command": {}, "description": {}},
                        "required": ["command", "description"],
                    },
                },
            }
        ]
    }
    got = fit_call(ToolCallSpec("bash", {"command": "ls", "timeoutMs": 5}), declared(opencode))
    assert got == ToolCallSpec("bash", {"command": "ls", "description": "Run a command"})


def test_acp_config_keys_validate_and_name_the_key() -> None:
    s = from_mapping({"acp": {"reasoning": "observe", "agent_asks": "allow"}}, "t.toml")
    assert s.acp.reasoning == "observe" and s.acp.agent_asks == "allow"
    with pytest.raises(ConfigError, match="acp"):
        from_mapping({"acp": {"reasoning": "sometimes"}}, "t.toml")


def test_codex_structured_raw_output_is_shown_and_given_to_the_engine_with_its_exit_code() -> None:
    m = fresh()
    m.update(upd(sessionUpdate="tool_call", toolCallId="x1", title="python3 check.py", kind="execute"))
    r = m.permission(
        {
            "sessionId": "s1",
            "toolCall": {"toolCallId": "x1", "rawInput": {"command": ["bash", "-lc", "python3 check.py"]}},
            "options": OPTIONS,
        }
    )
    assert r.question is not None
    m.answered({"options": OPTIONS}, r.question, "allow-once")
    raw = {"aggregated_output": "FAIL: 1 != 2\n", "stdout": "", "exit_code": 2, "duration": {"secs": 0}}
    r = m.update(upd(sessionUpdate="tool_call_update", toolCallId="x1", status="completed", rawOutput=raw))
    res = [i for i in r.items if isinstance(i, ResultItem)]
    assert res and res[0].text == "FAIL: 1 != 2\n" and res[0].is_error, res


def test_the_agents_own_question_shows_the_calls_it_repeats() -> None:
    """opencode asks before every command: the question about the third copy shows the two before it (the
    person compares them), and the first copy's question has none.
    """
    m = fresh()
    questions = []
    for n, command in enumerate(("cat  notes.txt", "ls", "cat 'notes.txt'", "cat notes.txt")):
        cid, r = asked_call(m, n, command)
        assert r.question is not None and not r.question.from_breaker
        questions.append(r.question)
        m.answered({"options": OPTIONS}, r.question, "allow-once")
        finish(m, cid)
    assert questions[0].earlier == () and questions[1].earlier == ()
    assert [e["command"] for e in questions[3].earlier] == ["cat  notes.txt", "cat 'notes.txt'"]
