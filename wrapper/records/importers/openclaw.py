"""OpenClaw session files (`~/.openclaw/agents/<agent>/sessions/<id>.jsonl`, pi's format) as neutral traces.

A session is JSON Lines: a `{type: "session", version, id, cwd}` header, then records with `id` and
`parentId`. The records form a tree: going back to an earlier point and carrying on from there (a
branch) adds a second child to one parent, and the old branch stays in the file. The session the
agent is in is the **active branch**: the chain of `parentId`s from the last record back to the root,
and only that chain is replayed (the abandoned branch was not part of it: its calls did not happen in
the conversation the model saw). Files without ids (version 1) are one chain in file order.

On the branch, `message` records carry `message: {role, content, ...}`:

* `user`: a `user` event (its text parts);
* `assistant`: a `request`, then its content blocks in order: `thinking` is a `think` event,
  `text` an `answer`, `toolCall {id, name, arguments}` a call;
* `toolResult {toolCallId, content, isError}`: the result of that call; `isError` is its `error`,
  and a bash result's `exit code N` / `exited with code N` its `exit`;
* `bashExecution {command, output, exitCode}`: a command the person ran (`!cmd`), not the model: a
  `user` event saying so, since it may change the workspace.

Other records (`model_change`, `thinking_level_change`, `custom`, `compaction`, labels) are skipped.
A call is emitted when its result arrives. Every record is kept while the file is read (the branch is
known only at its end), bounded by the importer's byte limit.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from engine.trace import TraceError
from wrapper.records.importers.common import EXIT_TEXT, obj, settle, text_of
from wrapper.records.trace_io import DEFAULT_MAX_LINE_BYTES, objects_of, open_regular


def _records(path: Path, max_bytes: int) -> list[tuple[int, dict[str, Any]]]:
    out: list[tuple[int, dict[str, Any]]] = []
    with open_regular(path) as fh:
        if os.fstat(fh.fileno()).st_size > max_bytes:  # the whole tree is held: bound it before reading
            raise TraceError(f"{path}: larger than {max_bytes:,} bytes; not read (is it the right kind of file?)")
        for line, rec in objects_of(fh, min(max_bytes, DEFAULT_MAX_LINE_BYTES)):
            if not isinstance(rec, dict) or not isinstance(rec.get("type"), str):
                raise TraceError("not an OpenClaw session record (an object with a `type`)", line)
            out.append((line, rec))
    if not out or out[0][1].get("type") != "session":
        raise TraceError(f'{path}: not an OpenClaw session (the first record is not `{{"type": "session"}}`)')
    return out


def active_branch(records: list[tuple[int, dict[str, Any]]]) -> list[tuple[int, dict[str, Any]]]:
    """The records on the chain from the last one back to the root, in order (all of them without ids)."""
    body = records[1:]
    if not any("id" in r for _, r in body):
        return body
    by_id: dict[str, tuple[int, dict[str, Any]]] = {}
    for line, rec in body:
        if isinstance(rec.get("id"), str):
            by_id[rec["id"]] = (line, rec)
    leaf = next(((ln, r) for ln, r in reversed(body) if isinstance(r.get("id"), str)), None)
    chain: list[tuple[int, dict[str, Any]]] = []
    seen: set[str] = set()
    while leaf is not None:
        line, rec = leaf
        if rec["id"] in seen:
            raise TraceError(f"`parentId` chain loops back to record {rec['id']!r}", line)
        seen.add(rec["id"])
        chain.append(leaf)
        parent = rec.get("parentId")
        if parent is None:
            break
        leaf = by_id.get(str(parent))
        if leaf is None:
            raise TraceError(f"`parentId` {parent!r} names no record in the file (is the file cut short?)", line)
    chain.reverse()
    return chain


def read_openclaw(path: Path, max_bytes: int) -> Iterator[dict[str, Any]]:
    """The trace objects of one session's active branch: meta, then its events in order."""
    records = _records(path, max_bytes)
    yield {"t": "meta", "name": path.stem, "notes": "imported from an OpenClaw session (active branch)"}
    pending: dict[str, dict[str, Any]] = {}
    for _, rec in active_branch(records):
        if rec.get("type") != "message":
            continue
        m = obj(rec.get("message"))
        role = m.get("role")
        if role == "user":
            yield from pending.values()
            pending.clear()
            yield {"t": "user", "text": text_of(m.get("content"))}
        elif role == "bashExecution":
            yield {"t": "user", "text": f"(the person ran) {m.get('command', '')}"}
        elif role == "assistant":
            yield {"t": "request"}
            content = m.get("content")
            for b in content if isinstance(content, list) else [{"type": "text", "text": text_of(content)}]:
                kind = b.get("type") if isinstance(b, dict) else None
                if kind == "thinking" and isinstance(b.get("thinking"), str) and b["thinking"].strip():
                    yield {"t": "think", "text": b["thinking"]}
                elif kind == "text" and isinstance(b.get("text"), str) and b["text"].strip():
                    yield {"t": "answer", "text": b["text"]}
                elif kind == "toolCall":
                    args = b.get("arguments")
                    pending[str(b.get("id"))] = {
                        "t": "call",
                        "tool": str(b.get("name") or "tool"),
                        "args": args if isinstance(args, dict) else {},
                    }
        elif role == "toolResult":
            call = pending.pop(str(m.get("toolCallId")), None)
            if call is None:
                continue
            text = text_of(m.get("content"))
            code = EXIT_TEXT.search(text[-500:]) if call["tool"] == "bash" else None
            yield settle(call, text, int(code.group(1)) if code else None, m.get("isError") is True)
    yield from pending.values()
