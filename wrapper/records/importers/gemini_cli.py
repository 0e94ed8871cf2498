"""Gemini CLI chat files (`~/.gemini/tmp/<project hash>/chats/session-*.json`) as neutral traces.

A chat is one JSON object `{sessionId, projectHash, startTime, messages: [...]}` (Harbor keeps the
same file as `agent/gemini-cli.trajectory.json`). A `user` message is a `user` event; a `gemini`
message is a `request`, its `thoughts` (`subject: description`) `think` events, its `content` an
`answer`, and each of its `toolCalls` (`{name, args, result, status}`) a call. The result is the text
of its `functionResponse.response` (`output`, else `error`); `status: "error"` (or `"cancelled"`)
is the call's `error`. A shell result (`run_shell_command`) is the text Gemini gives the model,
`Command: ... Directory: ... Output: ... Error: ... Exit Code: N ... Process Group PGID: N`: N is
the call's `exit`, and the output is kept without the lines that change on every run (the command
and directory it repeats, the signal, the background pids, the process group), so two runs that
printed the same are the same result. `info` and `error` messages (the CLI's own notices) are skipped.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from wrapper.records.importers.common import each_object, list_field, obj, settle, text_of
from wrapper.records.trace_io import load_json_file

_EXIT = re.compile(r"^Exit Code: (-?\d+)\s*$", re.M)
_NOISE = re.compile(r"^(?:Command|Directory|Exit Code|Signal|Background PIDs|Process Group PGID): .*\n?", re.M)


def _result(tc: dict[str, Any]) -> str:
    parts: list[str] = []
    for r in tc.get("result") or []:
        resp = obj(obj(obj(r).get("functionResponse")).get("response"))
        v = resp.get("output", resp.get("error", ""))
        parts.append(v if isinstance(v, str) else text_of(v))
    return "".join(parts)


def _call(tc: dict[str, Any]) -> dict[str, Any]:
    args = tc.get("args")
    call: dict[str, Any] = {
        "t": "call",
        "tool": str(tc.get("name") or "tool"),
        "args": args if isinstance(args, dict) else {},
    }
    text = _result(tc)
    code = _EXIT.search(text)
    if code is not None:
        text = _NOISE.sub("", text).removeprefix("Output: ")
    failed = tc.get("status") in ("error", "cancelled")
    return settle(call, text, int(code.group(1)) if code else None, failed)


def read_gemini_cli(path: Path, max_bytes: int) -> Iterator[dict[str, Any]]:
    """The trace objects of one Gemini CLI chat: meta, then its messages in order."""
    doc = load_json_file(path, max_bytes)
    messages = each_object(
        list_field(doc, "messages", path, "a Gemini CLI chat"), path, "messages", "type", "a Gemini CLI chat"
    )
    yield {"t": "meta", "name": path.stem, "notes": "imported from a Gemini CLI chat"}
    for m in messages:
        kind = m.get("type")
        if kind == "user":
            yield {"t": "user", "text": text_of(m.get("content"))}
        elif kind == "gemini":
            yield {"t": "request"}
            for th in m.get("thoughts") or []:
                th = obj(th)
                text = f"{th.get('subject', '')}: {th.get('description', '')}".strip(": ")
                if text:
                    yield {"t": "think", "text": text}
            answer = text_of(m.get("content"))
            if answer.strip():
                yield {"t": "answer", "text": answer}
            for tc in m.get("toolCalls") or []:
                if isinstance(tc, dict):
                    yield _call(tc)
