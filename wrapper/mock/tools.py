"""Fit a scenario's tool calls to the tools the agent declared in its request.

Scenarios are written once (`bash` with a `command`, `read` with a `path`); each agent names its tools
and their arguments differently (opencode `bash`/`read` with `filePath`, Claude Code `Bash`/`Read` with
`file_path`, dsh `bash`). The mock picks the declared tool of the same family and renames the arguments
to its schema, so the same scenario drives every agent.
"""

from __future__ import annotations

import difflib
import os
import shlex
from dataclasses import replace
from pathlib import Path
from typing import Any

from wrapper.mock.scenarios import Reply, ToolCallSpec

FOLLOWUP_MARKER = "without re-deliberating"  # the monitor's reasoning follow-up: answer with thinking off
FAMILIES = {
    "bash": ("bash", "Bash", "shell", "run_shell_command", "exec_command"),
    "read": ("read", "Read", "read_file"),
    "edit": ("edit", "Edit", "replace"),
    "write": ("write", "Write", "write_file"),
    "todowrite": ("todowrite", "TodoWrite", "update_plan", "write_todos"),
}
# Claude Code defers TodoWrite (its tool list names ToolSearch instead) but turns a streamed TodoWrite call
# into a `plan` update before it runs: an agent that names its tools in capitals gets TodoWrite anyway.
UNDECLARED = {"todowrite": "TodoWrite"}
CAMEL = {"old_string": "oldString", "new_string": "newString"}
PATH_KEYS = ("filePath", "file_path", "absolute_path", "path")
# what a required argument the scenarios do not write says (Gemini CLI's edit requires an `instruction`)
FILLERS = {"description": "Run a command", "instruction": "Make the edit the task asks for."}


def declared(body: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Tool name -> its JSON schema, from an OpenAI chat or an Anthropic Messages request."""
    out: dict[str, dict[str, Any]] = {}
    for t in body.get("tools") or []:
        if not isinstance(t, dict):
            continue
        for fd in t.get("functionDeclarations") or []:  # Gemini
            if isinstance(fd, dict) and isinstance(fd.get("name"), str):
                out[fd["name"]] = fd.get("parametersJsonSchema") or fd.get("parameters") or {}
        fn = t.get("function") if isinstance(t.get("function"), dict) else None
        if fn is not None and isinstance(fn.get("name"), str):
            out[fn["name"]] = fn.get("parameters") or {}
        elif t.get("type") == "custom" and isinstance(t.get("name"), str):  # a Responses freeform tool
            out[t["name"]] = {CUSTOM: True}
        elif isinstance(t.get("name"), str):  # Anthropic (`input_schema`), OpenAI Responses (`parameters`)
            out[t["name"]] = t.get("input_schema") or t.get("parameters") or {}
    return out


CUSTOM = "x-freeform"  # marks a declared tool that takes raw text (`input`), not JSON arguments
PATCH_TOOL = "apply_patch"  # Codex edits and writes files with a patch only (a freeform tool)


def _patch(call: ToolCallSpec, workspace: str) -> ToolCallSpec | None:
    """An edit or a write as Codex's `apply_patch` input (its own patch format), or None when it cannot be one.

    An edit becomes hunks of the changed lines, each after one line of context, from the file as it is
    now: the scenario names a string to replace, a patch names whole lines.
    """
    rel = str(call.args.get("path") or call.args.get("file_path") or "")
    if not rel:
        return None
    if call.name == "write":
        body = "".join(f"+{line}\n" for line in str(call.args.get("content", "")).splitlines())
        return ToolCallSpec(PATCH_TOOL, {"input": f"*** Begin Patch\n*** Add File: {rel}\n{body}*** End Patch\n"})
    try:
        text = (Path(workspace) / rel).read_text()
    except OSError:
        return None
    old_s, new_s = str(call.args.get("old_string", "")), str(call.args.get("new_string", ""))
    if not old_s or old_s not in text:
        return None
    a, b = text.splitlines(), text.replace(old_s, new_s, 1).splitlines()
    hunks = []
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if op != "equal":
            context = [f" {a[i1 - 1]}"] if i1 > 0 else []
            hunks.append("\n".join(["@@", *context, *(f"-{x}" for x in a[i1:i2]), *(f"+{x}" for x in b[j1:j2])]))
    body = "\n".join(hunks)
    return ToolCallSpec(PATCH_TOOL, {"input": f"*** Begin Patch\n*** Update File: {rel}\n{body}\n*** End Patch\n"})


def _plan(call: ToolCallSpec) -> ToolCallSpec:
    """A todo list as Codex's `update_plan`: its steps and their status."""
    todos = call.args.get("todos") or []
    plan = [{"step": str(t.get("content", "")), "status": str(t.get("status", "pending"))} for t in todos]
    return ToolCallSpec("update_plan", {"plan": plan})


def _has(family: str, tools: dict[str, dict[str, Any]]) -> bool:
    return any(n in tools for n in FAMILIES[family])


def _in_codex_form(call: ToolCallSpec, tools: dict[str, dict[str, Any]], workspace: str) -> ToolCallSpec | None:
    """An edit, a write or a todo list as Codex takes them (a patch, `update_plan`), when it is Codex's tools."""
    if call.name in ("edit", "write") and PATCH_TOOL in tools and not _has(call.name, tools):
        return _patch(call, workspace) or call  # no edit or write tool, only the patch
    plans = [n for n in FAMILIES["todowrite"] if n in tools]
    if call.name == "todowrite" and plans == ["update_plan"]:
        return _plan(call)
    return None


def fit_call(call: ToolCallSpec, tools: dict[str, dict[str, Any]], workspace: str = "") -> ToolCallSpec:
    """The call renamed to a declared tool of its family, its arguments fitted to that tool's schema."""
    if call.name in tools and call.name not in FAMILIES:
        return call
    if (codex := _in_codex_form(call, tools, workspace)) is not None:
        return codex
    path = call.args.get("path") or call.args.get("file_path")
    if call.name == "read" and not _has("read", tools) and _has("bash", tools) and path:
        # an agent with no file reader (Codex) reads with its shell: `cat` is on its list of safe
        # commands, so the read still runs without asking, as the scenario means
        call = ToolCallSpec("bash", {"command": f"cat {shlex.quote(str(path))}"})
    name = next((n for n in FAMILIES.get(call.name, (call.name,)) if n in tools), None)
    if name is None and call.name in UNDECLARED and "Read" in tools:
        return ToolCallSpec(UNDECLARED[call.name], dict(call.args))
    if name is None:
        return call
    schema = tools[name]
    p = schema.get("properties")
    props: dict[str, Any] = p if isinstance(p, dict) else {}
    r = schema.get("required")
    required: list[Any] = r if isinstance(r, list) else []
    args: dict[str, Any] = {}
    for k, v in call.args.items():
        if k == "command" and "command" not in props and "cmd" in props:  # Codex's exec_command
            args["cmd"] = v
        elif k == "command" and isinstance(v, str) and (props.get("command") or {}).get("type") == "array":
            args["command"] = ["bash", "-lc", v]  # Codex's shell tool takes argv
        elif k in CAMEL and k not in props and CAMEL[k] in props:  # opencode's edit
            args[CAMEL[k]] = v
        elif k in ("path", "file_path"):  # the agent's own name for a path, absolute where it wants one
            key = next((p for p in PATH_KEYS if p in props), "path")
            if workspace and isinstance(v, str) and not os.path.isabs(v):
                v = os.path.join(workspace, v)
            args[key] = v
        elif k in props or not props:
            args[k] = v
    for k in required:
        if k not in args and k in FILLERS:
            args[k] = FILLERS[k]
    return ToolCallSpec(name, args)


def fit_reply(reply: Reply, body: dict[str, Any], workspace: str = "") -> Reply:
    """`fit_call` for every call of a reply."""
    tools = declared(body)
    if not reply.tool_calls or not tools:
        return reply
    return replace(reply, tool_calls=[fit_call(c, tools, workspace) for c in reply.tool_calls])
