"""Scripted ACP frames for Pilot tests and snapshots: what Claude Code sends for a plan, an edit, a command."""

from __future__ import annotations

from typing import Any

CHECKLIST = "".join(f"checklist item {i}: ok\n" for i in range(1, 13)) + "checklist: 12 items, 1 note\n"
MODE = {
    "id": "mode",
    "name": "Mode",
    "category": "mode",
    "type": "select",
    "currentValue": "default",
    "options": [
        {"value": "default", "name": "Default", "description": "asks before edits and commands"},
        {"value": "plan", "name": "Plan", "description": "plans, runs nothing"},
        {"value": "auto", "name": "Auto", "description": "runs everything without asking"},
    ],
}
MODEL = {
    "id": "model",
    "name": "Model",
    "category": "model",
    "type": "select",
    "currentValue": "mock-model",
    "options": [{"value": "mock-model", "name": "Mock"}, {"value": "mock-large", "name": "Mock large"}],
}
COMMANDS = [
    {"name": "review", "description": "review the current changes", "input": None},
    {"name": "security-review", "description": "look for security problems", "input": None},
    {"name": "init", "description": "write an AGENTS.md", "input": {"hint": "what to focus on"}},
]


def plan(done: int) -> dict[str, Any]:
    steps = ["Read notes.txt", "Move the release to Monday", "Show the release checklist"]
    entries = [
        {
            "content": s,
            "priority": "high" if i == 0 else "medium",
            "status": "completed" if i < done else ("in_progress" if i == done else "pending"),
        }
        for i, s in enumerate(steps)
    ]
    return {"update": {"sessionUpdate": "plan", "entries": entries}}


def edit() -> list[dict[str, Any]]:
    diff = {
        "type": "diff",
        "path": "/work/notes.txt",
        "oldText": "The release is on Friday.\nTests must pass first.\n",
        "newText": "The release is on Monday.\nTests must pass first.\n",
    }
    return [
        {"update": {"sessionUpdate": "tool_call", "toolCallId": "t-edit", "title": "Edit", "kind": "edit",
                    "status": "pending", "rawInput": {}}},
        {"update": {"sessionUpdate": "tool_call_update", "toolCallId": "t-edit", "title": "Edit notes.txt",
                    "content": [diff], "rawInput": {"file_path": "/work/notes.txt"}}},
        {"update": {"sessionUpdate": "tool_call_update", "toolCallId": "t-edit", "status": "completed"}},
    ]  # fmt: skip


def command() -> list[dict[str, Any]]:
    return [
        {"update": {"sessionUpdate": "tool_call", "toolCallId": "t-run", "title": "Terminal", "kind": "execute",
                    "status": "pending", "rawInput": {}}},
        {"update": {"sessionUpdate": "tool_call_update", "toolCallId": "t-run", "title": "./checklist.sh",
                    "rawInput": {"command": "./checklist.sh"}}},
        {"update": {"sessionUpdate": "tool_call_update", "toolCallId": "t-run", "status": "completed",
                    "rawOutput": {"formatted_output": CHECKLIST, "exit_code": 0}}},
    ]  # fmt: skip


def session(with_plan: bool = True) -> list[dict[str, Any]]:
    """A session: its settings, its commands, a prompt, a plan, an edit, a 13-line command, the plan done."""
    frames: list[dict[str, Any]] = [
        {"new": {"sessionId": "acp-session-0000-frontend", "configOptions": [MODE, MODEL]}},
        {"update": {"sessionUpdate": "available_commands_update", "availableCommands": COMMANDS}},
        {"prompt": "Move the release to Monday."},
        {"update": {"sessionUpdate": "agent_thought_chunk", "content": {"type": "text", "text": "Plan first.\n"}}},
    ]
    if with_plan:
        frames.append(plan(1))
    frames += edit() + command()
    if with_plan:
        frames.append(plan(2))
    frames.append({"update": {"sessionUpdate": "agent_message_chunk",
                              "content": {"type": "text", "text": "The release is on Monday."}}})  # fmt: skip
    frames.append({"done": {"stopReason": "end_turn"}})
    return frames
