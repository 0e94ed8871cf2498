"""The server's sessions as `watch` lists them: what the counts count."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from wrapper.hooks.sessions import Sessions
from wrapper.settings import Settings


@pytest.fixture(autouse=True)
def _state(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BREAKER_TUI_STATE_DIR", str(tmp_path / "state"))


PAYLOADS: dict[str, tuple[str, str, str, dict[str, object]]] = {  # a shell call and its result, each agent's way
    "claude": ("PreToolUse", "PostToolUse", "Bash", {"tool_response": {"stdout": "ok", "stderr": ""}}),
    "codex": ("PreToolUse", "PostToolUse", "Bash", {"tool_response": "ok"}),
    "gemini": ("BeforeTool", "AfterTool", "run_shell_command", {"tool_response": {"llmContent": "ok"}}),
}


def run(sessions: Sessions, agent: str, n: int) -> str:
    """One tool call of session `s`; its result reported when it ran, as the agent does."""
    before, after, tool, result = PAYLOADS[agent]
    p = {"session_id": "s", "tool_name": tool, "tool_input": {"command": "make test"}, "tool_use_id": f"t{n}"}
    kind = str(sessions.handle(agent, json.dumps({**p, "hook_event_name": before}).encode())["kind"])
    if kind == "allow":
        assert sessions.handle(agent, json.dumps({**p, **result, "hook_event_name": after}).encode()) == {
            "kind": "recorded"
        }
    return kind


@pytest.mark.parametrize("agent", ["claude", "codex", "gemini"])
def test_the_listed_calls_are_the_tool_calls_results_not_counted_and_a_new_server_counts_on(agent: str) -> None:
    first = Sessions(Settings())
    kinds = [run(first, agent, n) for n in range(6)]
    assert kinds == ["allow"] * 4 + ["deny"] * 2
    (row,) = first.listing()
    assert (row["calls"], row["denials"]) == (6, 2)
    first.close()
    second = Sessions(Settings())  # a new server: the session is resumed from its recording
    assert run(second, agent, 6) == "deny"
    (row,) = second.listing()
    assert (row["calls"], row["denials"]) == (7, 3)
