"""`BridgeMonitor`: the decisions about dsh's bridge messages, without any I/O: shared by live runs and replays."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from engine import events as ev
from engine.breaker import StreamTrip
from engine.tools.safeargs import MARKER
from engine.verdicts import Verdict
from wrapper.harness.dsh import protocol as P
from wrapper.harness.dsh.model_errors import in_words
from wrapper.harness.dsh.normalize import parse_args, to_engine, unpack
from wrapper.harness.dsh.vetting import Ledger
from wrapper.items import (
    Answer,
    EngineItem,
    Item,
    Question,
    ResultItem,
    StatusItem,
    ToolDeltaItem,
    VerdictItem,
)
from wrapper.monitor import Info, Monitor, shell_failed
from wrapper.settings import Settings


@dataclass
class Reaction:
    """What one bridge message asks of a driver: items to show, a reply to send, trips and approvals to act on."""

    items: list[Item] = field(default_factory=list)
    trips: list[StreamTrip] = field(default_factory=list)
    reply: P.Out | None = None
    record: dict[str, Any] = field(default_factory=dict)  # fields recorded with the reply
    approval: P.ApprovalRequest | None = None  # the person must answer: `question`, then `answer`
    ready: bool = False  # a runner reported it takes prompts
    connected: bool = False  # the bridge said hello
    alarm: str | None = None  # a call ran that the monitor did not allow: the session fails closed


ALARM_DENY = (
    "breaker-tui stopped trusting this session ({why}), so no further tool call runs (fail closed). "
    "Restart breaker-tui."
)


class BridgeMonitor(Monitor):
    """Feeds the engine from bridge messages and says what to answer and what to show."""

    def __init__(self, settings: Settings, info: Info | None = None) -> None:
        super().__init__(settings, info)
        self.ledger = Ledger()  # every verdict given, by call id: the check that nothing ran without one
        self.endpoint = ""  # the model endpoint, named in a failed request's line (set by the session)
        self._model_error = ""  # dsh's text of the last failed request: its echo as an agent error is not repeated

    def _alarm(self, r: Reaction, why: str | None) -> None:
        if why is not None:
            r.alarm = why
            r.items.append(StatusItem("error", f"ALARM: {why}. breaker-tui now denies every call (fail closed)."))

    # -- the one dispatcher -----------------------------------------------------------------------
    def handle(self, msg: P.Inbound) -> Reaction:
        """Every bridge message, decided in one place: live sessions, replays and scripted sources call this."""
        if isinstance(msg, P.EventMsg):
            return self.handle_event(msg.sessionId, msg.event)
        r = Reaction()
        if isinstance(msg, P.Hello):
            self.info.bridge = "connected"
            r.connected = True
            r.items.append(StatusItem("bridge", f"bridge connected (dsh pid {msg.pid})"))
        elif isinstance(msg, P.Tripwire):
            self.tripwire(msg, r)
        elif isinstance(msg, P.VerdictRequest):
            r.reply, item = self.verdict(msg)
            r.record = {"verdict": item.verdict.to_dict(), "callId": item.call_id, "sessionId": item.agent}
            r.items.append(item)
        elif isinstance(msg, P.ResultRequest):
            why = self.ledger.ran(msg.callId or msg.id, msg.name, msg.text, msg.isError)
            r.reply, ritem = self.result(msg)
            reason = ritem.rewrite.reason if ritem.rewrite else None
            r.record = {"callId": ritem.call_id, "sessionId": ritem.agent, "reason": reason}
            r.items.append(ritem)
            self._alarm(r, why)
        elif isinstance(msg, P.ApprovalRequest):
            r.approval = msg
        elif isinstance(msg, P.RequestStart):
            r.items = self.request_start(msg)
        elif isinstance(msg, P.RequestErrorMsg):
            r.items = self.request_error(msg)
        else:
            r.items = self.lifecycle(msg)
            r.ready = isinstance(msg, P.Ready)
        return r

    def handle_event(self, session_id: str | None, event: dict[str, Any]) -> Reaction:
        """An `event` message: what `handle` does with one (a replay hands over those it has checked itself)."""
        r = Reaction()
        r.items, r.trips = self.event(session_id or "main", event)
        self._alarm(r, self._unvetted_result(event))
        return r

    def _unvetted_result(self, event: dict[str, Any]) -> str | None:
        """A `tool/result` event for a call that ran (not an error) without any verdict."""
        # `unpack` passes a `tool/result` through as it is and expands packed rows into chunks only
        if event.get("type") != "tool/result":
            return None
        data = event.get("data")
        m = data.get("message") if isinstance(data, dict) else None
        if isinstance(m, dict) and m.get("isError") is not True and isinstance(m.get("callId"), str):
            return self.ledger.ran(m["callId"], str(m.get("name") or ""), None)
        return None

    def tripwire(self, msg: P.Tripwire, r: Reaction) -> None:
        """What the bridge's tripwires saw: an unvetted call is an alarm, a vetoed listener an error."""
        if msg.kind == "unvetted":
            why = (
                f"{msg.name or 'a tool'} call {msg.callId} was answered by another dsh plugin before the bridge "
                f"({msg.detail[:200]}); the bridge's guard refused it"
            )
            self.ledger.alarm = self.ledger.alarm or why
            self._alarm(r, why)
        elif msg.kind == "listener":
            r.items.append(
                StatusItem("error", f"ALARM: a dsh plugin loaded during the session hooked {msg.detail[:200]}")
            )
        # `patch-watch`: the bridge refused dsh's live watch on a user patch layer, as it does at
        # every boot; recorded with the message, nothing to show

    # -- the feed --------------------------------------------------------------------------------
    def event(self, agent: str, event: dict[str, Any]) -> tuple[list[Item], list[StreamTrip]]:
        """One dsh session event: the items to show and any stream trips."""
        self.agent(agent)
        items: list[Item] = []
        trips: list[StreamTrip] = []
        for e in unpack(event):
            data = e.get("data") or {}
            if e.get("type") == "assistant/chunk":
                chunk = data.get("chunk") or {}
                if chunk.get("type") == "tool-call-delta":
                    cid = str(chunk.get("id", ""))
                    if chunk.get("name"):
                        self.tool_names[cid] = str(chunk["name"])
                    items.append(
                        ToolDeltaItem(agent, cid, self.tool_names.get(cid, ""), str(chunk.get("argumentsDelta", "")))
                    )
                    continue
            for engine_event in to_engine(agent, e):
                self._track(engine_event)
                trip = self.breaker.feed(engine_event)
                items.append(EngineItem(engine_event))
                if trip is not None:
                    trips.append(trip)
        return items, trips

    def request_start(self, msg: P.RequestStart) -> list[Item]:
        """A model stream begins: fresh lenses for that agent."""
        self.breaker.request_start(msg.sessionId, msg.turn, msg.purpose)
        self.agent(msg.sessionId)
        if msg.purpose is not None:
            return []
        return [EngineItem(ev.RequestStart(msg.sessionId, msg.turn, msg.step, msg.purpose))]

    def request_error(self, msg: P.RequestErrorMsg) -> list[Item]:
        """Keep the engine's retry bookkeeping in step with dsh."""
        if msg.sessionId:
            self.breaker.request_error(msg.sessionId, msg.message, msg.code)
        if msg.ours:
            return []
        self._model_error = msg.message
        return [StatusItem("warning", in_words(msg.code, msg.message, self.endpoint))]

    def lifecycle(self, msg: P.Inbound) -> list[Item]:
        """Ready / status / agent messages: update the status line."""
        info = self.info
        if isinstance(msg, P.Ready):
            info.session_id = msg.sessionId or info.session_id
            info.provider = msg.provider or ""
            info.model = msg.model or ""
            self.agent(msg.sessionId or "")
            what = "resumed" if msg.resumed else "ready"
            return [StatusItem("ready", f"session {msg.sessionId} {what} ({msg.model})", {"resumed": msg.resumed})]
        if isinstance(msg, P.StatusMsg):
            if msg.sessionId == info.session_id or not info.session_id:
                info.busy = msg.status == "running"
            return [StatusItem("agent-status", msg.status or "", {"agent": msg.sessionId})]
        if isinstance(msg, P.AgentCreated):
            if msg.sessionId:
                self.agent(msg.sessionId)
                if not info.session_id and msg.depth == 0:
                    info.session_id = msg.sessionId
            return []
        if isinstance(msg, P.AgentError):
            if self._model_error and self._model_error in msg.message:  # the failed request, said once already
                self._model_error = ""
                return []
            return [StatusItem("warning", f"agent error: {msg.message}")]
        if isinstance(msg, P.RunnerError):
            return [StatusItem("error", f"the bridge runner failed: {msg.message}")]
        if isinstance(msg, P.StreamAborted):
            return [StatusItem("aborted", f"model stream aborted for {msg.sessionId}")]
        return []

    # -- tools -----------------------------------------------------------------------------------
    def verdict(self, msg: P.VerdictRequest) -> tuple[P.Verdict, VerdictItem]:
        """Decide a call before it runs."""
        agent = msg.sessionId or "main"
        call_id = msg.callId or msg.id
        args = parse_args(msg.args)
        v = self.breaker.check_tool(agent, call_id, msg.name, args)
        if self.ledger.alarm is not None:
            v = Verdict("deny", ALARM_DENY.format(why=self.ledger.alarm[:200]), rule="alarm")
        self.ledger.verdict(call_id, v.kind, v.message)
        if v.kind == "deny":
            self.denied.add(call_id)
        elif v.kind == "ask":
            self.asked[call_id] = v
        reply = P.Verdict(id=msg.id, kind=v.kind, message=v.message if v.kind != "allow" else "")
        return reply, VerdictItem(agent, call_id, msg.name, args, v)

    def question(self, msg: P.ApprovalRequest) -> Question:
        """What the person is asked: the whole call, the breaker's hits when the ask is ours, the earlier repeats."""
        agent = msg.sessionId or "main"
        call_id = msg.callId
        asked = self.asked.get(call_id) if call_id else None
        tool_name, args = self.breaker.call_of(agent, call_id) if call_id else ("", None)
        fps = tuple(h.fp for h in asked.hits) if asked else ()
        return Question(
            agent=agent,
            call_id=call_id,
            tool=msg.toolName or tool_name,
            args=args,
            reason=msg.reason or "",
            hits=asked.hits if asked else (),
            local=bool(asked and asked.local),
            from_breaker=asked is not None,
            id=msg.id,
            earlier=(self.breaker.earlier(agent, call_id, fps) if asked else self.breaker.repeats_of(agent, call_id))
            if call_id
            else (),
            hidden=hidden_part(args),
        )

    def answer(self, msg: P.ApprovalRequest, q: Question, answer: Answer) -> P.ApprovalResponse:
        """Apply an answer to this one approval and build the reply.

        allow-turn widens only the breaker's own local-address ask (the engine then lets the same local
        fingerprints repeat for the rest of the turn); for any other approval (a sandbox escalation, a
        permission dsh asks for) it is this call only, like allow-once. Nothing here answers a later question.
        """
        call_id = q.call_id
        asked = self.asked.pop(call_id, None) if call_id else None
        deny_text: str | None = None
        if answer in ("allow-once", "allow-turn"):
            outcome = "allowed-once"
            if asked is not None and call_id:
                scope: Literal["once", "turn"] = "turn" if answer == "allow-turn" else "once"
                v = self.breaker.resolve_ask(q.agent, call_id, True, scope)
                if v.kind == "deny":
                    deny_text = v.message
                    self.denied.add(call_id)
        else:
            outcome = "cancelled" if answer == "cancel-turn" else "rejected"
            if call_id:
                self.denied.add(call_id)
                if asked is not None:
                    self.breaker.resolve_ask(q.agent, call_id, False)
        if call_id:
            self.ledger.answered(call_id, outcome == "allowed-once", deny_text)
        return P.ApprovalResponse(id=msg.id, outcome=outcome, deny=deny_text)

    def result(self, msg: P.ResultRequest) -> tuple[P.ResultResponse, ResultItem]:
        """A call finished: settle, count, maybe steer or add the post-trip hint."""
        agent = msg.sessionId or "main"
        call_id = msg.callId or msg.id
        dispatched = call_id not in self.denied
        self.denied.discard(call_id)
        failed = msg.isError or shell_failed(msg.name, msg.text)
        rw = self.breaker.tool_result(
            agent, call_id, msg.name, parse_args(msg.args), msg.text, failed, not msg.parent, dispatched
        )
        reply = P.ResultResponse(id=msg.id, mode=rw.mode if rw else "keep", text=rw.text if rw else None)
        return reply, ResultItem(agent, call_id, msg.name, msg.text, failed, rw)

    def trip_command(self, trip: StreamTrip) -> P.Abort | None:
        """The abort to send for a trip (None while enforcement is paused)."""
        if trip.action not in ("abort_retry", "abort"):
            return None
        return P.Abort(
            sessionId=trip.agent,
            retry=trip.action == "abort_retry",
            thinkingOff=self.settings.engine.thinking.retry_without_thinking,
            message=trip.failure_message,
        )


def hidden_part(args: Any) -> str:
    """What of a call the bridge did not send (its arguments were over the channel's size limit), in words."""
    if not (isinstance(args, dict) and args.get(MARKER) is True):
        return ""
    preview = args.get("preview")
    shown = len(preview) if isinstance(preview, str) else 0
    size = args.get("bytes")
    digest = str(args.get("sha256") or "")[:16]
    total = f"{size:,} bytes" if isinstance(size, int) else "an unknown size"
    return (
        f"only the first {shown:,} characters of these arguments ({total}, sha256 {digest}…) reached "
        "breaker-tui: the rest cannot be shown, so what would run is not known; deny unless you can check it"
    )
