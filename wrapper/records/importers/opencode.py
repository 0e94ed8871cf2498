"""opencode session exports (`opencode export <session>`) as neutral traces.

An export is one JSON object `{info: {id, version, directory, title, ...}, messages: [{info: {role,
modelID, ...}, parts: [...]}]}`. A user message's `text` parts (not `synthetic` ones, which opencode
adds itself) are one `user` event. An assistant message's parts, in order: `step-start` (one model
request) is a `request`, `reasoning` a `think`, `text` an `answer`, and a `tool` part `{tool, state:
{status, input, output | error, metadata}}` a call with `input` as `args`: `output` (or `error`) is
its output, `status: "error"` its `error`, `metadata.exit` its `exit`. A tool still `pending` or
`running` when the export was made has no result. `step-finish`, `patch`, `file`, `snapshot` and
`agent` parts are bookkeeping, skipped.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from wrapper.records.importers.common import as_int, each_object, list_field, obj, settle, text_of
from wrapper.records.trace_io import load_json_file


def _tool(p: dict[str, Any]) -> dict[str, Any]:
    st = obj(p.get("state"))
    args = st.get("input")
    call: dict[str, Any] = {
        "t": "call",
        "tool": str(p.get("tool") or "tool"),
        "args": args if isinstance(args, dict) else {},
    }
    status = st.get("status")
    if status not in ("completed", "error"):
        return call
    raw = st.get("error") if status == "error" else st.get("output")
    return settle(
        call,
        raw if isinstance(raw, str) else text_of(raw),
        as_int(obj(st.get("metadata")).get("exit")),
        status == "error",
    )


def read_opencode(path: Path, max_bytes: int) -> Iterator[dict[str, Any]]:
    """The trace objects of one opencode export: meta, then its messages' parts in order."""
    doc = load_json_file(path, max_bytes)
    messages = each_object(
        list_field(doc, "messages", path, "an opencode export"), path, "messages", "parts", "an opencode export"
    )
    title = obj(obj(doc).get("info")).get("title")
    notes = "imported from an opencode export" + (f": {title}" if isinstance(title, str) else "")
    yield {"t": "meta", "name": path.stem, "notes": notes}
    for m in messages:
        role = obj(m.get("info")).get("role")
        parts = [p for p in m.get("parts") or [] if isinstance(p, dict)]
        if role == "user":
            texts = [str(p.get("text", "")) for p in parts if p.get("type") == "text" and not p.get("synthetic")]
            if texts:
                yield {"t": "user", "text": "\n".join(texts)}
            continue
        for p in parts:
            kind = p.get("type")
            if kind == "step-start":
                yield {"t": "request"}
            elif kind in ("reasoning", "text") and isinstance(p.get("text"), str) and p["text"].strip():
                yield {"t": "think" if kind == "reasoning" else "answer", "text": p["text"]}
            elif kind == "tool":
                yield _tool(p)
