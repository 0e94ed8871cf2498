"""The mock fits a scenario's calls to the tools the agent declared: it never sends a tool the agent lacks."""

from __future__ import annotations

from typing import Any

import pytest

from wrapper.mock.scenarios import ToolCallSpec
from wrapper.mock.tools import declared, fit_call

# Codex 0.16 (codex-acp) declares these through the Responses API: a shell, no file reader.
CODEX = {
    "tools": [
        {
            "type": "function",
            "name": "exec_command",
            "parameters": {"type": "object", "properties": {"cmd": {"type": "string"}}, "required": ["cmd"]},
        },
        {"type": "function", "name": "update_plan", "parameters": {"type": "object", "properties": {"plan": {}}}},
        {"type": "function", "name": "view_image", "parameters": {"properties": {"path": {}}, "required": ["path"]}},
    ]
}
# An agent whose shell takes argv (Codex's older `shell` tool).
ARGV_SHELL = {
    "tools": [{"type": "function", "name": "shell", "parameters": {"properties": {"command": {"type": "array"}}}}]
}


@pytest.mark.parametrize(
    ("body", "want"),
    [
        (CODEX, ToolCallSpec("exec_command", {"cmd": "cat notes.txt"})),
        (ARGV_SHELL, ToolCallSpec("shell", {"command": ["bash", "-lc", "cat notes.txt"]})),
    ],
)
def test_a_read_goes_through_the_shell_when_the_agent_has_no_reader(body: dict[str, Any], want: ToolCallSpec) -> None:
    got = fit_call(ToolCallSpec("read", {"path": "notes.txt"}), declared(body), "/w")
    assert got == want
    assert got.name in declared(body)


def test_a_path_with_spaces_is_quoted_for_the_shell() -> None:
    got = fit_call(ToolCallSpec("read", {"path": "my notes.txt"}), declared(CODEX))
    assert got == ToolCallSpec("exec_command", {"cmd": "cat 'my notes.txt'"})


def test_an_agent_with_a_reader_still_gets_its_reader() -> None:
    claude = {"tools": [{"name": "Read", "input_schema": {"properties": {"file_path": {}}}}, {"name": "Bash"}]}
    got = fit_call(ToolCallSpec("read", {"path": "notes.txt"}), declared(claude), "/w")
    assert got == ToolCallSpec("Read", {"file_path": "/w/notes.txt"})
