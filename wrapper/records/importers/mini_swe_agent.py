"""mini-swe-agent `.traj.json` files as neutral traces.

A trajectory is one JSON object, `{info, messages, trajectory_format: "mini-swe-agent-1.N",
instance_id}` (older files are a bare list of messages). `messages` are chat messages: `system`
(skipped), the first `user` message (the task, a `user` event), then the agent's steps. Two variants:

* **text**: the assistant's `content` holds a THOUGHT and exactly one fenced bash block: the thought
  is a `think` event, the block a `bash` call; the next `user` message is its observation. A reply
  without exactly one block is a format error: it is an `answer`, and the harness's automatic reply to
  it is dropped (it is neither a tool result nor a person);
* **tool calls**: the assistant's `tool_calls` (`{function: {name, arguments}}`) are calls, its
  `content` a `think`; each `tool` message answers the oldest call still waiting.

An observation is `<returncode>N</returncode><output>...</output>` (long outputs as `<output_head>` /
`<output_tail>`): N is the call's `exit`, the output its `output`; an observation that timed out is
an error. Observations with no return code (a time-out, a harness message) are judged by their text
(`engine.tools.errortext`). The closing `exit` message (the submission) is not a call.
"""

from __future__ import annotations

import re
from collections import deque
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from engine.trace import TraceError
from wrapper.records.importers.common import args_of, each_object, obj, settle, text_of
from wrapper.records.trace_io import load_json_file

_RC = re.compile(r"<returncode>\s*(-?\d+)\s*</returncode>")
_OUTPUT = re.compile(r"<output>\n?(.*?)\n?</output>", re.S)
_HEAD_TAIL = re.compile(r"<output_head>\n?(.*?)</output_head>.*?<output_tail>\n?(.*?)</output_tail>", re.S)
_BASH = re.compile(r"```(?:bash|sh)\s*\n(.*?)\n```", re.S)
# Each pattern above can only match if its closing tags follow its opening one. A lazy `(.*?)` whose
# closing tag never comes reads to the end of the text, from every opening tag (and, for the fence,
# from every newline after it): quadratic time. The guards below look for the tags first with
# `str.find`, so a pattern runs only where it matches, and then stops at the first closing tag.


def _tags_in_order(text: str, tags: tuple[str, ...]) -> bool:
    """Whether `tags` occur in `text` one after another (each starting after the end of the one before)."""
    at = 0
    for tag in tags:
        found = text.find(tag, at)
        if found < 0:
            return False
        at = found + len(tag)
    return True


def _bash_blocks(text: str) -> list[re.Match[str]]:
    """The fenced bash blocks of a reply (`_BASH.finditer`, read only up to the last closing fence)."""
    last = text.rfind("\n```")
    return [] if last < 0 else list(_BASH.finditer(text, 0, last + 4))


def _messages(doc: Any, path: Path) -> list[dict[str, Any]]:
    msgs = doc if isinstance(doc, list) else doc.get("messages") if isinstance(doc, dict) else None
    if not isinstance(msgs, list):
        raise TraceError(f"{path}: not a mini-swe-agent trajectory (a JSON object with a `messages` list)")
    return each_object(msgs, path, "messages", "role", "a mini-swe-agent trajectory")


def observation(text: str) -> tuple[int | None, str]:
    """(return code or None, output) of one observation message."""
    m = _RC.search(text)
    rc = int(m.group(1)) if m else None
    out = _OUTPUT.search(text) if _tags_in_order(text, ("<output>", "</output>")) else None
    if out is not None:
        return rc, out.group(1)
    tags = ("<output_head>", "</output_head>", "<output_tail>", "</output_tail>")
    ht = _HEAD_TAIL.search(text) if _tags_in_order(text, tags) else None
    if ht is not None:
        return rc, ht.group(1) + "\n[... elided by mini-swe-agent ...]\n" + ht.group(2)
    return rc, text


def _answer(call: dict[str, Any], text: str) -> dict[str, Any]:
    rc, body = observation(text)
    timed_out = rc is None and "timed out" in text[:300]
    return settle(call, body, rc, timed_out)


def read_mini_swe_agent(path: Path, max_bytes: int) -> Iterator[dict[str, Any]]:
    """The trace objects of one mini-swe-agent trajectory: meta, the task, then each step."""
    doc = load_json_file(path, max_bytes)
    msgs = _messages(doc, path)
    if not any(m.get("role") == "assistant" for m in msgs):
        raise TraceError(f"{path}: a mini-swe-agent trajectory with no assistant message: nothing to scan")
    fmt = doc.get("trajectory_format") if isinstance(doc, dict) else None
    notes = "imported from a mini-swe-agent trajectory" + (f" ({fmt})" if isinstance(fmt, str) else "")
    yield {"t": "meta", "name": path.name.removesuffix(".json").removesuffix(".traj"), "notes": notes}
    pending: deque[dict[str, Any]] = deque()  # calls waiting for their observation, oldest first
    task_seen = False
    for m in msgs:
        role, text = m.get("role"), text_of(m.get("content"))
        if role == "system" or role == "exit":
            continue
        if role == "user" and not task_seen:
            task_seen = True
            yield {"t": "user", "text": text}
            continue
        if role == "assistant":
            yield from pending  # a step that never got an observation
            pending.clear()
            yield {"t": "request"}
            calls = [c for c in m.get("tool_calls") or [] if isinstance(c, dict)]
            if calls:
                if text.strip():
                    yield {"t": "think", "text": text}
                for c in calls:
                    fn = obj(c.get("function"))
                    pending.append(
                        {"t": "call", "tool": str(fn.get("name") or "bash"), "args": args_of(fn.get("arguments"))}
                    )
                continue
            blocks = _bash_blocks(text)
            if len(blocks) == 1:
                thought = text[: blocks[0].start()].strip()
                if thought:
                    yield {"t": "think", "text": thought}
                pending.append({"t": "call", "tool": "bash", "args": {"command": blocks[0].group(1)}})
            elif text.strip():
                yield {"t": "answer", "text": text}
            continue
        if role in ("tool", "user") and pending:
            yield _answer(pending.popleft(), text)
        # else: the harness's reply to a format error: not a tool result, not a person
    yield from pending
