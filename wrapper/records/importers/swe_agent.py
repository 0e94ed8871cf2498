"""SWE-agent `.traj` files as neutral traces.

A `.traj` file is one JSON document: `trajectory` is the list of steps, each with the model's
`thought` (or its whole `response`), the `action` it took (one command line, or a multi-line edit)
and the `observation` that came back; `history` holds the conversation, whose first non-demo user
message is the task. Each step becomes a `think` event and a `call`:

* the file viewer (`open`, `goto`, `scroll_up`, `scroll_down`, `str_replace_editor view`) becomes a
  `read` call with `file_path` and `offset` (and `limit` for a view range), taken from the
  `[File: PATH (N lines total)]` / `(K more lines above)` header of the observation when it has one;
  `goto` and `scroll_*` act on the file the viewer has open, so they are reads of that file (one
  whose observation shows no window, an error, stays a `bash` call);
* edits (`edit A:B ... end_of_edit`, `str_replace_editor str_replace|insert|undo_edit`) become
  `edit` calls with `file_path`; `create` and `str_replace_editor create` become `write` calls;
  an edit whose observation reports that nothing was changed is a call with `error: true`;
* everything else (shell commands, `search_dir`, `find_file`, `submit`, ...) is a `bash` call
  with the action as its `command`.

SWE-agent does not record exit statuses, so `exit` is left out.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from engine.trace import TraceError
from wrapper.records.trace_io import load_json_file

_HEADER = re.compile(r"^\[File: (?P<path>.+?) \((?P<total>\d+) lines total\)\]\s*$", re.MULTILINE)
_ABOVE = re.compile(r"^\((?P<above>\d+) more lines above\)\s*$", re.MULTILINE)
# Observations that say an edit changed nothing: the call failed as far as progress is concerned.
_EDIT_FAILED = (
    "Your proposed edit has introduced new syntax error",
    "No replacement was performed",
    "did not appear verbatim",
    "Your edit was not applied",
    "Error: ",
    "usage: edit",
)
VIEWER = ("open", "goto", "scroll_up", "scroll_down")


@dataclass
class _Viewer:
    """The file SWE-agent's viewer has open, as far as the trajectory shows it."""

    path: str = ""
    first: int = 1


def _text(v: Any) -> str:
    if isinstance(v, str):
        return v
    if isinstance(v, list):  # content parts: [{"type": "text", "text": ...}]
        return "\n".join(str(p.get("text", "")) for p in v if isinstance(p, dict))
    return ""


def _task(history: Any) -> str:
    if not isinstance(history, list):
        return ""
    for m in history:
        if isinstance(m, dict) and m.get("role") == "user" and not m.get("is_demo"):
            return _text(m.get("content"))
    return ""


def _state_file(step: dict[str, Any]) -> str:
    state = step.get("state")
    if isinstance(state, str):
        try:
            state = json.loads(state)
        except ValueError:
            return ""
    if isinstance(state, dict):
        f = state.get("open_file")
        if isinstance(f, str) and f not in ("", "n/a"):
            return f
    return ""


def _seen(observation: str, viewer: _Viewer) -> None:
    """Move the viewer to what the observation shows, when it shows a window of a file."""
    m = _HEADER.search(observation)
    if m is None:
        return
    viewer.path = m.group("path")
    above = _ABOVE.search(observation, m.end())
    viewer.first = int(above.group("above")) + 1 if above else 1


# One piece of a POSIX shell word as `shlex.split` reads it: an unquoted run, a single-quoted run, a
# double-quoted run (whose body is an unrolled loop of escape pairs, so no character is tried twice),
# an escaped character, or whitespace.
_SHLEX_PIECE = re.compile(r"""([^ \t\r\n'"\\]+)|'([^']*)'|"([^"\\]*(?:\\.[^"\\]*)*)"|\\(.)|([ \t\r\n]+)""", re.S)
_SHLEX_DQ_ESCAPE = re.compile(r'\\([\\"])')  # inside double quotes only `\\` and `\"` drop their backslash


def shell_words(line: str) -> list[str]:
    """`shlex.split(line)` in one pass over the text: `shlex` grows each token a character at a time,
    which takes quadratic time on a long token; this cuts the same tokens with regular expressions.
    An unclosed quote or a trailing backslash raises ValueError, as `shlex.split` does.
    """
    words: list[str] = []
    cur: list[str] = []
    started = False  # a word has begun (an empty quoted string is a word)
    pos, end = 0, len(line)
    while pos < end:
        m = _SHLEX_PIECE.match(line, pos)
        if m is None:
            raise ValueError(f"unclosed quotation or trailing backslash at offset {pos}")
        pos = m.end()
        k = m.lastindex or 0
        if k == 5:  # whitespace
            if started:
                words.append("".join(cur))
                cur, started = [], False
            continue
        started = True
        piece = m.group(k)
        cur.append(_SHLEX_DQ_ESCAPE.sub(r"\1", piece) if k == 3 and "\\" in piece else piece)
    if started:
        words.append("".join(cur))
    return words


def _words(line: str) -> list[str]:
    try:
        return shell_words(line)
    except ValueError:
        return line.split()


def _option(words: list[str], name: str, count: int = 1) -> list[str]:
    if name in words:
        i = words.index(name)
        return words[i + 1 : i + 1 + count]
    return []


def _editor(words: list[str]) -> tuple[str, dict[str, Any]] | None:
    """A `str_replace_editor SUB PATH --opt value ...` action, or None when it cannot be read."""
    if len(words) < 3:
        return None
    sub, path = words[1], words[2]
    if sub == "view":
        args: dict[str, Any] = {"file_path": path}
        rng = _option(words, "--view_range", 2)
        if len(rng) == 2 and all(re.fullmatch(r"-?\d+", r) for r in rng):
            lo, hi = int(rng[0]), int(rng[1])
            args["offset"] = lo
            if hi >= lo:
                args["limit"] = hi - lo + 1
        return "read", args
    if sub == "create":
        return "write", {"file_path": path, "content": "".join(_option(words, "--file_text"))}
    if sub == "str_replace":
        return "edit", {
            "file_path": path,
            "old_string": "".join(_option(words, "--old_str")),
            "new_string": "".join(_option(words, "--new_str")),
        }
    if sub == "insert":
        return "edit", {
            "file_path": path,
            "insert_line": "".join(_option(words, "--insert_line")),
            "new_string": "".join(_option(words, "--new_str")),
        }
    if sub == "undo_edit":
        return "edit", {"file_path": path, "undo": True}
    return None


def map_action(action: str, observation: str, viewer: _Viewer, open_file: str = "") -> dict[str, Any]:
    """The trace `call` object for one SWE-agent action and what it printed."""
    text = action.strip()
    head, _, body = text.partition("\n")
    words = _words(head)
    cmd = words[0] if words else ""
    if not viewer.path and open_file:
        viewer.path = open_file
    mapped: tuple[str, dict[str, Any]] | None = None
    if cmd in VIEWER:
        shown = _HEADER.search(observation) is not None
        _seen(observation, viewer)
        if cmd == "open" and len(words) > 1 and not shown:
            viewer.path, viewer.first = words[1], int(words[2]) if len(words) > 2 and words[2].isdigit() else 1
        if viewer.path and (shown or cmd == "open"):  # a goto/scroll that showed no window did not read
            mapped = "read", {"file_path": viewer.path, "offset": viewer.first}
    elif cmd == "edit" and viewer.path:
        span = words[1] if len(words) > 1 else ""
        content = body.rsplit("end_of_edit", 1)[0] if body.rstrip().endswith("end_of_edit") else body
        mapped = "edit", {"file_path": viewer.path, "lines": span, "new_string": content}
        _seen(observation, viewer)
    elif cmd == "create" and len(words) > 1:
        mapped = "write", {"file_path": words[1], "content": ""}
        _seen(observation, viewer)
    elif cmd == "str_replace_editor":
        mapped = _editor(_words(text))
    if mapped is None:
        return {"t": "call", "tool": "bash", "args": {"command": text}, "output": observation}
    tool, args = mapped
    call: dict[str, Any] = {"t": "call", "tool": tool, "args": args, "output": observation}
    if tool in ("edit", "write") and any(marker in observation for marker in _EDIT_FAILED):
        call["error"] = True
    return call


def _steps_of_history(history: Any) -> list[Any] | None:
    """Steps rebuilt from a `history` alone (some files keep only the conversation): each assistant
    message with an `action`, and the tool or user message after it as its observation.
    """
    if not isinstance(history, list):
        return None
    steps: list[Any] = []
    for k, m in enumerate(history):
        if not isinstance(m, dict) or m.get("role") != "assistant" or not _text(m.get("action")).strip():
            continue
        nxt = history[k + 1] if k + 1 < len(history) else None
        seen = nxt.get("content") if isinstance(nxt, dict) and nxt.get("role") in ("tool", "user") else ""
        steps.append({"thought": m.get("thought") or m.get("content"), "action": m.get("action"), "observation": seen})
    return steps or None


def read_swe_agent(path: Path, max_bytes: int) -> Iterator[dict[str, Any]]:
    """The trace objects of one `.traj` file: meta, the task as a user message, then each step."""
    doc = load_json_file(path, max_bytes)
    if not isinstance(doc, dict):
        raise TraceError(f"{path}: not a SWE-agent trajectory (a JSON object with a `trajectory` list)")
    steps = doc.get("trajectory")
    if not isinstance(steps, list):
        steps = _steps_of_history(doc.get("history"))
        if steps is None:
            raise TraceError(f"{path}: not a SWE-agent trajectory (no `trajectory` list, no `history` with actions)")
    info = doc.get("info")
    notes = "imported from a SWE-agent trajectory"
    if isinstance(info, dict) and isinstance(info.get("exit_status"), str):
        notes += f"; exit status {info['exit_status']}"
    yield {"t": "meta", "name": path.stem, "notes": notes}
    task = _task(doc.get("history"))
    if task:
        yield {"t": "user", "text": task}
    viewer = _Viewer()
    for n, step in enumerate(steps, 1):
        if not isinstance(step, dict):
            raise TraceError(f"{path}: trajectory step {n} is not an object (got {type(step).__name__})")
        thought = _text(step.get("thought")) or _text(step.get("response"))
        action = _text(step.get("action"))
        if thought.strip():
            yield {"t": "think", "text": thought}
        if action.strip():
            yield map_action(action, _text(step.get("observation")), viewer, _state_file(step))
