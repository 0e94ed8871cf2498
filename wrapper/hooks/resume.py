"""A hooked session's engine rebuilt from its recording, when a new server meets a session the old one held.

The server is started on demand and can die (killed, rebooted, or stopped after an hour with no call)
while the agent's session goes on. Its engines lived in memory only, but every call and result each
session saw is in its recording, written through as it happened. So the first time a new server sees
a session id, it looks for that session's newest recording and feeds its records to a fresh engine in
the order they were written: the windows, counts, failures and asks settled are what they were, and the
next repeat is counted as it would have been. The records are copied into the new recording too, so that
`scan` of the new one alone still gives the verdicts the hook gave.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from engine.breaker import Breaker
from engine.events import UserMessage
from wrapper.records.recorder import slug

AGENT = "main"  # the engine's agent id inside a hooked session (as in `wrapper.hooks.sessions`)
MAX_AGE_S = 6 * 3600  # a recording not written for longer belongs to a session the server would have closed
MAX_BYTES = 64 << 20  # a bigger recording is not replayed (it would hold the first answer up for too long)


def find(directory: Path, agent: str, session: str, now: float | None = None) -> Path | None:
    """The newest recent recording of this agent's session in `directory`, None when there is none."""
    now = time.time() if now is None else now
    try:
        # a prefix of the id: names written before they held the whole id are found too (the meta decides)
        named = list(directory.glob(f"*-hook-{slug(agent)}-{slug(session, 24)}*.jsonl"))
    except OSError:
        return None
    fresh = []
    for p in named:
        try:
            st = p.stat()
        except OSError:
            continue
        if now - st.st_mtime <= MAX_AGE_S and st.st_size <= MAX_BYTES:
            fresh.append((st.st_mtime, p))
    for _, p in sorted(fresh, reverse=True):
        if _meta_of(p) == (agent, session):  # a slug is lossy: the meta says whose it is
            return p
    return None


def _meta_of(path: Path) -> tuple[str, str] | None:
    try:
        with path.open("rb") as f:
            meta = json.loads(f.readline())
    except (OSError, ValueError):
        return None
    if not isinstance(meta, dict) or meta.get("k") != "meta" or meta.get("harness") != "hook":
        return None
    return str(meta.get("agent")), str(meta.get("sessionId"))


def records(path: Path) -> Iterator[dict[str, Any]]:
    """The recording's records after its meta; a line a killed server left half-written is skipped."""
    try:
        with path.open("rb") as f:
            f.readline()
            for line in f:
                try:
                    r = json.loads(line)
                except ValueError:
                    continue
                if isinstance(r, dict):
                    yield r
    except OSError:
        return


class Replayed:
    """What replaying a recording gives back besides the engine's state: the session's own bookkeeping."""

    def __init__(self) -> None:
        self.records: list[dict[str, Any]] = []  # the in/out/note records, to be copied into the new recording
        self.n = 0  # payload-like records seen: new ids count on from here, never reusing one
        self.calls = 0  # tool calls asked about (results are not calls)
        self.denied: set[str] = set()
        self.turn = ""  # the person's last prompt id
        self.turns = 1
        self.steps: list[str] = []
        self.last = ""


def replay(path: Path, breaker: Breaker) -> Replayed:
    """Feed `path`'s records to `breaker` in order; what the session's own state was."""
    out = Replayed()
    asked: dict[str, str] = {}  # verdict id -> call id, for the answers recorded after the asks
    for r in records(path):
        kind, t = r.get("k"), r.get("t")
        if kind not in ("in", "out", "note"):
            continue
        out.records.append(r)
        if kind == "note":
            if r.get("what") == "prompt":
                out.turn = str(r.get("id") or "")
            continue
        if t == "event":
            breaker.feed(UserMessage(AGENT, "", "user"))
            out.turns += 1
            out.steps = []
        elif t == "verdict_request":
            out.n += 1
            out.calls += 1
            v = breaker.check_tool(AGENT, str(r.get("callId")), str(r.get("name")), r.get("args"))
            out.steps.append(v.kind)
            out.last = v.kind if v.kind == "allow" else f"{v.kind} ({v.rule or 'loop'})"
            if v.kind == "ask":
                asked[str(r.get("id"))] = str(r.get("callId"))
            elif v.kind == "deny":
                out.denied.add(str(r.get("callId")))
        elif t == "approval_response":
            _answered(breaker, out, asked.pop(str(r.get("id")), ""), r)
        elif t == "result_request":
            out.n += 1
            call_id = str(r.get("callId"))
            args, text, failed = r.get("args"), str(r.get("text") or ""), bool(r.get("isError"))
            breaker.tool_result(AGENT, call_id, str(r.get("name")), args, text, failed, True, call_id not in out.denied)
    return out


def _answered(breaker: Breaker, out: Replayed, call_id: str, r: dict[str, Any]) -> None:
    """An ask's recorded answer, applied again (Claude's own prompt answered it: nothing to apply)."""
    answer = str(r.get("answer") or "")
    if not call_id or r.get("outcome") == "asked-agent":
        return
    allow = answer in ("allow-once", "allow-turn")
    v = breaker.resolve_ask(AGENT, call_id, allow, "turn" if answer == "allow-turn" else "once")
    out.steps.append("allow" if v.kind != "deny" else "deny")
    if v.kind == "deny":
        out.denied.add(call_id)
