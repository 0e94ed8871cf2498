"""What the importers of chat-shaped logs share: reading content parts, arguments, statuses and lists.

Most agents' logs hold text as a string or as a list of content parts (`[{"type": "text", "text": ...}]`),
tool arguments as an object or a JSON string, and a tool's failure either as a status field or only
as text. `settle` is the one place an importer decides a call's `exit` and `error`: the harness's own
status when it recorded one, else `engine.tools.errortext.reads_as_error` on the result text (the
rule the live engine uses), so an imported trace says in its lines which results were errors.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from engine.tools.errortext import reads_as_error
from engine.trace import TraceError

# `exited with code 2`, `Exit code: 2`, `Exit Code: 2`, `exit code 2`: a status some shells print
EXIT_TEXT = re.compile(r"(?:exited with code|exit code)[: ]+(-?\d+)", re.I)


def text_of(content: Any) -> str:
    """A message's text: a string, or the `text` of its content parts (other parts, images, skipped)."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = [p.get("text") for p in content if isinstance(p, dict)]
        return "\n".join(p for p in parts if isinstance(p, str))
    return ""


def obj(v: Any) -> dict[str, Any]:
    """`v` when it is a JSON object, else an empty one (a missing or mistyped field reads as absent)."""
    return v if isinstance(v, dict) else {}


def as_int(v: Any) -> int | None:
    """`v` when it is an integer (not a bool), else None."""
    return v if isinstance(v, int) and not isinstance(v, bool) else None


def args_of(raw: Any) -> dict[str, Any]:
    """Tool arguments: an object, or a JSON string holding one; anything else is kept under `raw`."""
    if isinstance(raw, dict):
        return raw
    if isinstance(raw, str):
        try:
            parsed = json.loads(raw)
        except (ValueError, RecursionError):
            return {"raw": raw}
        return parsed if isinstance(parsed, dict) else {"raw": raw}
    return {} if raw is None else {"raw": raw}


def settle(call: dict[str, Any], output: str, exit: int | None = None, error: bool = False) -> dict[str, Any]:
    """Give `call` its result: `output`, the recorded `exit` / `error`, and, when the harness recorded
    no exit status and no error, `error: true` if the text reads as one (`Usage: edit`, `command not
    found`, ...), as the live engine judges a result that came without a status.
    """
    call["output"] = output
    if exit is not None:
        call["exit"] = exit
    if error or (exit is None and reads_as_error(str(call.get("tool", "")), output, call.get("args"))):
        call["error"] = True
    return call


def list_field(doc: Any, key: str, path: Path, what: str) -> list[Any]:
    """`doc[key]` as a list, or a `TraceError` saying the file is not `what`."""
    v = doc.get(key) if isinstance(doc, dict) else None
    if not isinstance(v, list):
        raise TraceError(f"{path}: not {what} (no `{key}` list)")
    return v


def each_object(items: list[Any], path: Path, where: str, needs: str = "", what: str = "") -> list[dict[str, Any]]:
    """The items, all of them JSON objects (with the key `needs`, when given), or a `TraceError` naming
    the first that is not (`where[N]`), so a file of another format forced with `--from` is refused
    rather than read as an empty session.
    """
    for n, item in enumerate(items):
        if not isinstance(item, dict):
            raise TraceError(f"{path}: {where}[{n}] is not an object (got {type(item).__name__})")
        if needs and needs not in item:
            raise TraceError(f"{path}: {where}[{n}] has no `{needs}`: not {what}")
    return items
