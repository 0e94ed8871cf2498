"""The mock fits a scenario's calls to the tools the agent declared: it never sends a tool the agent lacks."""

from __future__ import annotations

from pathlib import Path
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


# Codex 0.16 with the mock's catalog entry: its patch tool is freeform (raw text), declared as `custom`.
CODEX_PATCH = {"tools": [*CODEX["tools"], {"type": "custom", "name": "apply_patch", "format": {"type": "grammar"}}]}


def test_an_edit_reaches_codex_as_a_patch_of_the_lines_it_changes(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("title\nThe release is on Friday. Tests must pass first.\nend\n")
    edit = ToolCallSpec("edit", {"path": "notes.txt", "old_string": "on Friday", "new_string": "on Monday"})
    got = fit_call(edit, declared(CODEX_PATCH), str(tmp_path))
    assert got == ToolCallSpec(
        "apply_patch",
        {
            "input": "*** Begin Patch\n*** Update File: notes.txt\n@@\n title\n"
            "-The release is on Friday. Tests must pass first.\n+The release is on Monday. Tests must pass first.\n"
            "*** End Patch\n"
        },
    )


def test_a_write_reaches_codex_as_a_patch_that_adds_the_file(tmp_path: Path) -> None:
    got = fit_call(ToolCallSpec("write", {"file_path": "calc.py", "content": "a = 1\nb = 2\n"}), declared(CODEX_PATCH))
    assert got.args["input"] == "*** Begin Patch\n*** Add File: calc.py\n+a = 1\n+b = 2\n*** End Patch\n"


def test_a_todo_list_reaches_codex_as_its_plan() -> None:
    todos = [{"content": "Read", "status": "completed"}, {"content": "Edit", "status": "in_progress"}]
    got = fit_call(ToolCallSpec("todowrite", {"todos": todos}), declared(CODEX_PATCH))
    assert got == ToolCallSpec(
        "update_plan", {"plan": [{"step": "Read", "status": "completed"}, {"step": "Edit", "status": "in_progress"}]}
    )


def test_an_agent_with_an_edit_tool_keeps_it_even_beside_a_patch_tool(tmp_path: Path) -> None:
    (tmp_path / "n.txt").write_text("x\n")
    tools = {**declared(CODEX_PATCH), "edit": {"properties": {"path": {}, "old_string": {}, "new_string": {}}}}
    got = fit_call(ToolCallSpec("edit", {"path": "n.txt", "old_string": "x", "new_string": "y"}), tools, str(tmp_path))
    assert got.name == "edit"
