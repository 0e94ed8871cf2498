"""What the ACP monitor hands the screen: full output, diffs, plans, commands and choices, from real captures.

The captures in `../shared/samples/acp` are four real agents' frames; each test feeds them through an
`AcpMonitor` as the live session does and checks the items a person would read.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from wrapper.harness.acp.monitor import AcpMonitor
from wrapper.harness.acp.view import choices_of, make_diff, output_of, set_request
from wrapper.items import CallItem, ChoicesItem, CommandsItem, Item, PlanItem, ResultItem, StatusItem
from wrapper.settings import Settings

SAMPLES = Path(__file__).resolve().parents[5] / ".." / "shared" / "samples" / "acp"


def _play(agent: str) -> tuple[AcpMonitor, list[Item]]:
    path = SAMPLES / f"{agent}.frames.jsonl"
    if not path.exists():
        pytest.skip(f"{path} is missing (the shared samples sit beside the checkout)")
    acp = AcpMonitor(Settings(), agent_name=agent)
    items: list[Item] = []
    asked: dict[Any, str] = {}
    for line in path.read_text().splitlines():
        f = json.loads(line)
        msg = f["msg"]
        if f["dir"] == "c2a":
            if "id" in msg and "method" in msg:
                asked[msg["id"]] = msg["method"]
            if msg.get("method") == "session/prompt":
                items += acp.prompt_sent("x")
            continue
        method = msg.get("method")
        if method == "session/update":
            items += acp.update(msg["params"]).items
        elif method == "session/request_permission":
            items += acp.permission(msg["params"]).items
        elif asked.get(msg.get("id")) == "session/new" and isinstance(msg.get("result"), dict):
            items += acp.session_started(msg["result"].get("sessionId", ""), "", False)
            items += acp.shown.opened(msg["result"])
        elif asked.get(msg.get("id")) == "session/prompt":
            items += acp.prompt_done(msg.get("result"))
    return acp, items


def _calls(items: list[Item]) -> dict[str, CallItem]:
    """The last item of each call id: what the list shows once the call settled."""
    out: dict[str, CallItem] = {}
    for i in items:
        if isinstance(i, CallItem):
            out[i.call_id] = i
    return out


def test_codex_output_only_in_raw_output_reaches_the_screen_and_the_engine() -> None:
    _, items = _play("codex")
    calls = _calls(items)
    shell = [c for c in calls.values() if c.kind == "execute" and c.output]  # the one it ran (the other was asked)
    assert shell and shell[0].output == "hi\n" and shell[0].exit_code == 0, list(calls.values())[:3]
    results = [i for i in items if isinstance(i, ResultItem) and i.call_id == shell[0].call_id]
    assert results and results[0].text == "hi\n"  # the engine's result-aware rules see the real output


def test_claude_diff_of_a_new_file_and_its_console_output_unfenced() -> None:
    _, items = _play("claude")
    calls = _calls(items)
    edits = [c for c in calls.values() if c.diffs]
    assert edits, "Claude's Write sends its diff"
    d = edits[0].diffs[0]
    assert d.created and d.added == 1 and d.removed == 0
    assert "+hello from the mock model" in d.text and d.text.startswith("--- /dev/null")
    outputs = [c.output for c in calls.values() if c.kind == "execute" and c.output]
    assert outputs and not any(o.startswith("```") for o in outputs), outputs


def test_opencode_diff_only_in_the_permission_request() -> None:
    _, items = _play("opencode")
    edits = [c for c in _calls(items).values() if c.diffs]
    assert edits and edits[0].diffs[0].added == 1


def test_commands_and_choices_from_every_agent() -> None:
    for agent, command, category in (
        ("opencode", "init", "model"),
        ("claude", None, "mode"),
        ("codex", "review", "model"),
        ("gemini", None, "mode"),
    ):
        _, items = _play(agent)
        cmds = [i for i in items if isinstance(i, CommandsItem)]
        assert cmds and cmds[-1].commands, agent
        if command:
            assert command in [c.name for c in cmds[-1].commands], agent
        choices = [i for i in items if isinstance(i, ChoicesItem)]
        assert choices and category in [c.category for c in choices[-1].choices], agent
    assert "auto" in AcpMonitor(Settings(), agent_name="claude").shown.silent


def test_a_plan_replaces_the_last_and_bad_entries_are_dropped() -> None:
    acp = AcpMonitor(Settings(), agent_name="claude")
    first = acp.update({"update": {"sessionUpdate": "plan", "entries": [{"content": "a"}, {"content": 3}, "x"]}})
    assert first.items == [PlanItem("main", (first.items[0].entries[0],))]  # type: ignore[union-attr]
    entries = [{"content": "a", "status": "completed"}, {"content": "b", "status": "in_progress", "priority": "high"}]
    second = acp.update({"update": {"sessionUpdate": "plan", "entries": entries}})
    plan = second.items[0]
    assert isinstance(plan, PlanItem) and [e.status for e in plan.entries] == ["completed", "in_progress"]
    assert acp.shown.plan is plan


def test_output_forms_and_hostile_values() -> None:
    assert output_of({"rawOutput": {"output": "a\nb", "metadata": {"exit": 2}}}) == ("a\nb", 2)
    assert output_of({"rawOutput": {"formatted_output": "f", "stdout": "s", "exit_code": 0}}) == ("f", 0)
    fenced = {"content": [{"type": "content", "content": {"type": "text", "text": "```console\nhi\n```"}}]}
    assert output_of(fenced) == ("hi", None)
    assert output_of({"rawOutput": {"exit_code": True}}) is None  # a bool is not an exit code; no text: none
    assert output_of({"content": "junk", "rawOutput": 5}) is None
    big = make_diff("x.txt", "a\n" * 5000, "b\n")
    assert "too large" in big.text


def test_choices_prefer_config_options_and_pick_the_request() -> None:
    result = {
        "configOptions": [
            {
                "id": "mode",
                "category": "mode",
                "type": "select",
                "currentValue": "default",
                "options": [{"value": "default", "name": "Default"}, {"value": "auto", "name": "Auto"}],
            }
        ],
        "modes": {"currentModeId": "default", "availableModes": [{"id": "default"}]},
        "models": {"currentModelId": "m1", "availableModels": [{"modelId": "m1"}, {"modelId": "m2"}]},
    }
    ch = choices_of(result)
    assert [(c.category, c.via) for c in ch] == [("mode", "config"), ("model", "model")]
    assert set_request("s", ch[0], "auto") == (
        "session/set_config_option",
        {"sessionId": "s", "configId": "mode", "value": "auto"},
    )
    assert set_request("s", ch[1], "m2") == ("session/set_model", {"sessionId": "s", "modelId": "m2"})


def test_a_todo_tool_call_is_the_plan_when_the_agent_sends_none() -> None:
    acp = AcpMonitor(Settings(), agent_name="opencode")
    todos = [{"content": "read", "status": "completed", "priority": "high"}, {"content": "edit", "status": "pending"}]
    acp.update({"update": {"sessionUpdate": "tool_call", "toolCallId": "t1", "title": "todowrite", "kind": "other"}})
    done = acp.update(
        {
            "update": {
                "sessionUpdate": "tool_call_update",
                "toolCallId": "t1",
                "status": "completed",
                "rawInput": {"todos": todos},
            }
        }
    )
    plans = [i for i in done.items if isinstance(i, PlanItem)]
    assert plans and [e.content for e in plans[0].entries] == ["read", "edit"]
    acp.update({"update": {"sessionUpdate": "plan", "entries": [{"content": "own"}]}})
    again = acp.update(
        {
            "update": {
                "sessionUpdate": "tool_call_update",
                "toolCallId": "t1",
                "status": "completed",
                "rawInput": {"todos": todos},
            }
        }
    )
    assert not [i for i in again.items if isinstance(i, PlanItem)], "an agent's own plan wins"


def test_the_preset_mode_and_a_newer_update_beat_the_stale_session_answer() -> None:
    acp = AcpMonitor(Settings(), agent_name="claude")
    opt = {
        "id": "mode",
        "category": "mode",
        "type": "select",
        "currentValue": "auto",
        "options": [{"value": "default"}, {"value": "auto"}],
    }
    acp.update(
        {"update": {"sessionUpdate": "config_option_update", "configOptions": [{**opt, "currentValue": "plan"}]}}
    )
    items = acp.shown.opened({"configOptions": [opt]})
    assert isinstance(items[0], ChoicesItem) and items[0].choices[0].current == "plan"
    items = acp.shown.opened({"configOptions": [opt]}, mode="default")
    assert isinstance(items[0], ChoicesItem) and items[0].choices[0].current == "default"


def test_a_mode_switch_is_said_once_by_its_name() -> None:
    """Claude Code reports a switch (`current_mode_update`, its id) as it accepts the request, which the session
    said too: `claude mode: plan` then `claude mode: Plan`. The same mode again is not news.
    """
    acp = AcpMonitor(Settings(), agent_name="claude")
    opt = {
        "id": "mode",
        "category": "mode",
        "type": "select",
        "currentValue": "default",
        "options": [{"value": "default", "name": "Default"}, {"value": "plan", "name": "Plan"}],
    }
    acp.shown.opened({"configOptions": [opt]})

    def said(mode: str) -> list[str]:
        r = acp.update({"update": {"sessionUpdate": "current_mode_update", "currentModeId": mode}})
        return [i.text for i in r.items if isinstance(i, StatusItem)]

    assert said("plan") == ["claude mode: Plan"]
    assert said("plan") == [], "the echo of the mode it is in"
    assert acp.shown.accepted("session/set_config_option", {"configId": "mode", "value": "plan"}, {}) == [], (
        "the request's answer after the agent's report changes nothing: the session says nothing more"
    )
