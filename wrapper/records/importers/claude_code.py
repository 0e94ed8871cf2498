"""Claude Code session transcripts (`~/.claude/projects/<project>/<session>.jsonl`) as neutral traces.

A transcript is JSON Lines: `user` and `assistant` records whose `message.content` holds blocks.
An assistant's `thinking` block becomes a `think` event, its `text` an `answer`, its `tool_use` a
`call` (the tool name lower-cased, so `Bash`, `Read`, `Edit`, `Write`, `Grep` are the `bash`,
`read`, `edit`, `write`, `grep` calls a shell agent makes; `MultiEdit` is an `edit`; the input is
kept as `args`). A call is emitted when its `tool_result` arrives, with the result's text as
`output`, `error` from `is_error`, and `exit` when the text starts `Exit code N`. A user record
with plain text (not a tool result, not `isMeta`) is a `user` event; sidechain (subagent) records
belong to the agent `sidechain` (`isSidechain` in a session transcript, `parent_tool_use_id` in the
`claude -p --output-format stream-json` output, which is read the same way). Other records
(summaries, snapshots, system lines) are skipped.
The file is read as a stream, one bounded line at a time.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from engine.trace import TraceError
from wrapper.records.trace_io import DEFAULT_MAX_LINE_BYTES, objects_of, open_regular

_EXIT = re.compile(r"^Exit code (\d+)")
_NAMES = {"multiedit": "edit", "webfetch": "web_fetch", "websearch": "web_search", "todowrite": "todo_write"}


def _blocks(content: Any) -> list[dict[str, Any]]:
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    if isinstance(content, list):
        return [b for b in content if isinstance(b, dict)]
    return []


def _result_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    return "\n".join(str(b.get("text", "")) for b in _blocks(content) if b.get("type") == "text")


def _tool(name: Any) -> str:
    low = str(name or "tool").lower()
    return _NAMES.get(low, low)


def read_claude_code(path: Path, max_bytes: int) -> Iterator[dict[str, Any]]:
    """The trace objects of one transcript: meta, then its events in order."""
    yield {"t": "meta", "name": path.stem, "notes": "imported from a Claude Code transcript"}
    pending: dict[str, dict[str, Any]] = {}
    seen = False
    with open_regular(path) as fh:
        for line, rec in objects_of(fh, min(max_bytes, DEFAULT_MAX_LINE_BYTES)):
            if not isinstance(rec, dict):
                raise TraceError(f"transcript line {line}: not a JSON object")
            kind = rec.get("type")
            if kind not in ("user", "assistant") or rec.get("isMeta") or rec.get("isCompactSummary"):
                continue
            seen = True
            # a subagent's record: `isSidechain` in a session transcript, `parent_tool_use_id` in `stream-json`
            agent = "sidechain" if rec.get("isSidechain") or rec.get("parent_tool_use_id") else "main"
            message: dict[str, Any] = rec["message"] if isinstance(rec.get("message"), dict) else {}
            for b in _blocks(message.get("content")):
                t = b.get("type")
                if kind == "assistant" and t == "thinking" and isinstance(b.get("thinking"), str):
                    yield {"t": "think", "text": b["thinking"], "agent": agent}
                elif kind == "assistant" and t == "text" and isinstance(b.get("text"), str):
                    yield {"t": "answer", "text": b["text"], "agent": agent}
                elif kind == "assistant" and t == "tool_use":
                    args: dict[str, Any] = b["input"] if isinstance(b.get("input"), dict) else {}
                    pending[str(b.get("id"))] = {
                        "t": "call",
                        "tool": _tool(b.get("name")),
                        "args": args,
                        "agent": agent,
                    }
                elif kind == "user" and t == "tool_result":
                    call = pending.pop(str(b.get("tool_use_id")), None)
                    if call is None:
                        continue
                    text = _result_text(b.get("content"))
                    call["output"] = text
                    if b.get("is_error") is True:
                        call["error"] = True
                    m = _EXIT.match(text)
                    if m:
                        call["exit"] = int(m.group(1))
                    yield call
                elif kind == "user" and t == "text" and isinstance(b.get("text"), str):
                    yield from pending.values()  # calls that never got a result (interrupted)
                    pending.clear()
                    yield {"t": "user", "text": b["text"], "agent": agent}
    yield from pending.values()
    if not seen:
        raise TraceError(f"{path}: no `user` or `assistant` records: not a Claude Code transcript")
