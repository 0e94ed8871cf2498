"""Past sessions, per agent and working directory, from breaker-tui's own recordings.

Every session the monitor runs leaves a recording whose meta record names the command, the working
directory and (for ACP) the agent; its first records carry the agent's session id (`session/new`'s
answer or the `session/load` request for ACP, the bridge's `ready` for dsh) and the first prompt.
That is enough to list what a person can resume without asking the agent (most agents cannot list
their sessions over ACP, and dsh's runner has no list at all).

The recordings are the agent's to write too (a same-user process), so nothing read here is trusted:
a session id must look like one (`valid_session_id`: no leading `-`, so it can never be read as a flag
on dsh's command line, no spaces or control characters) or the recording is skipped; the title is
clipped and made inert by the screen. Only the newest `MAX_FILES` recordings are opened and each only
for its first `HEAD_RECORDS` records, so a long history or a huge recording costs the list nothing.
"""

from __future__ import annotations

import contextlib
import os
import re
from dataclasses import dataclass
from itertools import islice
from pathlib import Path
from typing import Any

from wrapper.records.sources import SourceError, load

MAX_FILES = 400  # the newest recordings looked at
HEAD_RECORDS = 2000  # records read from each, at most, to find its session ids and their first prompts
MAX_SESSIONS = 200
_SESSION_ID = re.compile(r"\A[A-Za-z0-9_][A-Za-z0-9_.:@+=-]{0,199}\Z")


def valid_session_id(sid: str) -> bool:
    """Whether `sid` can be a session id: 1-200 letters, digits and `_ . : @ + = -`, not starting with `-`."""
    return bool(_SESSION_ID.match(sid))


def session_id_problem(sid: str) -> str:
    """Why `sid` cannot be passed to an agent as a session id, or "" when it can."""
    if valid_session_id(sid):
        return ""
    return (
        f"{sid[:60]!r} is not a session id (1-200 letters, digits and _ . : @ + = -, not starting with -);"
        " the session list (ctrl+l) shows the ids of past sessions"
    )


def agent_label(meta: dict[str, Any]) -> str:
    """Who ran a recording, as the list groups them: the ACP agent's name, else `dsh --profile P` or the command."""
    agent = meta.get("agent")
    if meta.get("harness") == "acp" and isinstance(agent, str) and agent:
        return agent
    argv = meta.get("argv")
    if not isinstance(argv, list) or not argv or not all(isinstance(a, str) for a in argv):
        return ""
    name = os.path.basename(str(argv[0]))
    if name == "dsh":
        profile: str = next((argv[i + 1] for i, a in enumerate(argv[:-1]) if a == "--profile"), "")
        profile = profile or next((a.split("=", 1)[1] for a in argv if a.startswith("--profile=")), "")
        return f"dsh --profile {profile}" if profile else "dsh"
    return name


@dataclass(frozen=True)
class PastSession:
    """One session a person can resume: its id, when it was last run, its first prompt, how many runs."""

    session_id: str
    agent: str
    cwd: str
    last: float  # when its newest recording was last written (seconds since the epoch)
    title: str  # the first prompt of its oldest recording (sessions without one are not listed)
    runs: int  # recordings of it (each launch or resume is one)
    path: Path  # the newest recording


def _head(path: Path) -> tuple[dict[str, Any], dict[str, str]]:
    """(meta, {session id: its first prompt}) of one recording's first `HEAD_RECORDS` records.

    One run can hold several sessions: a session opened, then another resumed from the list (or by a
    restart on a new one); a prompt belongs to the session opened last before it.
    """
    loaded = load(path)
    if loaded.kind != "recording":
        return {}, {}
    found: dict[str, str] = {}
    current = ""
    for rec in islice(loaded.records, HEAD_RECORDS):
        if sid := _sid_of(rec):
            current = sid
            found.setdefault(sid, "")
        elif current and not found[current] and (text := _prompt_of(rec)):
            found[current] = text
    return loaded.meta, found


def _sid_of(rec: dict[str, Any]) -> str:
    k = rec.get("k")
    if k == "in" and rec.get("t") == "ready" and isinstance(rec.get("sessionId"), str):
        return str(rec["sessionId"])  # dsh's bridge
    msg = rec.get("msg")
    if k != "acp" or not isinstance(msg, dict):
        return ""
    result, params = msg.get("result"), msg.get("params")
    if rec.get("dir") == "a2c" and isinstance(result, dict) and isinstance(result.get("sessionId"), str):
        return str(result["sessionId"])  # the answer to session/new
    if msg.get("method") == "session/load" and isinstance(params, dict) and isinstance(params.get("sessionId"), str):
        return str(params["sessionId"])  # a resumed one
    return ""


def _prompt_of(rec: dict[str, Any]) -> str:
    k, text = rec.get("k"), rec.get("text")
    if not isinstance(text, str):
        return ""
    if k == "note" and rec.get("what") == "prompt" and not rec.get("followup"):
        return text[:300]
    if k == "out" and rec.get("t") == "prompt":
        return text[:300]
    return ""


def _newest(directory: Path) -> list[tuple[Path, float]]:
    """The newest `MAX_FILES` recordings of the folder, by when they were last written.

    By time, not by name: a name says when the file was opened, not when it was last written, and the
    folder may hold files named by older builds (an ACP session's `session-PID-N.jsonl`).
    """
    out: list[tuple[Path, float]] = []
    try:
        with os.scandir(directory) as it:
            for e in it:
                if e.name.endswith(".jsonl") and e.is_file(follow_symlinks=False):
                    with contextlib.suppress(OSError):
                        out.append((Path(e.path), e.stat(follow_symlinks=False).st_mtime))
    except OSError:
        return []
    out.sort(key=lambda pm: pm[1], reverse=True)
    return out[:MAX_FILES]


def list_sessions(directory: Path, agent: str, cwd: str) -> list[PastSession]:
    """The sessions `agent` ran in `cwd`, newest first, one row per session id (its runs counted)."""
    found: dict[str, PastSession] = {}
    want_cwd = os.path.realpath(cwd)
    for path, mtime in _newest(directory):
        try:
            meta, sessions = _head(path)
        except (SourceError, OSError):
            continue
        where = meta.get("cwd")
        if not sessions or agent_label(meta) != agent or not isinstance(where, str):
            continue
        with contextlib.suppress(OSError, ValueError):
            where = os.path.realpath(where)
        if where != want_cwd:
            continue
        for sid, title in sessions.items():
            if not valid_session_id(sid):
                continue
            old = found.get(sid)
            if old is None:
                found[sid] = PastSession(sid, agent, where, mtime, title, 1, path)
            else:  # an older run of the same session (newest first): its prompt is the first one
                found[sid] = PastSession(
                    sid, agent, where, max(old.last, mtime), title or old.title, old.runs + 1, old.path
                )
    # a session nobody prompted has nothing to resume (Claude Code does not even keep one)
    kept = [s for s in found.values() if s.title]
    return sorted(kept, key=lambda s: s.last, reverse=True)[:MAX_SESSIONS]
