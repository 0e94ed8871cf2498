"""`AcpMonitor`: the decisions about one ACP agent's messages, without any I/O.

The live session, the replay and the unit tests all drive it with the same frames; what it returns
(`Reaction`) says what to show, what to answer and whether to cancel the turn and re-prompt. Tool
calls the agent asks about are checked when it asks (so a denied one is refused before it runs);
calls that never ask are checked when they finish, and a trip cancels the turn.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Any, Literal

from engine import events as ev
from engine.breaker import StreamTrip
from wrapper.harness.acp.calls import CallState, obj
from wrapper.harness.acp.own import OwnSettings
from wrapper.harness.acp.permissions import Permissions
from wrapper.harness.acp.reaction import Reaction, selected
from wrapper.harness.acp.shown import Shown
from wrapper.harness.acp.view import output_of
from wrapper.items import (
    CallItem,
    EngineItem,
    Item,
    ResultItem,
    StatusItem,
    TripItem,
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


class AcpMonitor(Permissions):
    """Feeds the engine from ACP frames and says what to answer and what to show."""

    def __init__(self, settings: Settings, info: Info | None = None, agent_name: str = "agent") -> None:
        self.settings = settings
        self.monitor = Monitor(settings, info or Info())
        self.breaker = self.monitor.breaker
        self.info = self.monitor.info
        self.agent_name = agent_name
        self.calls: dict[str, CallState] = {}  # the agent's id -> its current occurrence (pruned when settled)
        self.seen: OrderedDict[str, int] = OrderedDict()  # occurrences per id (bounded): a reused id is a new call
        self.done: OrderedDict[str, None] = OrderedDict()  # ids whose current occurrence finished (bounded)
        self.step = 0
        self.after_tool = False
        self.tool_trips = 0  # trips by unasked calls in this (user) turn
        self.pending_followup = False
        self.cancelling = False  # a cancel is on its way: later trips of the same turn only show
        self.last_stop = ""
        self.denied_this_turn = False  # a call was refused (or tripped) in this turn
        self.keep_window = False  # the last turn ended on a refusal: the next message is no reset
        self.own: OwnSettings | None = None  # the person's own agent settings (answer for them), `own.py`
        self.quotes_prompt = False  # the agent drops a cancelled prompt (set from the preset)
        self.last_prompt = ""  # the person's last message (quoted where the agent drops a cancelled one)
        self.shown = Shown(agent_name)  # the plan, the commands and the choices the agent sent
        self.alarm: str | None = None  # a refused call ran anyway: nothing the agent asks is allowed again

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
        source: Literal["user", "plugin", "other"] = "plugin" if followup else "user"
        if not followup:
            self.info.turn += 1
            self.tool_trips = 0
            self.last_prompt = text
            items.append(self._feed(ev.TurnStart(a, self.info.turn)))
            if self.keep_window:
                # "go on" after a turn that ended on a refusal is not a fresh start for the loop: the
                # window keeps its counts (the explicit reset key still clears them)
                source = "other"
            self.keep_window = False
            self.denied_this_turn = False
        self.pending_followup = False
        self.info.busy = True
        items.append(self._feed(ev.UserMessage(a, text, source)))
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
        for c in list(self.calls.values()):  # calls the agent never finished (cancelled): settle them
            if c.verdict is not None and not c.settled:
                items.extend(self._settle(c, failed=True))
        for cid in [k for k, c in self.calls.items() if c.verdict is None and not c.asked]:
            del self.calls[cid]  # announced and never judged: nothing more will come of it
        if self.pending_followup:
            return items
        return items + self.end_turn()

    def followup_text(self, text: str) -> str:
        """The follow-up as sent: where the agent drops a cancelled turn's prompt (Gemini), it quotes the task."""
        if not self.quotes_prompt or not self.last_prompt:
            return text
        return f"{text}\n\nThe task you were working on (the person's message in that turn):\n{self.last_prompt}"

    def end_turn(self) -> list[Item]:
        """The turn is over (no follow-up continues it)."""
        self.pending_followup = False
        self.info.busy = False
        self.keep_window = self.denied_this_turn
        return [self._feed(ev.TurnEnd(self.agent, self.info.turn, self.last_stop or "end_turn"))]

    def exit_status(self) -> int:
        """The status a headless run exits with: 0 when the last turn ended normally, else 1."""
        return 0 if self.last_stop in ("end_turn", "") and self.alarm is None else 1

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
            cid = u.get("toolCallId")
            if not isinstance(cid, str) or not cid:
                return r
            call = self._call_for(cid, announced=kind == "tool_call")
            if call is None:
                return r  # a late update of a call already finished
            call.merge(u)
            self.after_tool = True
            if call.refused and not call.settled and (why := ran_anyway(call, u, self.agent_name)):
                self._raise_alarm(why, r)
            if call.status in ("completed", "failed") and not call.settled:
                if call.verdict is None:
                    self._check_unasked(call, r)
                failed = call.status == "failed" or (call.exit_code is not None and call.exit_code != 0)
                r.items.extend(self._settle(call, failed=failed))
            r.items.append(self.call_item(call))
            if call.status == "completed" and "todos" in call.raw:
                r.items.extend(self.shown.todo_call(call.raw, call.status, self.agent))
        elif kind == "current_mode_update":
            mode = str(u.get("currentModeId") or "")
            changed = self.shown.mode_changed(mode)
            if changed:  # the echo of a switch already shown (ours, as the agent accepted it) is not news
                r.items.append(StatusItem("notice", f"{self.agent_name} mode: {self.mode_name(mode)}"))
            r.items.extend(changed)
        else:
            if kind in ("plan", "plan_update"):
                # a plan comes from the agent's todo tool (Claude Code reports its TodoWrite so, not as a
                # call): what is said after it comes from the model's next request, as after any call
                self.after_tool = True
            r.items.extend(self.shown.update(u, self.agent))
        return r

    def mode_name(self, mode: str) -> str:
        """How the agent names `mode` in its list of modes (`Plan` for `plan`), inert; the id when it lists none."""
        for c in self.shown.choices:
            if c.category == "mode":
                name = next((o.name for o in c.options if o.value == mode), "")
                if name:
                    return inert(name, keep_newlines=False)
        return inert(mode, keep_newlines=False)

    def _raise_alarm(self, why: str, r: Reaction) -> None:
        """The ledger's rule, as on the dsh path: a refused call that produced a result ran against the
        answer, so the agent is no longer trusted: the turn is cancelled and the agent stopped.
        """
        self.alarm = self.alarm or why
        r.alarm = why
        r.cancel = True
        r.followup = None
        self.pending_followup = False
        r.items.append(StatusItem("error", f"ALARM: {why}. breaker-tui stops the agent (fail closed)."))

    def call_item(self, call: CallState) -> CallItem:
        """What the screen shows of `call` now (the whole record: the list replaces its row)."""
        return CallItem(
            self.agent,
            call.call_id,
            call.title or call.name,
            call.kind,
            call.status,
            tuple(call.diffs),
            call.output,
            call.exit_code,
        )

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
        self.denied_this_turn = True
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
        self._finished(call)
        name, args = call.engine_call()
        if call.verdict is None:
            return []
        text = call.output or ("(refused)" if call.refused else "")
        self.breaker.tool_result(
            self.agent, call.call_id, name, args, text, failed, True, not call.refused, call.exit_code
        )
        return [ResultItem(self.agent, call.call_id, name, text, failed, None)]

    # -- stream trips ------------------------------------------------------------------------
    def _trip(self, trip: StreamTrip, r: Reaction) -> None:
        mode = self.settings.acp.reasoning
        if trip.action == "observe" or mode == "observe":
            r.items.append(TripItem(trip, "nothing (observe only)"))
            return
        if self.cancelling:
            r.items.append(TripItem(trip, "nothing more (the turn is being cancelled)"))
            return
        self.cancelling = True
        r.cancel = True
        if mode == "reprompt" and trip.action == "abort_retry":
            self.breaker.request_error(trip.agent, trip.failure_message, "ABORTED")  # the one retry is used
            r.followup = REASONING_FOLLOWUP.format(rule=trip.rule)
            self.pending_followup = True
            r.items.append(TripItem(trip, "session/cancel, then one follow-up prompt: answer without re-deliberating"))
        else:
            r.items.append(TripItem(trip, "session/cancel (the turn ends; over to you)"))


# the first words of a report that says the call did not run (some agents report a refusal as text)
_REFUSAL_WORDS = ("reject", "denied", "declin", "refused", "cancel", "not allowed", "permission")


def ran_anyway(call: CallState, u: dict[str, Any], agent: str) -> str | None:
    """Why this update of a call we refused shows that it ran (it reports progress or a result with
    content that is not a refusal), or None.
    """
    status = u.get("status")
    if status not in ("in_progress", "completed"):
        return None
    out = output_of(u)
    text = (out[0] if out is not None else "").strip()
    if not text or any(w in text[:120].lower() for w in _REFUSAL_WORDS):
        return None
    return (
        f"{inert(call.title or call.name or 'a call', keep_newlines=False)[:120]} ({call.call_id}) was refused by"
        f" breaker-tui but {agent} reported it {status} with output: refused calls ran"
    )


__all__ = ["AcpMonitor", "Reaction", "ran_anyway", "selected"]
