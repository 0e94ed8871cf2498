"""Harbor ATIF `trajectory.json` files (terminal-bench, OpenClaw and other agents run by Harbor) as traces.

ATIF (Agent Trajectory Interchange Format, Harbor's `docs/rfcs/0001-trajectory-format.md`) is one
JSON object `{schema_version: "ATIF-v1.N", session_id, agent: {name, model_name, ...}, steps: [...]}`.
Each step has a `source`: a `user` step is a `user` event (its `message`); an `agent` step is a
`request`, its `reasoning_content` a `think`, its `message` an `answer` when it made no tool call
(with tool calls it is what the agent said before them, a `think`), and each of its `tool_calls`
`{tool_call_id, function_name, arguments}` a call; `system` steps are the harness's, skipped. The
step's `observation.results` `[{source_call_id, content}]` answer the calls by id. ATIF has no exit
status field: a shell's status is read from its text (`exit code N`), and a result with none is judged by its
text (`engine.tools.errortext`); an `is_error` a writer adds is honoured. `message` and `content`
may be text or a list of content parts.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from engine.tools.progress import SHELL_TOOLS
from wrapper.records.importers.common import EXIT_TEXT, args_of, each_object, list_field, obj, settle, text_of
from wrapper.records.trace_io import load_json_file

# Claude Code run by Harbor names its tools as Claude Code does; the trace calls them as the claude-code importer does
_LOWER = frozenset({"Bash", "Read", "Edit", "Write", "Grep", "Glob", "MultiEdit", "WebFetch", "WebSearch", "TodoWrite"})


def _tool(name: Any) -> str:
    n = str(name or "tool")
    return n.lower() if n in _LOWER else n


def read_atif(path: Path, max_bytes: int) -> Iterator[dict[str, Any]]:
    """The trace objects of one ATIF trajectory: meta, then each step's events in order."""
    doc = load_json_file(path, max_bytes)
    steps = each_object(
        list_field(doc, "steps", path, "an ATIF trajectory"), path, "steps", "source", "an ATIF trajectory"
    )
    agent = obj(obj(doc).get("agent"))
    who = " / ".join(str(agent[k]) for k in ("name", "model_name") if isinstance(agent.get(k), str))
    yield {"t": "meta", "name": path.parent.name if path.stem == "trajectory" else path.stem,
           "notes": "imported from an ATIF trajectory" + (f" ({who})" if who else "")}  # fmt: skip
    for step in steps:
        source = step.get("source")
        text = text_of(step.get("message"))
        if source == "user":
            yield {"t": "user", "text": text}
            continue
        if source != "agent":
            continue
        yield {"t": "request"}
        calls = [c for c in step.get("tool_calls") or [] if isinstance(c, dict)]
        reasoning = text_of(step.get("reasoning_content"))
        if reasoning.strip():
            yield {"t": "think", "text": reasoning}
        if text.strip():
            yield {"t": "think" if calls else "answer", "text": text}
        results: dict[str, dict[str, Any]] = {}
        for r in obj(step.get("observation")).get("results") or []:
            if isinstance(r, dict) and r.get("source_call_id") is not None:
                results[str(r["source_call_id"])] = r
        for c in calls:
            call: dict[str, Any] = {
                "t": "call",
                "tool": _tool(c.get("function_name")),
                "args": args_of(c.get("arguments")),
            }
            r = results.get(str(c.get("tool_call_id")))
            if r is None:
                yield call
                continue
            out = text_of(r.get("content"))
            # a shell's status as it printed it (a read of a file that mentions an exit code is no status)
            code = EXIT_TEXT.search(out[-500:]) if call["tool"] in SHELL_TOOLS else None
            yield settle(call, out, int(code.group(1)) if code else None, r.get("is_error") is True)
