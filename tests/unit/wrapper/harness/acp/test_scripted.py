"""The scripted ACP feed the screen's tests get from the registry: frames through the real monitor, choices accepted."""

from __future__ import annotations

from tests.tui.acp_scripts import MODE
from wrapper.harness.registry import scripted_agent
from wrapper.items import CallItem
from wrapper.settings import Settings


def _call(i: int) -> dict[str, object]:
    return {
        "update": {
            "sessionUpdate": "tool_call",
            "toolCallId": f"t{i}",
            "title": "ls",
            "kind": "execute",
            "status": "pending",
            "rawInput": {"command": "ls"},
        }
    }


def test_frames_play_through_the_monitor_and_a_call_is_shown() -> None:
    feed = scripted_agent(Settings(), "claude")
    assert feed.capabilities.prompt  # an ACP agent takes prompts
    assert feed.play({"new": {"sessionId": "s-1", "configOptions": [MODE]}}).items
    feed.play({"prompt": "list the files"})
    items = feed.play(_call(1)).items
    assert any(isinstance(i, CallItem) for i in items)
    assert feed.monitor.info.turn == 1
    assert feed.play({"unknown": 1}).items == []


def test_a_choice_the_agent_offered_is_switched_and_an_unknown_one_is_not() -> None:
    feed = scripted_agent(Settings(), "claude")
    feed.play({"new": {"sessionId": "s-1", "configOptions": [MODE]}})
    chosen = feed.choose("mode", "plan")
    assert chosen is not None
    assert (chosen.method, chosen.name) == ("session/set_config_option", "Mode")
    assert feed.choose("no-such-setting", "x") is None
