"""Tool calls as ACP agents report them, joined by `toolCallId`, reduced to what the engine fingerprints.

Each agent puts the arguments somewhere else: opencode and Claude send `tool_call` with an empty
`rawInput` and the full input in a later `tool_call_update`; Codex only in the permission request;
Gemini only a title. `CallState.merge` folds all of them into one record, and `engine_call` names the
call the way the engine's fingerprints expect (`bash` + `command`, `read` + `path`, ...), so a loop
looks the same whichever agent runs it.
"""

from __future__ import annotations

import hashlib
import os
import shlex
from dataclasses import dataclass, field
from typing import Any

from engine.breaker import Verdict
from wrapper.harness.acp.view import diff_contents, diffs_of, output_of
from wrapper.items import FileDiff

_PATH_KEYS = ("file_path", "filePath", "filepath", "path", "absolute_path")
_SHELLS = {"bash", "sh", "zsh", "dash"}
_SHELL_NAMES = {"bash", "shell", "run_shell_command", "terminal", "exec", "execute"}
# numbers an agent gives each call or turn (Codex's `rawInput`): they say which call it is, not what it does,
# and would make every repeat a new call
_CALL_NUMBERS = frozenset({"call_id", "callId", "turn_id", "turnId", "toolCallId", "tool_call_id"})


def obj(d: Any, key: str) -> dict[str, Any]:
    """`d[key]` when it is a JSON object, else an empty one (agent frames are data, never trusted)."""
    v = d.get(key) if isinstance(d, dict) else None
    return v if isinstance(v, dict) else {}


@dataclass
class CallState:
    """Everything known about one tool call so far."""

    call_id: str  # the engine's id for this occurrence (the agent's id, `#N` when it was reused)
    acp_id: str = ""  # the agent's own toolCallId
    title: str = ""
    kind: str = ""
    name: str = ""  # the agent's own tool name, when it says
    raw: dict[str, Any] = field(default_factory=dict)
    status: str = "pending"
    verdict: Verdict | None = None
    asked: bool = False  # the agent sent a permission request for it
    refused: bool = False  # we (or the person) answered the request with a rejection
    ran_unasked: bool = False
    settled: bool = False  # its result went to the engine
    output: str = ""
    exit_code: int | None = None  # the shell status, where the agent reports it (Codex, opencode)
    diffs: list[FileDiff] = field(default_factory=list)  # the edit, from the update or the permission request
    change: tuple[str, str] | None = None  # the first file the edit changes, a digest of all it changes

    def __post_init__(self) -> None:
        self.acp_id = self.acp_id or self.call_id

    def merge(self, u: dict[str, Any]) -> None:
        """Fold one `tool_call` / `tool_call_update` / permission `toolCall` into the record."""
        if isinstance(u.get("title"), str) and u["title"]:
            self.title = u["title"]
        if isinstance(u.get("kind"), str) and u["kind"]:
            self.kind = u["kind"]
        meta = obj(u, "_meta")
        cc = obj(meta, "claudeCode")
        for name in (cc.get("toolName"), u.get("name")):
            if isinstance(name, str) and name:
                self.name = name
        raw = u.get("rawInput")
        if isinstance(raw, dict) and raw:
            self.raw.update(raw)
        if isinstance(u.get("status"), str) and u["status"]:
            self.status = u["status"]
        diffs = diffs_of(u)
        if diffs:
            self.diffs = diffs
            self.change = change_of(u)
        # the whole output, from wherever this agent puts it (`view.output_of`); an update without any keeps
        # what an earlier one said, and a status alone never erases it; `content` text before the call
        # finished is its description, not its output
        out = output_of(u)
        if out is not None and self.status not in ("completed", "failed") and "rawOutput" not in u:
            out = None
        if out is not None and (out[0] or not self.output):
            self.output = out[0]
        if out is not None and out[1] is not None:
            self.exit_code = out[1]

    def engine_call(self) -> tuple[str, Any]:
        """The tool name and arguments the engine fingerprints."""
        raw = self.raw
        cmd = raw.get("command", raw.get("cmd"))
        if isinstance(cmd, list):
            argv = [str(c) for c in cmd]
            # `bash -lc SCRIPT` (Codex wraps every command so): the script is the command
            if len(argv) == 3 and os.path.basename(argv[0]) in _SHELLS and argv[1] in ("-c", "-lc"):
                cmd = argv[2]
            else:
                cmd = shlex.join(argv)
        lname = self.name.lower()
        if isinstance(cmd, str) or self.kind == "execute" or lname in _SHELL_NAMES:
            if not isinstance(cmd, str):
                cmd = self.title
            return "bash", {"command": cmd}
        path = next((raw[k] for k in _PATH_KEYS if isinstance(raw.get(k), str)), None)
        if self.kind == "read":
            args: dict[str, Any] = {"path": path if path is not None else self.title}
            for k in ("offset", "limit"):
                if k in raw:
                    args[k] = raw[k]
            return "read", args
        if self.kind in ("edit", "delete", "move"):
            return "write", self._edit(path)
        if self.kind == "fetch" or isinstance(raw.get("url"), str):
            return "web_fetch", {"url": raw.get("url", self.title)}
        if self.kind == "search":
            return "search", self._what() or {"query": self.title}
        return (self.name or self.title or "tool"), self._what()

    def _what(self) -> dict[str, Any]:
        """The raw arguments without the agent's numbering of calls and turns."""
        return {k: v for k, v in self.raw.items() if k not in _CALL_NUMBERS}

    def _edit(self, path: str | None) -> dict[str, Any]:
        """An edit as what it changes: its file and its change. Where the arguments do not say (Gemini sends a
        title, Codex its call's numbers), the diff the agent shows for it does: a title such as "Writing to
        a.txt" is the same for every edit of that file.
        """
        body = {k: v for k, v in self._what().items() if k not in _PATH_KEYS}
        if path is None and self.change is not None:
            path = self.change[0]
        if not body and self.change is not None:
            body = {"change": self.change[1]}
        return {"path": path if path is not None else self.title, **body}


def change_of(u: dict[str, Any]) -> tuple[str, str] | None:
    """The first file the `diff` contents of a call change, and a short digest of every file, old and new
    text: what the edit does, however large (the diff shown of a large file is only its size).
    """
    contents = diff_contents(u)
    if not contents:
        return None
    digest = hashlib.blake2b(digest_size=6)
    for path, old, new in contents:
        for part in (path, old if old is not None else "\x00(new file)", new):
            digest.update(part.encode("utf-8", "replace") + b"\x00")
    return contents[0][0], digest.hexdigest()


def raw_output_text(raw: dict[str, Any]) -> str:
    """The output of a structured `rawOutput` (Codex's exec result), as the person would read it."""
    for key in ("aggregated_output", "formatted_output", "output"):
        v = raw.get(key)
        if isinstance(v, str) and v:
            return v
    parts = [raw[k] for k in ("stdout", "stderr") if isinstance(raw.get(k), str) and raw[k]]
    return "\n".join(parts)


def content_text(content: Any) -> str:
    """The text of an ACP content list (`{"type":"content","content":{"type":"text",...}}` and diffs)."""
    if not isinstance(content, list):
        return ""
    out: list[str] = []
    for c in content:
        if not isinstance(c, dict):
            continue
        inner = obj(c, "content") or c
        if isinstance(inner.get("text"), str):
            out.append(inner["text"])
        elif c.get("type") == "diff" and isinstance(c.get("newText"), str):
            out.append(c["newText"])
    return "\n".join(out)


def option_for(options: Any, kinds: tuple[str, ...]) -> str | None:
    """The `optionId` of the first offered option whose kind is in `kinds` (in that preference order)."""
    if not isinstance(options, list):
        return None
    for kind in kinds:
        for o in options:
            if isinstance(o, dict) and o.get("kind") == kind and isinstance(o.get("optionId"), str):
                return str(o["optionId"])
    return None


def option_names(options: Any) -> str:
    """The agent's options as people read them."""
    if not isinstance(options, list):
        return ""
    return ", ".join(str(o.get("name") or o.get("optionId")) for o in options if isinstance(o, dict))
