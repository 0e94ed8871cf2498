"""The hook server's judging: one engine per agent session, each recorded like any other session.

A before-tool payload becomes the engine's tool call and `check_tool`'s verdict the answer; an after-tool
payload feeds the result (its exit status parsed the agent's way). The records are the ones a dsh session
writes (`verdict_request`, `verdict`, `result_request`), so `scan` of a hook recording replays the same
verdicts the hook gave.
"""

from __future__ import annotations

import contextlib
import json
import time
from collections import deque
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from engine.breaker import Breaker
from engine.events import UserMessage
from wrapper.hooks import resume
from wrapper.hooks.agents import BadPayload
from wrapper.hooks.otlp import Spans
from wrapper.hooks.payloads import Call, parse
from wrapper.paths import recordings_dir
from wrapper.records.recorder import Recorder, session_recording
from wrapper.settings import Settings

AGENT = "main"  # the engine's agent id inside one hooked session (a session is one agent's main thread)
IDLE_SESSION_S = 6 * 3600  # a session with no call for this long is closed (its recording ends)
MAX_SESSIONS = 256  # beyond this the oldest idle session is closed first


@dataclass
class HookSession:
    """One agent session: its engine, its recording, the calls waiting for their results."""

    agent: str
    session: str
    breaker: Breaker
    recorder: Recorder
    seen: float = field(default_factory=time.monotonic)
    n: int = 0  # payloads seen, calls and results: the records' ids count on from it
    calls: int = 0  # tool calls asked about (`watch`'s count): a result is not another call
    denied: set[str] = field(default_factory=set)
    pending: dict[str, deque[str]] = field(default_factory=dict)  # Gemini: call ids by content, oldest first
    turn: str = ""  # the person's prompt the last call answered
    cwd: str = ""  # the project folder the agent last said it works in
    last: str = ""  # the last verdict: its kind, and its rule when not an allow
    turns: int = 1  # the person's prompts seen (a turn each)
    steps: list[str] = field(default_factory=list)  # this turn's verdicts, oldest first (`watch`'s timeline)
    asking: dict[str, tuple[str, str, Any, str]] = field(default_factory=dict)  # call id: verdict id, tool, args, why

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self.recorder.close()


class Sessions:
    """Every live hooked session of this user, keyed by agent and the agent's `session_id`."""

    def __init__(self, settings: Settings, spans: Spans | None = None) -> None:
        self.settings = settings
        self.spans = spans
        self.live: dict[tuple[str, str], HookSession] = {}

    def handle(self, agent: str, raw: bytes) -> dict[str, Any]:
        """The answer to one payload: {kind, reason, rule} before a call, {kind: "recorded"} after, or {error}."""
        try:
            call = parse(agent, raw)
        except BadPayload as e:
            return {"error": f"{agent} sent a payload breaker cannot read: {e}"}
        s = self._session(call)
        s.seen = time.monotonic()
        s.n += 1
        s.cwd = call.cwd or s.cwd
        if call.phase == "before":
            s.calls += 1
            self._new_prompt(s, call)
            return self._before(s, call)
        self._after(s, call)
        return {"kind": "recorded"}

    def _session(self, call: Call) -> HookSession:
        key = (call.agent, call.session)
        s = self.live.get(key)
        if s is None:
            self._prune()
            meta = {
                "harness": "hook",
                "agent": call.agent,
                "sessionId": call.session,
                "config": self.settings.engine.model_dump(mode="json"),
            }
            w = self.settings.wrapper
            earlier = resume.find(Path(w.recordings_dir) if w.recordings_dir else recordings_dir(), *key)
            rec = session_recording(w, meta, None, label=f"hook-{call.agent}")
            rec.name_for(call.session)
            s = self.live[key] = HookSession(call.agent, call.session, Breaker(self.settings.engine), rec)
            if earlier is not None:
                self._resume(s, earlier)
        return s

    @staticmethod
    def _resume(s: HookSession, earlier: Path) -> None:
        """A session an earlier server held: its engine fed that server's recording, which is copied into this one."""
        r = resume.replay(earlier, s.breaker)
        s.recorder.write("note", {"what": "resumed", "from": str(earlier), "records": len(r.records)})
        for record in r.records:
            s.recorder.write(str(record["k"]), {k: v for k, v in record.items() if k != "k"})
        s.n, s.calls, s.denied, s.turn, s.turns, s.steps, s.last = (
            r.n,
            r.calls,
            r.denied,
            r.turn,
            r.turns,
            r.steps,
            r.last,
        )

    @staticmethod
    def _new_prompt(s: HookSession, call: Call) -> None:
        """The person prompted again (a new `prompt_id`/`turn_id`): the engine starts a turn, as for dsh and ACP.

        Recorded as dsh's own `user/message` event, so a replay starts the same turn at the same place.
        """
        if not call.turn or call.turn == s.turn:
            return
        first = not s.turn
        s.turn = call.turn
        s.recorder.write("note", {"what": "prompt", "id": call.turn})  # a new server resuming this session reads it
        if first:
            return
        s.turns += 1
        s.steps = []
        msg = {"type": "user/message", "data": {"source": {"kind": "user"}, "content": ""}}
        s.recorder.write("in", {"t": "event", "sessionId": AGENT, "event": msg})
        s.breaker.feed(UserMessage(AGENT, "", "user"))

    def _before(self, s: HookSession, call: Call) -> dict[str, Any]:
        call_id = call.call_id or f"{s.agent}-{s.n}"
        if not call.call_id:
            s.pending.setdefault(_content(call), deque()).append(call_id)
        vid = f"v{s.n}"
        req = {"t": "verdict_request", "id": vid, "sessionId": AGENT, "callId": call_id, "name": call.tool}
        s.recorder.write("in", {**req, "args": call.args})
        v = s.breaker.check_tool(AGENT, call_id, call.tool, call.args)
        reason = refusal(v.rule, v.message) if v.kind != "allow" else ""
        s.recorder.write("out", {"t": "verdict", "id": vid, "kind": v.kind, "message": v.message, "rule": v.rule})
        s.last = v.kind if v.kind == "allow" else f"{v.kind} ({v.rule or 'loop'})"
        s.steps.append(v.kind)
        if self.spans is not None:
            self.spans.before(s.agent, s.session, call_id, call.tool, v.kind, v.rule)
        if v.kind == "deny":  # the agent runs nothing and reports nothing: its refusal is the call's result
            s.denied.add(call_id)
            self._result(s, call_id, call.tool, call.args, v.message, failed=True, dispatched=False)
        if v.kind == "ask":  # the server offers it to a watch, then `settle`s it
            s.asking[call_id] = (vid, call.tool, call.args, reason)
            where = {"session": s.session, "callId": call_id, "tool": call.tool, "args": call.args, "cwd": s.cwd}
            return {"kind": "ask", "reason": reason, "rule": v.rule, "message": v.message, **where}
        return {"kind": v.kind, "reason": reason, "rule": v.rule}

    def settle(self, agent: str, session: str, call_id: str, answer: str | None, why: str = "") -> dict[str, Any]:
        """The answer to an ask the server held: a person's (`allow-once`, `allow-turn`, `deny`), or None.

        None (no one could answer: `why` says how) refuses the call, except for Claude, whose own permission
        prompt then asks the person (in `claude -p` Claude refuses it). The answer is recorded beside the
        ask, as dsh records an approval's.
        """
        s = self.live.get((agent, session))
        held = s.asking.pop(call_id, None) if s is not None else None
        if s is None or held is None:
            return {"error": f"no ask of {agent} session {session} is waiting for call {call_id}"}
        vid, tool, args, asked = held
        self._answered(s, vid, call_id, answer, why)
        if answer is None and agent == "claude":
            return {"kind": "ask", "reason": f"{asked} (breaker-tui watch: {why})", "rule": ""}
        allow = answer in ("allow-once", "allow-turn")
        v = s.breaker.resolve_ask(AGENT, call_id, allow, "turn" if answer == "allow-turn" else "once")
        s.steps.append("allow" if v.kind != "deny" else "deny")
        if v.kind != "deny":
            s.last = "allow (asked)"
            return {"kind": "allow", "reason": "", "rule": ""}
        if allow:  # the person allowed it; the engine refuses it all the same
            reason = refusal(v.rule, v.message)
        elif answer == "deny":
            reason = f"{asked} The user declined it in breaker-tui watch."
        else:
            reason = f"{asked} (this needed the user's answer: {why})"
        s.last = "deny (asked)"
        s.denied.add(call_id)
        self._result(s, call_id, tool, args, reason, failed=True, dispatched=False)
        return {"kind": "deny", "reason": reason, "rule": v.rule or "ask"}

    @staticmethod
    def _answered(s: HookSession, vid: str, call_id: str, answer: str | None, why: str) -> None:
        outcome = "rejected" if answer in (None, "deny") else "allowed-once"
        if answer is None and s.agent == "claude":
            outcome = "asked-agent"  # Claude's own prompt asks the person: what they say is not known here
        rec = {"t": "approval_response", "id": vid, "callId": call_id, "outcome": outcome}
        by = {"answer": answer, "by": "watch"} if answer else {"answer": "none", "by": "nobody", "why": why}
        s.recorder.write("out", {**rec, **by})

    def _after(self, s: HookSession, call: Call) -> None:
        call_id = call.call_id
        if not call_id:
            waiting = s.pending.get(_content(call))
            call_id = waiting.popleft() if waiting else f"{s.agent}-{s.n}"
            if waiting is not None and not waiting:
                del s.pending[_content(call)]
        if call_id in s.denied:
            return
        text = call.text
        failed = call.exit not in (None, 0)
        if self.spans is not None:
            self.spans.after(s.agent, s.session, call_id, failed)
        if failed:
            text = f"{text.rstrip()}\n[exit code: {call.exit}]"  # the framing every harness's shell result has
        self._result(s, call_id, call.tool, call.args, text, failed=failed, dispatched=True)

    @staticmethod
    def _result(s: HookSession, call_id: str, tool: str, args: Any, text: str, failed: bool, dispatched: bool) -> None:
        req = {"t": "result_request", "id": f"r{s.n}", "sessionId": AGENT, "callId": call_id, "name": tool}
        s.recorder.write("in", {**req, "args": args, "isError": failed, "text": text})
        s.breaker.tool_result(AGENT, call_id, tool, args, text, failed, True, dispatched)

    def listing(self) -> list[dict[str, Any]]:
        """Every live session, newest call first, as `watch` shows it."""
        rows = sorted(self.live.values(), key=lambda s: s.seen, reverse=True)
        now = time.monotonic()
        return [
            {
                "agent": s.agent,
                "session": s.session,
                "cwd": s.cwd,
                "calls": s.calls,
                "denials": len(s.denied),
                "last": s.last,
                "idle_s": round(now - s.seen, 1),
                "recording": str(s.recorder.path),
            }
            for s in rows
        ]

    def detail(self, agent: str, session: str) -> dict[str, Any]:
        """One session as `watch`'s panes show it: the engine's scores (its window inside) and this turn's verdicts."""
        s = self.live.get((agent, session))
        if s is None:
            return {"error": f"no live {agent} session {session}"}
        scores = s.breaker.snapshot().get(AGENT)
        return {"scores": asdict(scores) if scores is not None else None, "turn": s.turns, "steps": list(s.steps)}

    def _prune(self) -> None:
        now = time.monotonic()
        for key, s in list(self.live.items()):
            if now - s.seen > IDLE_SESSION_S:
                self.live.pop(key).close()
        while len(self.live) >= MAX_SESSIONS:
            key = min(self.live, key=lambda k: self.live[k].seen)
            self.live.pop(key).close()

    def close(self) -> None:
        """End every recording (the server is stopping)."""
        for s in self.live.values():
            s.close()
        self.live.clear()
        if self.spans is not None:
            self.spans.close()


def _content(call: Call) -> str:
    return call.tool + "\0" + json.dumps(call.args, sort_keys=True, default=str)


def refusal(rule: str, message: str) -> str:
    """The reason the model reads: the engine's words (what repeated, what to do instead) and the rule's name."""
    text = message.strip() or "this call continues a loop"
    return f"breaker-tui refused this call (rule {rule or 'loop'}): {text}"
