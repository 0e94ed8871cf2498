"""Permission requests from an ACP agent: refuse what the engine denies, ask the person about the rest.

A mixin of `AcpMonitor` (it shares the monitor's state): the check of a call (at the agent's request, or
when an unasked call finishes) and the answers to `session/request_permission`.
"""

from __future__ import annotations

import itertools
from collections import OrderedDict
from typing import Any

from engine import events as ev
from engine.breaker import Breaker, Verdict
from wrapper.harness.acp.calls import CallState, obj, option_for, option_names
from wrapper.harness.acp.own import OwnSettings
from wrapper.harness.acp.reaction import REJECT_KINDS, Reaction, selected
from wrapper.items import Answer, ApprovalItem, CallItem, EngineItem, Item, Question, StatusItem, VerdictItem
from wrapper.monitor import Info, Monitor
from wrapper.safetext import inert
from wrapper.settings import Settings

REFUSED_FOLLOWUP = "[breaker-tui] Your last tool call was refused before it ran, and it will be again.\n\n"
ID_MEMORY = 4096  # call ids remembered for telling a reused id from a late update


class Permissions:
    """The tool-call checks and the permission answers of `AcpMonitor`."""

    _perm_seq = itertools.count(1)

    settings: Settings
    monitor: Monitor
    breaker: Breaker
    info: Info
    agent_name: str
    calls: dict[str, CallState]
    cancelling: bool
    pending_followup: bool
    tool_trips: int
    denied_this_turn: bool
    own: OwnSettings | None
    seen: OrderedDict[str, int]
    done: OrderedDict[str, None]
    alarm: str | None

    def _call_for(self, cid: str, announced: bool = False, asked: bool = False) -> CallState | None:
        """The call an id names now: a new occurrence when the id was used by a call already asked or finished.

        Ids are the agent's (often the model server's): some hand out `call_0` every time, and an id may
        come back after a restart. A `tool_call` for an id whose call finished, or a second permission
        request for it, is a new call, judged again; a mere update of a finished call is stale (None).
        (Codex announces a call after asking about it: that is the same call.) The engine sees each
        occurrence under its own id (`call_0#2`, ...).
        """
        call = self.calls.get(cid)
        if call is not None and not (asked and call.asked):
            return call
        if call is None and cid in self.done and not (announced or asked):
            return None
        n = self.seen.pop(cid, 0) + 1
        self.seen[cid] = n
        if len(self.seen) > ID_MEMORY:
            self.seen.popitem(last=False)
        self.done.pop(cid, None)
        call = self.calls[cid] = CallState(cid if n == 1 else f"{cid}#{n}", acp_id=cid)
        return call

    def _tell_the_model(self, v: Verdict, r: Reaction) -> None:
        """After the first refusal of a turn, the model gets the breaker's reason and the previous result.

        ACP has no text for a rejection: the agent tells the model only "the user rejected permission".
        So the turn is cancelled and one follow-up carries the engine's message (which quotes the earlier
        result), whether the agent would have ended the turn (opencode, Codex) or gone on (Claude, Gemini).
        Later refusals of the same turn are refused only.
        """
        self.denied_this_turn = True
        if self.cancelling or self.tool_trips > 0 or self.settings.acp.unasked == "observe":
            return
        self.tool_trips += 1
        self.cancelling = True
        self.pending_followup = True
        r.cancel = True
        r.followup = REFUSED_FOLLOWUP + (v.message or "it repeats a call already made in this window.")
        r.items.append(StatusItem("notice", "the model is told why, with the previous result (one follow-up)"))

    def _finished(self, call: CallState) -> None:
        """A settled call leaves the live table (per-call state stays bounded over a long session)."""
        if self.calls.get(call.acp_id) is call:
            del self.calls[call.acp_id]
            self.done[call.acp_id] = None
            if len(self.done) > ID_MEMORY:
                self.done.popitem(last=False)
        self.monitor.tool_names.pop(call.call_id, None)

    @property
    def agent(self) -> str:
        """The engine's agent id: the ACP session id."""
        return self.info.session_id or "main"

    def call_item(self, call: CallState) -> CallItem:
        """What the screen shows of `call` (`AcpMonitor.call_item`)."""
        raise NotImplementedError

    def _check(self, call: CallState) -> Verdict:
        name, args = call.engine_call()
        self.monitor.tool_names[call.call_id] = name
        v = self.breaker.check_tool(self.agent, call.call_id, name, args, ran=call.ran_unasked)
        call.verdict = v
        return v

    def _shown(self, call: CallState, v: Verdict) -> list[Item]:
        name, args = call.engine_call()
        return [
            EngineItem(ev.ToolCall(self.agent, call.call_id, name, args)),
            VerdictItem(self.agent, call.call_id, name, args, v, ran=call.ran_unasked),
        ]

    # -- permission requests -----------------------------------------------------------------
    def permission(self, params: dict[str, Any]) -> Reaction:
        """`session/request_permission`: refuse a denied call, ask the person about the rest."""
        tc = obj(params, "toolCall")
        raw_id = tc.get("toolCallId")
        cid = raw_id if isinstance(raw_id, str) and raw_id else f"perm-{next(self._perm_seq)}"
        call = self._call_for(cid, asked=True)
        assert call is not None  # an ask always names a call
        call.merge({k: v for k, v in tc.items() if k != "status"})
        call.asked = True
        options = params.get("options")
        r = Reaction()
        v = self._check(call)
        if self.alarm is not None:  # a refused call ran: nothing this agent asks is allowed any more
            v = Verdict("deny", f"breaker-tui stopped trusting this agent ({self.alarm[:200]})", rule="alarm")
            call.verdict = v
        r.items.extend(self._shown(call, v))
        r.items.append(self.call_item(call))  # opencode sends an edit's diff only here
        if v.kind == "deny" and (self.settings.acp.deny == "reject" or self.alarm is not None):
            call.refused = True
            r.reply = selected(option_for(options, REJECT_KINDS))
            r.items.append(
                StatusItem(
                    "notice",
                    "refused before it ran (reject_once): "
                    + (v.message.splitlines()[0][:300] if v.message else "repeat"),
                )
            )
            self._tell_the_model(v, r)
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
                f" ({whose_ask(v)}; its options: {inert(option_names(options), keep_newlines=False)[:300]})"
                + no_once_note(options),
                earlier=self.monitor.breaker.repeats_of(self.agent, call.call_id),
            )
        auto = self.monitor.auto_answer(q, v)  # only a call an allow-for-the-turn covers
        if auto is None and v.kind != "ask" and self.settings.acp.agent_asks == "allow":
            auto = "allow-once", "[acp] agent_asks = allow"
        by = "engine" if auto is not None and v.kind == "allow" and v.note == "approved" else "policy"
        if auto is None and v.kind == "allow" and self.own is not None:
            # the engine has no objection: the person's own settings decide, as their agent would have
            command = args.get("command", "") if isinstance(args, dict) else ""
            mine = self.own.decide(call.kind, call.name, command if isinstance(command, str) else "")
            if mine in ("allow", "deny"):
                auto = (
                    ("allow-once" if mine == "allow" else "deny"),
                    f"your {self.agent_name} settings: {self.own.source}",
                )
                by = "policy"
        if auto is not None:
            r2 = self.answered(params, q, auto[0], by, auto[1])
            r.items.extend(r2.items)
            r.reply, r.cancel = r2.reply, r2.cancel
            return r
        r.items.append(ApprovalItem(q))
        r.question = q
        return r

    def answered(
        self, params: dict[str, Any], q: Question, answer: Answer, by: str = "person", why: str = ""
    ) -> Reaction:
        """The person (or the policy, the engine, a timeout: `by`) answered a permission request.

        The agent's options are mapped faithfully: "allow once" is only ever its `allow_once`; when it
        offers none, the call is refused and the person is told that only "allow for the turn" uses
        the agent's own "always" (which stops it asking about that tool).
        """
        options = params.get("options")
        r = Reaction()
        call = next((c for c in self.calls.values() if c.call_id == q.call_id), None)
        v = call.verdict if call else None
        allow = answer in ("allow-once", "allow-turn")
        if v is not None and v.kind == "ask" and q.call_id:
            # allow-turn widens only the breaker's local ask, to the same local fingerprints (the engine keeps it)
            v2 = self.breaker.resolve_ask(q.agent, q.call_id, allow, "turn" if answer == "allow-turn" else "once")
            if allow and v2.kind == "deny":
                allow = False
                r.items.append(
                    StatusItem("notice", "allowed by you, but the call is still denied: " + v2.message[:200])
                )
        once = option_for(options, ("allow_once",))
        if allow and answer == "allow-once" and once is None:
            allow = False
            r.items.append(
                StatusItem(
                    "notice",
                    f"{self.agent_name} offers no 'allow once' for this call, only "
                    f"{inert(option_names(options), keep_newlines=False)[:200] or 'nothing'}: refused. Answer "
                    "'allow for the turn' to use its 'always allow' (it then stops asking about this tool)",
                )
            )
        if allow:
            r.reply = selected(once or option_for(options, ("allow_always",)))
        elif answer == "cancel-turn":
            r.reply = selected(None)
            r.cancel = True
        else:
            r.reply = selected(option_for(options, REJECT_KINDS))
        if call is not None and not allow:
            call.refused = True
        r.items.append(ApprovalItem(q, answer, by, why))
        return r


def whose_ask(v: Verdict) -> str:
    """Whose question a permission request the breaker did not raise is: the agent's own, and what the check found.

    The person then knows that this ask is no repeat (the agent's own settings or defaults want it
    confirmed), and not the breaker holding a loop back.
    """
    if v.kind == "allow":
        return "its own ask: breaker-tui's check found no repeat"
    why = inert(v.message.splitlines()[0], keep_newlines=False)[:200] if v.message else v.rule or "a repeat"
    return f"its own ask; breaker-tui's check found a repeat ({why}), left to you by [acp] deny = observe"


def no_once_note(options: Any) -> str:
    """What the person must know when the agent offers no "allow once" (an allow then means "always")."""
    if option_for(options, ("allow_once",)) is not None or option_for(options, ("allow_always",)) is None:
        return ""
    return (
        ". It offers no 'allow once': 'allow once' refuses this call; 'allow for the turn' answers with its"
        " 'always allow', after which it stops asking (and breaker-tui can refuse a repeat only after it ran)"
    )
