"""Codex CLI rollout files (`~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl`) as neutral traces.

A rollout is JSON Lines, one `{timestamp, type, payload}` per line, read as a stream. Only the
`response_item` records are the conversation (`event_msg` repeats them for the UI; `session_meta`
and `turn_context` are settings):

* `message`: a `user` item is a `user` event, except the preambles Codex adds itself
  (`<environment_context>`, `<user_instructions>`, `# AGENTS.md ...`); an `assistant` item is an
  `answer`; `developer` items are instructions, skipped;
* `reasoning`: its `summary` texts are a `think` event;
* `function_call` (`arguments` a JSON string), `custom_tool_call` (`input`, e.g. `apply_patch`'s
  patch) and `local_shell_call` (`action.command`) are calls. Codex's shells, `exec_command` (`cmd`),
  `shell` and `local_shell` (`command` as an argv list), are `bash` calls with that `command`, so
  the shell rules read them;
* `function_call_output` / `custom_tool_call_output` answer the call with the same `call_id`: the
  text `... Process exited with code N ... Output:` + newline + `...` gives `exit` N and the output after
  `Output:`; a JSON `{"output", "metadata": {"exit_code"}}` gives both directly.

A call is emitted when its output arrives (calls left without one at the end are emitted as they are).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from engine.trace import TraceError
from wrapper.records.importers.common import args_of, as_int, obj, settle, text_of
from wrapper.records.trace_io import DEFAULT_MAX_LINE_BYTES, objects_of, open_regular

_PREAMBLES = ("<environment_context", "<user_instructions", "# AGENTS.md", "<permissions instructions")
_EXITED = re.compile(r"(?:Process exited with code|Exit code:)\s*(-?\d+)")
_OUTPUT = re.compile(r"\nOutput:\n(.*)\Z", re.S)
_SHELLS = frozenset({"exec_command", "shell", "local_shell", "container.exec"})
# the record types of a rollout (others, from newer versions, are skipped); `detect` recognises a file by them
KINDS = frozenset({"session_meta", "response_item", "event_msg", "turn_context", "compacted"})


def _call(p: dict[str, Any]) -> dict[str, Any]:
    kind = p.get("type")
    if kind == "custom_tool_call":
        return {"t": "call", "tool": str(p.get("name") or "custom_tool"), "args": {"input": p.get("input")}}
    if kind == "local_shell_call":
        return {"t": "call", "tool": "bash", "args": {"command": obj(p.get("action")).get("command")}}
    name = str(p.get("name") or "tool")
    args = args_of(p.get("arguments"))
    if name in _SHELLS:
        command = args.get("cmd", args.get("command"))
        return {"t": "call", "tool": "bash", "args": {"command": command}}
    return {"t": "call", "tool": name, "args": args}


def _output(call: dict[str, Any], raw: Any) -> dict[str, Any]:
    """The call's result from Codex's output text (or JSON)."""
    if isinstance(raw, dict):
        raw = raw.get("content") if isinstance(raw.get("content"), str) else json.dumps(raw)
    text = text_of(raw) if not isinstance(raw, str) else raw
    try:
        doc = json.loads(text) if text.lstrip().startswith("{") else None
    except (ValueError, RecursionError):
        doc = None
    if isinstance(doc, dict) and "output" in doc:
        return settle(call, str(doc.get("output") or ""), as_int(obj(doc.get("metadata")).get("exit_code")))
    m = _EXITED.search(text[:2000])
    body = _OUTPUT.search(text)
    return settle(call, body.group(1) if body else text, int(m.group(1)) if m else None)


def read_codex(path: Path, max_bytes: int) -> Iterator[dict[str, Any]]:
    """The trace objects of one Codex rollout: meta, then its events in order."""
    yield {"t": "meta", "name": path.stem, "notes": "imported from a Codex rollout"}
    pending: dict[str, dict[str, Any]] = {}
    seen = False
    with open_regular(path) as fh:
        for line, rec in objects_of(fh, min(max_bytes, DEFAULT_MAX_LINE_BYTES)):
            if not isinstance(rec, dict) or not isinstance(rec.get("type"), str):
                raise TraceError("not a Codex rollout record (an object with `type` and `payload`)", line)
            seen = True
            p = obj(rec.get("payload"))
            if rec.get("type") != "response_item":
                continue
            kind = p.get("type")
            if kind == "message":
                text = text_of(p.get("content"))
                if p.get("role") == "user" and not text.lstrip().startswith(_PREAMBLES):
                    yield from pending.values()  # calls that never got an output (interrupted)
                    pending.clear()
                    yield {"t": "user", "text": text}
                elif p.get("role") == "assistant" and text.strip():
                    yield {"t": "answer", "text": text}
            elif kind == "reasoning":
                summary = [s.get("text") for s in p.get("summary") or [] if isinstance(s, dict)]
                text = "\n".join(s for s in summary if isinstance(s, str))
                if text.strip():
                    yield {"t": "think", "text": text}
            elif kind in ("function_call", "custom_tool_call", "local_shell_call"):
                pending[str(p.get("call_id") or p.get("id") or f"#{line}")] = _call(p)
            elif kind in ("function_call_output", "custom_tool_call_output"):
                call = pending.pop(str(p.get("call_id")), None)
                if call is not None:
                    yield _output(call, p.get("output"))
    yield from pending.values()
    if not seen:
        raise TraceError(f"{path}: empty file, no Codex rollout records in it")
