"""Fit a scenario's tool calls to the tools the agent declared in its request.

Scenarios are written once (`bash` with a `command`, `read` with a `path`); each agent names its tools
and their arguments differently (opencode `bash`/`read` with `filePath`, Claude Code `Bash`/`Read` with
`file_path`, dsh `bash`). The mock picks the declared tool of the same family and renames the arguments
to its schema, so the same scenario drives every agent.
"""

from __future__ import annotations

import os
import shlex
from dataclasses import replace
from typing import Any

from wrapper.mock.scenarios import Reply, ToolCallSpec

FOLLOWUP_MARKER = "without re-deliberating"  # the monitor's reasoning follow-up: answer with thinking off
FAMILIES = {
    "bash": ("bash", "Bash", "shell", "run_shell_command", "exec_command"),
    "read": ("read", "Read", "read_file"),
    "edit": ("edit", "Edit", "replace"),
    "todowrite": ("todowrite", "TodoWrite", "update_plan", "write_todos"),
}
# Claude Code defers TodoWrite (its tool list names ToolSearch instead) but turns a streamed TodoWrite call
# into a `plan` update before it runs: an agent that names its tools in capitals gets TodoWrite anyway.
UNDECLARED = {"todowrite": "TodoWrite"}
CAMEL = {"old_string": "oldString", "new_string": "newString"}
PATH_KEYS = ("filePath", "file_path", "absolute_path", "path")


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
        elif isinstance(t.get("name"), str):  # Anthropic (`input_schema`), OpenAI Responses (`parameters`)
            out[t["name"]] = t.get("input_schema") or t.get("parameters") or {}
    return out


def _has(family: str, tools: dict[str, dict[str, Any]]) -> bool:
    return any(n in tools for n in FAMILIES[family])


def fit_call(call: ToolCallSpec, tools: dict[str, dict[str, Any]], workspace: str = "") -> ToolCallSpec:
    """The call renamed to a declared tool of its family, its arguments fitted to that tool's schema."""
    if call.name in tools and call.name not in FAMILIES:
        return call
    if call.name == "read" and not _has("read", tools) and _has("bash", tools) and "path" in call.args:
        # an agent with no file reader (Codex) reads with its shell: `cat` is on its list of safe
        # commands, so the read still runs without asking, as the scenario means
        call = ToolCallSpec("bash", {"command": f"cat {shlex.quote(str(call.args['path']))}"})
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
        elif k == "path":
            key = next((p for p in PATH_KEYS if p in props), "path")
            if workspace and isinstance(v, str) and not os.path.isabs(v):
                v = os.path.join(workspace, v)
            args[key] = v
        elif k in props or not props:
            args[k] = v
    for k in required:
        if k not in args and k == "description":
            args[k] = "Run a command"
    return ToolCallSpec(name, args)


def fit_reply(reply: Reply, body: dict[str, Any], workspace: str = "") -> Reply:
    """`fit_call` for every call of a reply."""
    tools = declared(body)
    if not reply.tool_calls or not tools:
        return reply
    return replace(reply, tool_calls=[fit_call(c, tools, workspace) for c in reply.tool_calls])
