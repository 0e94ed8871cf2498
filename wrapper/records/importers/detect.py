"""Which format a session file is in, told from its shape, so `scan FILE` needs no `--from`.

`recognise(path)` answers `"trace"` (the neutral trace), the name of an importer, or `""`: a
breaker-tui recording, a dsh session log, or nothing known, all left to the session replayer (which
says what it found when it is none of its own). It looks at the first line when that line is a JSON
object (a JSON Lines file, or a whole document written on one line), else at the whole document
(a pretty-printed `.json`). Each shape is a set of keys no other format has at the top:

| shape | format |
|---|---|
| a `t` of the trace's kinds on the first line | trace |
| `{"type": "session"}` then records with `parentId` (and no `seq`) | openclaw (dsh logs have `seq`) |
| `{type: session_meta / response_item / ..., payload}` | codex |
| `{type: user / assistant / summary / ..., uuid / sessionId / message}` | claude-code |
| `{schema_version: "ATIF-...", steps}` | atif |
| `{trajectory_format: "mini-swe-agent-..."}`, `{info: {config}, messages}`, `<returncode>`s | mini-swe-agent |
| `{trajectory: [...]}`, or `{history: [...]}` with messages that have `action` | swe-agent |
| `{sessionId, messages}` | gemini-cli |
| `{info, messages: [{info, parts}]}` | opencode |
| a list of events with `action` / `observation` and `source` / `id` / `cause`, or `{history: [those]}` | openhands |
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from engine.trace import TraceError
from wrapper.records import trace_io
from wrapper.records.importers.codex import KINDS as CODEX_KINDS

_CLAUDE_KINDS = frozenset(
    {"user", "assistant", "summary", "system", "file-history-snapshot", "queue-operation", "result"}
)
_CLAUDE_KEYS = ("uuid", "sessionId", "session_id", "leafUuid", "message", "parentUuid")


class UnknownFormat(TraceError):
    """A JSON document of no shape an importer reads (a JSON Lines file of no known shape is left to the
    session replayer instead, which knows recordings and dsh logs).
    """


_OPENCLAW_KINDS = frozenset({"model_change", "thinking_level_change", "message", "custom", "compaction"})


def recognise(path: Path, max_line_bytes: int = trace_io.DEFAULT_MAX_LINE_BYTES, max_bytes: int = 256 << 20) -> str:
    """`"trace"`, an importer's name, or `""` (a recording, a dsh log, or unknown JSON Lines); a bad file
    raises TraceError, a JSON document of no known shape `UnknownFormat`.
    """
    heads = _first_objects(path, max_line_bytes)
    if heads is None:  # the first line is not a JSON value by itself: one (pretty-printed) document
        doc = trace_io.load_json_file(path, max_bytes)
        found = document_format(doc)
        if not found:
            keys = sorted(map(str, doc))[:6] if isinstance(doc, dict) else f"a {type(doc).__name__}"
            raise UnknownFormat(
                f"{path}: a JSON document of no format scan knows (top level: {keys}); "
                "give --from NAME if it is one of them (`scan --help` lists them)"
            )
        return found
    first = heads[0]
    if trace_io.is_trace_line(first):
        return "trace"
    if len(heads) == 1:
        as_doc = document_format(first)
        if as_doc:
            return as_doc
    return records_format(heads)


def _first_objects(path: Path, max_line_bytes: int, count: int = 5) -> list[Any] | None:
    """The JSON values of the first lines (up to `count`; a fault after the first ends the list),
    None when the first line does not decode alone; a file that is empty raises TraceError.
    """
    out: list[Any] = []
    with trace_io.open_regular(path) as fh:
        lines = trace_io.objects_of(fh, max_line_bytes)
        try:
            for _, obj in lines:
                out.append(obj)
                if len(out) >= count:
                    break
        except TraceError:
            if not out:
                return None
    if not out:
        raise TraceError(f"{path}: empty file, nothing to scan")
    return out


def records_format(heads: list[Any]) -> str:
    """The format of a JSON Lines file from its first records, or `""`."""
    first = heads[0]
    if not isinstance(first, dict):
        return ""
    kind = first.get("type")
    if any(isinstance(h, dict) and ("seq" in h or "k" in h) for h in heads):
        return ""  # dsh logs number their records (`seq`); breaker-tui recordings tag them (`k`)
    if kind == "session":
        rest = [h for h in heads[1:] if isinstance(h, dict)]
        linked = any("parentId" in h or h.get("type") in _OPENCLAW_KINDS for h in rest)
        return "openclaw" if linked or (isinstance(first.get("timestamp"), str) and "createdAt" not in first) else ""
    if kind in CODEX_KINDS and "payload" in first:
        return "codex"
    if kind in _CLAUDE_KINDS and any(k in first for k in _CLAUDE_KEYS):
        return "claude-code"
    return ""


def _has_returncode(messages: list[Any]) -> bool:
    return any(
        isinstance(m, dict) and isinstance(m.get("content"), str) and "<returncode>" in m["content"]
        for m in messages[:20]
    )


def _events(v: Any) -> bool:
    """OpenHands events: an `action` or `observation` with the event's own `source` / `id` / `cause`
    (SWE-agent steps have `action` and `observation` too, but none of those); or [action, observation] pairs.
    """
    if not isinstance(v, list):
        return False
    items = [e for item in v[:20] for e in (item if isinstance(item, list) else [item])]
    return any(
        isinstance(e, dict) and ("action" in e or "observation" in e) and any(k in e for k in ("source", "id", "cause"))
        for e in items
    )


def document_format(doc: Any) -> str:
    """The format of one JSON document, or `""`."""
    if isinstance(doc, list):
        if _events(doc):
            return "openhands"
        return "mini-swe-agent" if _has_returncode(doc) else ""
    if not isinstance(doc, dict):
        return ""
    return next((name for name, shaped in _DOCUMENT_SHAPES if shaped(doc)), "")


def _messages(doc: dict[str, Any]) -> list[Any] | None:
    m = doc.get("messages")
    return m if isinstance(m, list) else None


def _info(doc: dict[str, Any]) -> dict[str, Any] | None:
    i = doc.get("info")
    return i if isinstance(i, dict) else None


def _mini_run(doc: dict[str, Any]) -> bool:
    info = _info(doc)
    return _messages(doc) is not None and info is not None and ("mini_version" in info or "config" in info)


def _actions_only(doc: dict[str, Any]) -> bool:
    """A .traj that keeps only the conversation, with each message's `action`."""
    history = doc.get("history")
    return isinstance(history, list) and any(isinstance(m, dict) and "action" in m for m in history)


def _opencode(doc: dict[str, Any]) -> bool:
    messages = _messages(doc)
    return (
        messages is not None
        and _info(doc) is not None
        and any(isinstance(m, dict) and "parts" in m for m in messages[:5])
    )


# a JSON object's format by its shape, tried in this order (the first that fits names it)
_DOCUMENT_SHAPES: tuple[tuple[str, Callable[[dict[str, Any]], bool]], ...] = (
    ("atif", lambda d: isinstance(d.get("schema_version"), str) and d["schema_version"].startswith("ATIF")),
    ("mini-swe-agent", lambda d: str(d.get("trajectory_format", "")).startswith("mini-swe-agent")),
    ("mini-swe-agent", _mini_run),
    ("openhands", lambda d: _events(d.get("history")) or _events(d.get("trajectory"))),  # an evaluation record
    ("swe-agent", lambda d: isinstance(d.get("trajectory"), list)),
    ("swe-agent", _actions_only),
    ("gemini-cli", lambda d: _messages(d) is not None and "sessionId" in d),
    ("opencode", _opencode),
    ("mini-swe-agent", lambda d: (m := _messages(d)) is not None and _has_returncode(m)),
)
