"""OpenHands (V0) event streams as neutral traces.

OpenHands records a session as a list of events (`event_to_dict`): actions (`"action": "run"`,
with `args`) and observations (`"observation": "run"`, with `content`, `extras` and `cause`, the id
of the action they answer). Accepted: a JSON array of events, or an object holding one under
`history` or `trajectory` (an evaluation record; older records pair each action with its
observation in a two-item list, which is read the same way). Each action's `args.thought` becomes a `think`
event; then:

* `run` is a `bash` call (`command`); `run_ipython` is a `bash` call running the cell with
  `python3 - <<'EOF'`; `read` and the editor's `view` are `read` calls (`file_path`, `offset`,
  `limit`); the editor's `str_replace` / `insert` / `undo_edit` are `edit` calls, `create` and
  `write` are `write` calls; `browse` is a `web_fetch` call; any other action with arguments is a
  call of that name;
* a `message` from the user is a `user` event, from the agent an `answer`; `think` is a `think`;
* the observation that answers a call gives its `output` (`content`), `exit`
  (`extras.metadata.exit_code` when not negative) and `error` (an `error` observation, or an editor
  or read observation whose text starts with `ERROR:`, which is how the file editor reports one).

A call is emitted when its observation arrives. Bookkeeping events (state changes, recalls,
system prompts, `finish`) are skipped. The V1 SDK format (events with a `kind`) is not read.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from engine.trace import TraceError
from wrapper.records.trace_io import load_json_file

_SKIP = frozenset({"system", "recall", "change_agent_state", "agent_state_changed", "finish", "null", "condensation"})


def _events(doc: Any, path: Path) -> list[Any]:
    found: list[Any] | None = None
    if isinstance(doc, dict):
        for key in ("history", "trajectory"):
            if isinstance(doc.get(key), list):
                found = list(doc[key])
                break
    elif isinstance(doc, list):
        found = doc
    if found is not None:
        # older evaluation records keep the history as [action, observation] pairs
        return [e for item in found for e in (item if isinstance(item, list) else [item])]
    raise TraceError(f"{path}: not an OpenHands event list (a JSON array, or an object with `history`)")


def _failed(obs: dict[str, Any], output: str) -> bool:
    """An `error` observation, or a tool without an exit status (the editor, a read) answering `ERROR:`."""
    kind = obs.get("observation")
    return kind == "error" or (kind not in ("run", "run_ipython") and output.lstrip().startswith("ERROR:"))


def _int(v: Any) -> int | None:
    return v if isinstance(v, int) and not isinstance(v, bool) else None


def _obj(v: Any) -> dict[str, Any]:
    return v if isinstance(v, dict) else {}


def _call(action: str, args: dict[str, Any]) -> tuple[str, dict[str, Any]] | None:
    path = args.get("path")
    if action == "run":
        return "bash", {"command": str(args.get("command", ""))}
    if action == "run_ipython":
        return "bash", {"command": f"python3 - <<'EOF'\n{args.get('code', '')}\nEOF"}
    if action == "browse":
        return "web_fetch", {"url": str(args.get("url", ""))}
    if action == "write":
        return "write", {"file_path": path, "content": args.get("content", "")}
    command = args.get("command")
    if action == "read" or (action == "edit" and command == "view"):
        out: dict[str, Any] = {"file_path": path}
        rng = args.get("view_range")
        start = _int(rng[0] if isinstance(rng, list) and rng else args.get("start"))
        end = _int(rng[1] if isinstance(rng, list) and len(rng) > 1 else args.get("end"))
        if start is not None and start > 0:
            out["offset"] = start
            if end is not None and end >= start:
                out["limit"] = end - start + 1
        return "read", out
    if action == "edit" and command == "create":
        return "write", {"file_path": path, "content": args.get("file_text", "")}
    if action == "edit":
        names = {"old_str": "old_string", "new_str": "new_string", "insert_line": "insert_line"}
        keep: dict[str, Any] = {names[k]: args[k] for k in names if k in args}
        return "edit", {"file_path": path, **keep}
    if action in _SKIP or action in ("message", "think"):
        return None
    return action, {k: v for k, v in args.items() if k not in ("thought", "confirmation_state", "hidden")}


def read_openhands(path: Path, max_bytes: int) -> Iterator[dict[str, Any]]:
    """The trace objects of one OpenHands event list: meta, then its events in order."""
    events = _events(load_json_file(path, max_bytes), path)
    if any(isinstance(e, dict) and "kind" in e and "action" not in e and "observation" not in e for e in events[:5]):
        raise TraceError(f"{path}: OpenHands V1 SDK events (with `kind`) are not supported; give a V0 event list")
    yield {"t": "meta", "name": path.stem, "notes": "imported from an OpenHands event stream"}
    pending: dict[Any, dict[str, Any]] = {}
    for n, e in enumerate(events, 1):
        if not isinstance(e, dict):
            raise TraceError(f"{path}: event {n} is not an object (got {type(e).__name__})")
        if "observation" in e:
            call = pending.pop(e.get("cause"), None)
            if call is not None:
                call["output"] = str(e.get("content") or "")
                code = _int(_obj(_obj(e.get("extras")).get("metadata")).get("exit_code"))
                if code is not None and code >= 0:
                    call["exit"] = code
                if _failed(e, call["output"]):
                    call["error"] = True
                yield call
            continue
        action = e.get("action")
        args = _obj(e.get("args"))
        if not isinstance(action, str):
            continue
        if action == "message":
            text = str(args.get("content") or e.get("message") or "")
            if e.get("source") == "user":
                yield from pending.values()
                pending.clear()
                yield {"t": "user", "text": text}
            elif text:
                yield {"t": "answer", "text": text}
            continue
        thought = args.get("thought")
        if isinstance(thought, str) and thought.strip():
            yield {"t": "think", "text": thought}
        mapped = _call(action, args)
        if mapped is not None:
            pending[e.get("id", f"#{n}")] = {"t": "call", "tool": mapped[0], "args": mapped[1]}
    yield from pending.values()
