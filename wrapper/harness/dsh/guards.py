"""The session's run-level guards: stalls, walled turns, questions the bridge gave up on, unreadable lines.

These are the places where the monitor must tell the truth about what the agent really got: a
verdict that arrived too late was a denial, a line we could not read still gets a fail-closed
answer, a turn whose every call is denied is ended (the model ignores the walls), and a model that
has gone silent mid-request is pointed out. `DenialStreak` and `StallWatch` do the counting.
"""

from __future__ import annotations

import asyncio

from wrapper.harness.dsh import protocol as P
from wrapper.harness.dsh.owner import BridgeOwner
from wrapper.items import StatusItem
from wrapper.watch import DenialStreak, StallWatch


class Guards:
    """Owned by a `Session`; it feeds `activity()` every bridge message and `denials` every verdict."""

    def __init__(self, session: BridgeOwner) -> None:
        self.s = session
        w = session.settings.wrapper
        self.denials = DenialStreak(w.max_consecutive_denials)
        self.stalls = StallWatch(w.stall_warn_s)
        self.verdict_ids: dict[str, tuple[str, str, str]] = {}  # bridge id -> (agent, call id, tool)

    def asked(self, bridge_id: str, agent: str, call_id: str, tool: str) -> None:
        """Remember which call a verdict request was about (bounded), for a later timeout report."""
        self.verdict_ids[bridge_id] = (agent, call_id, tool)
        while len(self.verdict_ids) > 4096:
            del self.verdict_ids[next(iter(self.verdict_ids))]

    def activity(self, msg: P.Inbound) -> None:
        """Keep the stall watch in step: which requests are open, and when each last sent something."""
        loop_now = asyncio.get_running_loop().time()
        if isinstance(msg, P.RequestStart):
            if msg.purpose is None:
                self.stalls.open(msg.sessionId, loop_now)
        elif isinstance(msg, P.EventMsg):
            agent = msg.sessionId or "main"
            t = msg.event.get("type")
            chunk = (msg.event.get("data") or {}).get("chunk") if isinstance(msg.event.get("data"), dict) else None
            done = t in ("assistant/message", "turn/end", "step/end") or (
                isinstance(chunk, dict) and chunk.get("type") == "finish"
            )
            if done:
                self.stalls.close(agent)
            else:
                self.stalls.activity(agent, loop_now)
        elif isinstance(msg, (P.StreamAborted, P.RequestErrorMsg)) and msg.sessionId:
            self.stalls.close(msg.sessionId)

    async def stall_loop(self) -> None:
        """Warn (once per silence) when an open model request has sent nothing for `stall_warn_s`."""
        after = self.s.settings.wrapper.stall_warn_s
        if after <= 0:
            return
        loop = asyncio.get_running_loop()
        while True:
            await asyncio.sleep(min(1.0, after / 4))
            for agent, silent in self.stalls.due(loop.time()):
                text = (
                    f"the model has sent nothing for {silent:.0f} s while a request is open"
                    f" ({'the main agent' if agent == self.s.info.session_id else agent}); esc cancels the turn"
                )
                self.s._record("note", {"what": "stall", "agent": agent, "silent_s": round(silent, 1)})
                self.s._emit(StatusItem("warning", text, {"stall": agent}))

    def closed(self, msg: P.Closed) -> None:
        """The bridge gave up waiting: record what the agent really got."""
        if msg.what == "approval_request":
            self.s.approvals.close(msg.id, "nobody answered in time; the bridge declined it", by="timeout")
            return
        if msg.what == "verdict_request":
            agent, call_id, tool = self.verdict_ids.pop(msg.id, ("", "", ""))
            if call_id:
                self.s.monitor.denied.add(call_id)
            self.s._record(
                "out",
                {"t": "verdict", "id": msg.id, "kind": "deny", "timeout": True, "callId": call_id, "sessionId": agent},
            )
            self.s._emit(
                StatusItem(
                    "warning",
                    f"the verdict on {tool or 'a tool call'} {call_id} was too late: dsh denied the call "
                    f"after {self.s.settings.wrapper.verdict_timeout_s:g} s (fail closed)",
                )
            )
        elif msg.what == "result_request":
            self.s._record("note", {"what": "result-timeout", "id": msg.id})

    async def on_bad(self, e: P.BadMessage) -> None:
        """A question the bridge asked in a line we could not read is still answered, fail-closed."""
        if not e.id:
            return
        if e.t == "verdict_request":
            why = f"breaker-tui could not read this tool call ({e}), so it was not run (fail closed)."
            await self.s._send(P.Verdict(id=e.id, kind="deny", message=why), {"unreadable": True})
            self.s._emit(StatusItem("warning", f"denied a tool call breaker-tui could not read: {e}"))
        elif e.t == "approval_request":
            await self.s._send(P.ApprovalResponse(id=e.id, outcome="rejected"), {"unreadable": True})
        elif e.t == "result_request":
            await self.s._send(P.ResultResponse(id=e.id, mode="keep"), {"unreadable": True})

    async def end_walled_turn(self, agent: str) -> None:
        """A turn whose tool calls are all being denied is going nowhere: cancel it and say why."""
        n = self.s.settings.wrapper.max_consecutive_denials
        who = "" if agent in (self.s.info.session_id, "main") else f" (agent {agent})"
        text = (
            f"ended the turn: {n} tool calls in a row were denied{who}, so the model was not getting anywhere "
            "(`max_consecutive_denials` in [wrapper])"
        )
        self.s._record("note", {"what": "denial-storm", "agent": agent, "denials": n})
        self.s._emit(StatusItem("warning", text, {"denial_storm": agent}))
        await self.s.cancel()
