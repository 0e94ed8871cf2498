"""Permission requests from an ACP agent: refuse what the engine denies, ask the person about the rest.

A mixin of `AcpMonitor` (it shares the monitor's state): the check of a call (at the agent's request, or
when an unasked call finishes) and the answers to `session/request_permission`.
"""

from __future__ import annotations

from typing import Any

from engine import events as ev
from engine.breaker import Breaker, Verdict
from wrapper.harness.acp.calls import CallState, obj, option_for, option_names
from wrapper.harness.acp.reaction import ALLOW_KINDS, REJECT_KINDS, Reaction, selected
from wrapper.items import Answer, ApprovalItem, CallItem, EngineItem, Item, Question, StatusItem, VerdictItem
from wrapper.monitor import Info, Monitor
from wrapper.safetext import inert
from wrapper.settings import Settings


class Permissions:
    """The tool-call checks and the permission answers of `AcpMonitor`."""

    settings: Settings
    monitor: Monitor
    breaker: Breaker
    info: Info
    agent_name: str
    calls: dict[str, CallState]

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
        v = self.breaker.check_tool(self.agent, call.call_id, name, args)
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
        r.items.append(self.call_item(call))  # opencode sends an edit's diff only here
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
        auto = self.monitor.auto_answer(q, v)  # only a call an allow-for-the-turn covers
        if auto is None and v.kind != "ask" and self.settings.acp.agent_asks == "allow":
            auto = "allow-once", "[acp] agent_asks = allow"
        if auto is not None:
            by = "engine" if v.kind == "allow" and v.note == "approved" else "policy"
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
        """The person (or the policy, the engine, the timeout: `by`) answered a permission request."""
        options = params.get("options")
        r = Reaction()
        call = self.calls.get(q.call_id or "")
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
        if allow:
            r.reply = selected(option_for(options, ALLOW_KINDS))
        elif answer == "cancel-turn":
            r.reply = selected(None)
            r.cancel = True
        else:
            r.reply = selected(option_for(options, REJECT_KINDS))
        if call is not None and not allow:
            call.refused = True
        r.items.append(ApprovalItem(q, answer, by, why))
        return r
