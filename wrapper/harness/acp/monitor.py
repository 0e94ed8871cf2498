"""`AcpMonitor`: the decisions about one ACP agent's messages, without any I/O.

The live session, the replay and the unit tests all drive it with the same frames; what it returns
(`Reaction`) says what to show, what to answer and whether to cancel the turn and re-prompt. Tool
calls the agent asks about are checked when it asks (so a denied one is refused before it runs);
calls that never ask are checked when they finish, and a trip cancels the turn.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from engine import events as ev
from engine.breaker import StreamTrip, Verdict
from wrapper.harness.acp.calls import CallState, content_text, obj, option_for, option_names
from wrapper.items import (
    Answer,
    ApprovalItem,
    EngineItem,
    Item,
    Question,
    ResultItem,
    StatusItem,
    TripItem,
    VerdictItem,
)
from wrapper.monitor import Info, Monitor
from wrapper.safetext import inert
from wrapper.settings import Settings

REPEAT_FOLLOWUP = (
    "[breaker-tui] Your turn was stopped because you were repeating the same tool call: {what}. "
    "Its result will not change. Do not run it again; use what you already have or change approach."
)
REASONING_FOLLOWUP = (
    "[breaker-tui] Your reasoning was stopped because it was going in circles ({rule}). "
    "Answer now with what you already know, without re-deliberating."
)
REJECT_KINDS = ("reject_once", "reject_always")
ALLOW_KINDS = ("allow_once", "allow_always")


@dataclass
class Reaction:
    """What to do about one message: show `items`, answer with `reply`, maybe cancel and re-prompt."""

    items: list[Item] = field(default_factory=list)
    reply: dict[str, Any] | None = None  # the result for the agent's request
    cancel: bool = False
    followup: str | None = None  # one prompt to send once the cancelled turn has ended
    question: Question | None = None  # the person must answer (then call `answered`)


def selected(option_id: str | None) -> dict[str, Any]:
    """A permission answer: the chosen option, or `cancelled` when the agent offered none that fits."""
    if option_id is None:
        return {"outcome": {"outcome": "cancelled"}}
    return {"outcome": {"outcome": "selected", "optionId": option_id}}


class AcpMonitor:
    """Feeds the engine from ACP frames and says what to answer and what to show."""

    def __init__(self, settings: Settings, info: Info | None = None, agent_name: str = "agent") -> None:
        self.settings = settings
        self.monitor = Monitor(settings, info or Info())
        self.breaker = self.monitor.breaker
        self.info = self.monitor.info
        self.agent_name = agent_name
        self.calls: dict[str, CallState] = {}
        self.step = 0
        self.after_tool = False
        self.tool_trips = 0  # trips by unasked calls in this (user) turn
        self.reasoning_trips = 0
        self.pending_followup = False
        self.cancelling = False  # a cancel is on its way: later trips of the same turn only show
        self.last_stop = ""

    @property
    def agent(self) -> str:
        """The engine's agent id: the ACP session id."""
        return self.info.session_id or "main"

    # -- turns -------------------------------------------------------------------------------
    def session_started(self, session_id: str, model: str, resumed: bool) -> list[Item]:
        """`session/new` or `session/load` answered."""
        self.info.session_id = session_id
        self.info.model = model
        self.monitor.agent(session_id)
        what = "resumed" if resumed else "ready"
        return [StatusItem("ready", f"{self.agent_name} session {session_id} {what} ({model or 'model unknown'})")]

    def prompt_sent(self, text: str, followup: bool = False) -> list[Item]:
        """A prompt went to the agent: a person's starts a new turn; a follow-up continues it."""
        a = self.agent
        items: list[Item] = []
        if not followup:
            self.info.turn += 1
            self.tool_trips = 0
            self.reasoning_trips = 0
            items.append(self._feed(ev.TurnStart(a, self.info.turn)))
        self.pending_followup = False
        self.info.busy = True
        items.append(self._feed(ev.UserMessage(a, text, "plugin" if followup else "user")))
        items.extend(self._request())
        return items

    def _request(self) -> list[Item]:
        self.step += 1
        self.after_tool = False
        self.info.step = self.step
        self.breaker.request_start(self.agent, self.info.turn)
        return [
            EngineItem(ev.StepStart(self.agent, self.info.turn, self.step)),
            EngineItem(ev.RequestStart(self.agent, self.info.turn, self.step)),
        ]

    def prompt_done(self, result: Any, error: str | None = None) -> list[Item]:
        """The answer to `session/prompt`: the turn ended (unless a follow-up will continue it)."""
        items: list[Item] = []
        if error is not None:
            items.append(StatusItem("warning", f"the prompt failed: {error}"))
            stop = "error"
        else:
            r = result if isinstance(result, dict) else {}
            stop = str(r.get("stopReason") or "end_turn")
            u = obj(r, "usage")
            if u:
                items.append(
                    self._feed(
                        ev.Usage(
                            self.agent,
                            int(u.get("inputTokens") or 0),
                            int(u.get("outputTokens") or 0),
                            int(u.get("thoughtTokens") or u.get("reasoningTokens") or 0),
                        )
                    )
                )
        self.last_stop = stop
        self.cancelling = False
        for c in self.calls.values():  # calls the agent never finished (cancelled): settle them
            if c.verdict is not None and not c.settled:
                items.extend(self._settle(c, failed=True))
        if self.pending_followup:
            return items
        return items + self.end_turn()

    def end_turn(self) -> list[Item]:
        """The turn is over (no follow-up continues it)."""
        self.pending_followup = False
        self.info.busy = False
        return [self._feed(ev.TurnEnd(self.agent, self.info.turn, self.last_stop or "end_turn"))]

    def exit_status(self) -> int:
        """The status a headless run exits with: 0 when the last turn ended normally, else 1."""
        return 0 if self.last_stop in ("end_turn", "") else 1

    def _feed(self, e: ev.Event) -> EngineItem:
        self.monitor._track(e)  # the status line: turn, tokens
        self.breaker.feed(e)
        return EngineItem(e)

    # -- session/update ----------------------------------------------------------------------
    def update(self, params: dict[str, Any]) -> Reaction:
        """One `session/update` notification."""
        u = obj(params, "update")
        kind = u.get("sessionUpdate")
        r = Reaction()
        if kind in ("agent_thought_chunk", "agent_message_chunk"):
            c = obj(u, "content")
            text = c.get("text") if isinstance(c.get("text"), str) else ""
            if not text:
                return r
            if self.after_tool:
                r.items.extend(self._request())
            e: ev.Event = (
                ev.ReasoningDelta(self.agent, text)
                if kind == "agent_thought_chunk"
                else ev.AnswerDelta(self.agent, text)
            )
            trip = self.breaker.feed(e)
            r.items.append(EngineItem(e))
            if trip is not None:
                self._trip(trip, r)
        elif kind in ("tool_call", "tool_call_update"):
            cid = str(u.get("toolCallId") or "")
            if not cid:
                return r
            call = self.calls.get(cid)
            if call is None:
                call = self.calls[cid] = CallState(cid)
            call.merge(u)
            self.after_tool = True
            if call.status in ("completed", "failed") and not call.settled:
                if call.verdict is None:
                    self._check_unasked(call, r)
                r.items.extend(self._settle(call, failed=call.status == "failed"))
        elif kind == "current_mode_update":
            r.items.append(
                StatusItem(
                    "notice", f"{self.agent_name} mode: {inert(str(u.get('currentModeId')), keep_newlines=False)}"
                )
            )
        return r

    def _check(self, call: CallState) -> Verdict:
        name, args = call.engine_call()
        self.monitor.tool_names[call.call_id] = name
        v = self.breaker.check_tool(self.agent, call.call_id, name, args)
        call.verdict = v
        return v

    def _shown(self, call: CallState, v: Verdict) -> list[Item]:
        name, args = call.engine_call()
        return [
            EngineItem(ev.ToolCall(self.agent, call.call_id, name, args)),
            VerdictItem(self.agent, call.call_id, name, args, v),
        ]

    def _check_unasked(self, call: CallState, r: Reaction) -> None:
        """A call that ran without asking: count it; if it trips a rule, cancel the turn."""
        call.ran_unasked = True
        v = self._check(call)
        if v.kind == "ask":  # it already ran: count it as the person's allow would
            v = self.breaker.resolve_ask(self.agent, call.call_id, True)
            call.verdict = v
        r.items.extend(self._shown(call, v))
        if v.kind != "deny":
            return
        mode = self.settings.acp.unasked
        if self.cancelling:
            return
        if mode == "observe":
            r.items.append(
                StatusItem(
                    "notice",
                    inert(call.title or "a call", keep_newlines=False)[:200]
                    + " ran without asking and trips a rule (observed only)",
                )
            )
            return
        self.tool_trips += 1
        self.cancelling = True
        what = ", ".join(h.fp for h in v.hits) or (call.title or "the same call")
        if mode == "reprompt" and self.tool_trips == 1:
            r.cancel = True
            r.followup = REPEAT_FOLLOWUP.format(what=what)
            self.pending_followup = True
            r.items.append(
                StatusItem(
                    "warning",
                    f"a repeated call that never asks ran ({what}); turn cancelled, one follow-up prompt sent",
                )
            )
        else:
            r.cancel = True
            r.items.append(
                StatusItem(
                    "warning", f"a repeated call that never asks ran again ({what}); turn cancelled, over to you"
                )
            )

    def _settle(self, call: CallState, failed: bool) -> list[Item]:
        call.settled = True
        name, args = call.engine_call()
        if call.verdict is None:
            return []
        text = call.output or ("(refused)" if call.refused else "")
        self.breaker.tool_result(self.agent, call.call_id, name, args, text, failed, True, not call.refused)
        return [
            EngineItem(ev.ToolResult(self.agent, call.call_id, name, text, failed)),
            ResultItem(self.agent, call.call_id, name, text, failed, None),
        ]

    # -- stream trips ------------------------------------------------------------------------
    def _trip(self, trip: StreamTrip, r: Reaction) -> None:
        mode = self.settings.acp.reasoning
        if trip.action == "observe" or mode == "observe":
            r.items.append(TripItem(trip, "nothing (observe only)"))
            return
        if self.cancelling:
            r.items.append(TripItem(trip, "nothing more (the turn is being cancelled)"))
            return
        self.reasoning_trips += 1
        self.cancelling = True
        r.cancel = True
        if mode == "reprompt" and trip.action == "abort_retry":
            self.breaker.request_error(trip.agent, trip.failure_message, "ABORTED")  # the one retry is used
            r.followup = REASONING_FOLLOWUP.format(rule=trip.rule)
            self.pending_followup = True
            r.items.append(TripItem(trip, "session/cancel, then one follow-up prompt: answer without re-deliberating"))
        else:
            r.items.append(TripItem(trip, "session/cancel (the turn ends; over to you)"))

    # -- permission requests -----------------------------------------------------------------
    def permission(self, params: dict[str, Any]) -> Reaction:
        """`session/request_permission`: refuse a denied call, ask the person about the rest."""
        tc = obj(params, "toolCall")
        cid = str(tc.get("toolCallId") or "")
        call = self.calls.get(cid) if cid else None
        if call is None:
            call = CallState(cid or f"perm-{len(self.calls)}")
            self.calls[call.call_id] = call
        call.merge({k: v for k, v in tc.items() if k != "status"})
        call.asked = True
        options = params.get("options")
        r = Reaction()
        v = call.verdict or self._check(call)
        r.items.extend(self._shown(call, v))
        if v.kind == "deny" and self.settings.acp.deny == "reject":
            call.refused = True
            r.reply = selected(option_for(options, REJECT_KINDS))
            r.items.append(
                StatusItem(
                    "notice",
                    "refused before it ran (reject_once): "
                    + (v.message.splitlines()[0][:300] if v.message else "repeat"),
                )
            )
            return r
        name, args = call.engine_call()
        if v.kind == "ask":
            q = self.monitor.question_for(self.agent, call.call_id, name, args, v, "")
        else:
            q = Question(
                agent=self.agent,
                call_id=call.call_id,
                tool=name,
                args=args,
                reason=f"{self.agent_name} asks permission for: {inert(call.title or name, keep_newlines=False)[:500]}"
                f" (its options: {inert(option_names(options), keep_newlines=False)[:300]})",
            )
        auto = self.monitor.auto_answer(q)
        if auto is None and v.kind != "ask" and self.settings.acp.agent_asks == "allow":
            auto = "allow-once"
        if auto is not None:
            r2 = self.answered(params, q, auto)
            r.items.extend(r2.items)
            r.reply, r.cancel = r2.reply, r2.cancel
            return r
        r.items.append(ApprovalItem(q))
        r.question = q
        return r

    def answered(self, params: dict[str, Any], q: Question, answer: Answer, by: str = "operator") -> Reaction:
        """The person (or the policy) answered a permission request."""
        options = params.get("options")
        r = Reaction()
        call = self.calls.get(q.call_id or "")
        v = call.verdict if call else None
        allow = answer in ("allow-once", "allow-turn")
        if answer == "allow-turn":
            self.monitor.allow_turn.add((q.agent, self.info.turn))
        if v is not None and v.kind == "ask" and q.call_id:
            v2 = self.breaker.resolve_ask(q.agent, q.call_id, allow)
            if allow and v2.kind == "deny":
                allow = False
                r.items.append(
                    StatusItem("notice", "allowed by you, but the call is still denied: " + v2.message[:200])
                )
        if allow:
            r.reply = selected(option_for(options, ALLOW_KINDS))
        elif answer == "cancel-turn":
            r.reply = selected(None)
            r.cancel = True
        else:
            r.reply = selected(option_for(options, REJECT_KINDS))
        if call is not None and not allow:
            call.refused = True
        r.items.append(ApprovalItem(q, answer, by))
        return r


def text_of_update(u: dict[str, Any]) -> str:
    """The text an update carries (for tests and logs)."""
    return content_text(u.get("content")) if isinstance(u.get("content"), list) else ""
