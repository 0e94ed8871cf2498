"""`Breaker`: the one object that consumes events and answers tool checks, asks and stream trips."""

from __future__ import annotations

from collections import deque
from typing import Any, Literal

from engine import events as ev
from engine.config import BreakerConfig
from engine.lenses.degeneracy import DegeneracySettings
from engine.lenses.repetition import RepetitionSettings
from engine.lenses.streams import AgentState, default_lenses, fresh_streams, seed_lenses
from engine.scores import AgentScores, Snapshot, WindowRow
from engine.tools.failures import FailureGuard, FailureSettings
from engine.tools.fingerprints import fingerprints, kind_of, limit_for
from engine.tools.messages import failure_denial, failure_guidance, post_trip_hint
from engine.tools.repeat import RepeatGuard, RepeatVerdict
from engine.tools.rules import DefaultRules
from engine.tools.safeargs import bounded_args, clamp
from engine.verdicts import ALLOW, ResultRewrite, StreamTrip, Verdict

__all__ = ["ALLOW", "Breaker", "ResultRewrite", "StreamTrip", "Verdict"]


_IDENTITY = ("exact:", "cmd:")  # the fingerprints that name a call itself, not its verb or site


class Breaker:
    """Consumes events per agent; decides tool calls; reports stream trips and live scores."""

    def __init__(self, config: BreakerConfig | None = None) -> None:
        self.config = config or BreakerConfig()
        th = self.config.thinking
        self.seed = self.config.engine.seed
        self.repeat = RepeatGuard(self.config.repeat, seed=self.seed)
        self.failures = FailureGuard(FailureSettings.from_config(th))
        self._rep = RepetitionSettings.from_config(th)
        self._deg = DegeneracySettings.from_config(th)
        self.agents: dict[str, AgentState] = {}
        self.enforcing = True
        # per agent, the recent calls judged by the repeat window: (call id, arguments, fingerprints)
        self._recent: dict[str, deque[tuple[str, Any, tuple[str, ...]]]] = {}
        self.rules = None if self.seed else DefaultRules(self.config)

    # -- bookkeeping -------------------------------------------------------------------------
    def _a(self, agent: str) -> AgentState:
        a = self.agents.get(agent)
        if a is None:
            a = self.agents[agent] = AgentState(agent)
        return a

    def _fresh_streams(self, a: AgentState) -> None:
        fresh_streams(a, self.config, self._rep, self._deg)

    # -- events ------------------------------------------------------------------------------
    def feed(self, e: ev.Event) -> StreamTrip | None:
        """Consume one event; a reasoning/answer/output delta may return a stream trip."""
        if isinstance(e, ev.ReasoningDelta):
            return self._delta(e.agent, e.text, "reasoning")
        if isinstance(e, ev.AnswerDelta):
            return self._delta(e.agent, e.text, "answer")
        if isinstance(e, ev.OutputDelta):
            return self._delta(e.agent, e.text, "output")
        if isinstance(e, ev.RequestStart):
            self.request_start(e.agent, e.turn, e.purpose)
        elif isinstance(e, ev.UserMessage):
            if e.source == "user":
                self.repeat.reset(e.agent)
                self._recent.pop(e.agent, None)
                self._a(e.agent).last_hits = ()
                if self.rules is not None:
                    self.rules.new_turn(e.agent)
        elif isinstance(e, ev.TurnStart):
            self._turn(self._a(e.agent), e.turn)
        elif isinstance(e, ev.ToolCall):
            self._a(e.agent).calls[e.call_id] = (e.tool, e.args)
        return None

    def _turn(self, a: AgentState, turn: int) -> None:
        if turn != a.turn:
            a.tripped = False
            a.trips = 0
            a.retries_used = 0
            a.hint_pending = False
            a.turn = turn
            self.failures.new_turn(a.agent)
            if self.rules is not None:
                self.rules.new_turn(a.agent)

    def request_start(self, agent: str, turn: int, purpose: str | None = None) -> bool:
        """A model request begins. Returns True when it must run with thinking off (after a trip)."""
        a = self._a(agent)
        th = self.config.thinking
        if self.rules is not None:
            # a side request (title, summary, any `purpose`) runs beside the main stream: it never
            # switches off, resets or feeds the main request's lenses
            if purpose is not None:
                return False
            self._turn(a, turn)
            self._fresh_streams(a)
            hit = self.rules.monologue.start(agent, self.rules.progress(agent))
            if hit is not None:
                a.pending_trip = {"rule": hit.rule, "steps": hit.steps, "sample": hit.sample, "block": 0}
            return self.thinking_off(agent)
        a.aux = purpose is not None and th.skip_aux_calls
        if a.aux:
            return False
        self._turn(a, turn)
        self._fresh_streams(a)
        return self.thinking_off(agent)

    def pending_cancel(self, agent: str) -> tuple[str, str] | None:
        """A restated plan found when this request started: `(rule, evidence)`; the next delta trips on it."""
        a = self.agents.get(agent)
        if a is None or a.pending_trip is None or not self.config.thinking.enabled:
            return None
        trip = a.pending_trip
        a.pending_trip = None
        st = self._arm(a, trip, "reasoning", retry=False)
        return trip["rule"], st.evidence()

    def thinking_off(self, agent: str) -> bool:
        """Whether this agent's requests run with thinking off for the rest of the turn."""
        a = self.agents.get(agent)
        th = self.config.thinking
        return bool(a and th.enabled and th.retry_without_thinking and a.tripped and self.enforcing)

    def _delta(self, agent: str, text: str, stream: Literal["reasoning", "answer", "output"]) -> StreamTrip | None:
        th = self.config.thinking
        a = self._a(agent)
        if not th.enabled or a.aux or a.stream_dead or not text:
            return None
        if a.rep is None:
            self._fresh_streams(a)
        if self.rules is None:
            trip = seed_lenses(a, text, stream, th)
            return self._arm(a, trip, stream) if trip is not None else None
        if a.pending_trip is not None:
            pend = a.pending_trip
            a.pending_trip = None
            return self._arm(a, pend, stream, retry=False)
        found, retry = default_lenses(a, text, stream, th, self.rules.monologue)
        return self._arm(a, found, stream, retry) if found is not None else None

    def _arm(
        self, a: AgentState, trip: dict[str, Any], stream: Literal["reasoning", "answer", "output"], retry: bool = True
    ) -> StreamTrip:
        th = self.config.thinking
        if not self.enforcing:
            return StreamTrip(a.agent, stream, trip["rule"], trip, "observe", a.reasoning_chars, a.turn)
        a.stream_dead = True
        a.trips += 1
        a.tripped = True
        a.hint_pending = True
        a.retry_armed = retry and th.retry_without_thinking and a.retries_used < th.max_loop_retries_per_turn
        action: Literal["abort_retry", "abort"] = "abort_retry" if a.retry_armed else "abort"
        return StreamTrip(a.agent, stream, trip["rule"], trip, action, a.reasoning_chars, a.turn)

    def request_error(self, agent: str, message: str, code: str) -> bool:
        """`agent/request-error`: True means retry (our own abort, with the retry still armed)."""
        a = self.agents.get(agent)
        if a is None or not self.config.thinking.enabled:
            return False
        if "thinking-breaker" in message and code == "ABORTED" and a.retry_armed:
            a.retry_armed = False
            a.retries_used += 1
            return True
        return False

    # -- tools -------------------------------------------------------------------------------
    def check_tool(self, agent: str | None, call_id: str, tool: str, args: Any, ran: bool = False) -> Verdict:
        """Before a call runs: the failure gate (and the default rules), the local-address ask, the repeat guard.

        Arguments nested too deep to walk are clamped and checked again; this never raises. `ran`: the call
        already ran without asking (an ACP agent's read): judged the same, but a deny could not stop it, so
        it is counted as a trip after running (`ran_tripped`), never as a denial.
        """
        if agent is not None:
            self._a(agent).calls[call_id] = (tool, args)
        try:
            v = self._check(agent, call_id, tool, bounded_args(args))
        except RecursionError:
            v = self._check(agent, call_id, tool, clamp(bounded_args(args)))
        if ran and agent is not None and "deny" in (v.kind, v.would):
            a = self._a(agent)  # `_enforce` counted it as a denial: it is not one
            a.denials -= 1
            a.ran_tripped += 1
        if agent is not None and v.fingerprints:
            recent = self._recent.get(agent)
            if recent is None:
                recent = self._recent[agent] = deque(maxlen=self.config.repeat.window)
            recent.append((call_id, args, v.fingerprints))
        return v

    def earlier(self, agent: str | None, call_id: str, fps: tuple[str, ...]) -> tuple[Any, ...]:
        """The arguments of the recent calls before `call_id` that share one of `fps`, oldest first.

        What an approval shows beside the call it asks about: the repeats it would continue.
        """
        recent = self._recent.get(agent) if agent is not None else None
        if not recent or not fps:
            return ()
        want = set(fps)
        out = []
        for cid, args, seen in recent:
            if cid == call_id:
                break
            if want.intersection(seen):
                out.append(args)
        return tuple(out)

    def repeats_of(self, agent: str | None, call_id: str) -> tuple[Any, ...]:
        """The arguments of the recent calls before `call_id` that are this very call or a re-spelling of it
        (an `exact:` or `cmd:` fingerprint in common), oldest first: what a question the agent asks for its
        own reasons shows beside the call (the breaker's own questions show the repeats their hits name).
        """
        recent = self._recent.get(agent) if agent is not None else None
        mine = next((fps for cid, _, fps in reversed(recent) if cid == call_id), ()) if recent else ()
        return self.earlier(agent, call_id, tuple(fp for fp in mine if fp.startswith(_IDENTITY)))

    def _check(self, agent: str | None, call_id: str, tool: str, args: Any) -> Verdict:
        p = None
        if self.rules is not None:
            p = self.rules.gate(agent, call_id, tool if isinstance(tool, str) else "", args) if agent else None
            found = p.found if p is not None else None
            if (
                found is not None
                and found[0] in ("same-answer", "same-result")
                and self._local(agent, call_id, tool, args)
            ):
                found = None  # a local address answering the same again is the operator's call: the window asks
            if found is not None and not self._local_exempt(agent, call_id, tool, args, found[0]):
                rule, message = found
                source: Literal["repeat", "failure"] = "failure" if "fail" in rule or rule == "same-error" else "repeat"
                if source == "failure" and self._local(agent, call_id, tool, args):
                    # a local service that keeps refusing may be starting up: the person decides, as for repeats
                    return self._enforce(agent, Verdict("ask", message, source, rule=rule))
                return self._enforce(agent, Verdict("deny", message, source, rule=rule))
        else:
            fv = self.failures.gate(agent, tool, args) if agent is not None else None
            if fv is not None:
                v = Verdict("deny", failure_denial(tool or "tool", fv.failures, fv.already), "failure", rule="failure")
                return self._enforce(agent, v)
        if agent is None or not self.repeat.tracked(tool):
            return self._enforce(agent, ALLOW)  # untracked tools are never fingerprinted
        body = p.exact if p is not None else None
        cp = fingerprints(tool, args, self.config.repeat, body, bounds=not self.seed, seed_hosts=self.seed)
        r = self.repeat.check(agent, call_id, tool, args, cp)
        if r.kind == "ask" and not self.enforcing:
            self.repeat.approve(agent, call_id, tool, args, "once")  # observe only: count it, waive nothing later
        v = self._from_repeat(r)
        if p is not None and v.kind == "allow" and cp.fingerprints:
            p.entry = cp.fingerprints  # the repeat window counted it: the result may take it back
        return self._enforce(agent, v)

    def _local_exempt(self, agent: str | None, call_id: str, tool: str, args: Any, rule: str) -> bool:
        """A loop of local calls whose URLs the person allowed for this turn is not denied again by a loop rule.

        Failures are never waived, and only calls covered by the allow-for-the-turn (every URL of the
        call approved, see `RepeatGuard.covered`) are: another local URL or a remote one is judged as usual.
        """
        if rule.endswith("failure") or rule in ("tool-failing", "same-error") or agent is None:
            return False
        slot = self.repeat.agents.get(agent)
        if slot is None or not (slot.approved or slot.exempt):
            return False
        return self.repeat.covered(agent, self._print(agent, call_id, tool, args))

    def _print(self, agent: str | None, call_id: str, tool: str, args: Any) -> Any:
        body = self.rules.body(agent, call_id) if self.rules is not None and agent is not None else None
        return fingerprints(tool, args, self.config.repeat, body, bounds=not self.seed, seed_hosts=self.seed)

    def _local(self, agent: str | None, call_id: str, tool: str, args: Any) -> bool:
        """Whether only local addresses make this call what it is (its fingerprints are local)."""
        return bool(self._print(agent, call_id, tool, args).local)

    def resolve_ask(
        self, agent: str | None, call_id: str, approved: bool, scope: Literal["once", "turn"] = "once"
    ) -> Verdict:
        """The person (or a policy) answered an ask: approve allows this call, decline refuses local repeats.

        `scope` once: this call only; turn: also the repeats of its local fingerprints for the rest of the
        turn. See `engine.tools.repeat` for exactly what each answer waives.
        """
        if approved:
            tool, args = self.call_of(agent, call_id)
            try:
                r = self.repeat.approve(agent, call_id, tool, bounded_args(args), scope)
            except RecursionError:
                r = self.repeat.approve(agent, call_id, tool, clamp(bounded_args(args)), scope)
            if self.rules is not None and agent is not None and r.kind == "allow" and r.print is not None:
                self.rules.committed(agent, call_id, r.print.fingerprints)
            return self._from_repeat(r)
        self.repeat.settle(agent, call_id)
        return Verdict("deny", "declined by the operator", "repeat")

    def call_of(self, agent: str | None, call_id: str) -> tuple[str, Any]:
        """The tool name and arguments of a call seen by `check_tool` (for approval questions)."""
        a = self.agents.get(agent) if agent is not None else None
        return a.calls.get(call_id, ("", None)) if a else ("", None)

    def _from_repeat(self, r: RepeatVerdict) -> Verdict:
        cp = r.print
        return Verdict(
            r.kind,
            r.message,
            "repeat" if r.kind != "allow" else "",
            r.hits,
            r.note,
            cp.fingerprints if cp else (),
            cp.local if cp else False,
            rule=f"repeat:{kind_of(r.hits[0].fp)}" if r.kind != "allow" and r.hits else "",
        )

    def _enforce(self, agent: str | None, v: Verdict) -> Verdict:
        if agent is not None:
            a = self._a(agent)
            a.last_hits = tuple(h.fp for h in v.hits)
            if v.kind == "deny":
                a.denials += 1
            elif v.kind == "ask":
                a.asks += 1
        if v.kind == "allow" or self.enforcing:
            return v
        return Verdict("allow", v.message, "observe", v.hits, v.note, v.fingerprints, v.local, v.kind, v.rule)

    def tool_result(
        self,
        agent: str | None,
        call_id: str,
        tool: str,
        args: Any,
        text: str,
        is_error: bool,
        top_level: bool = True,
        dispatched: bool = True,
        exit: int | None = None,
    ) -> ResultRewrite | None:
        """After a call: settle asks, remember results, count failures; maybe steer or add the hint.

        A call that was refused before it ran (`dispatched=False`) records no failure. `exit` is the
        shell exit status when the caller knows it (else the default rules read dsh's `[exit code: N]`).
        """
        self.repeat.post_execute(agent, call_id, tool, text, is_error)
        th = self.config.thinking
        outcome = None
        if self.rules is not None and agent is not None and not dispatched:
            self.rules.dropped(agent, call_id)
        if self.rules is not None and agent is not None and dispatched:
            name = tool if isinstance(tool, str) else ""
            window = self.repeat.agents.get(agent)
            try:
                outcome = self.rules.result(agent, call_id, name, args, text, is_error, exit, window)
            except RecursionError:
                outcome = self.rules.result(agent, call_id, name, clamp(args), text, is_error, exit, window)
        if agent is None or not th.enabled:
            return None
        a = self._a(agent)
        a.calls.pop(call_id, None)
        if top_level and a.hint_pending and th.post_trip_hint:
            a.hint_pending = False
            return ResultRewrite("prepend", post_trip_hint(a.trips), "hint")
        if not dispatched:
            return None
        fv = outcome if outcome is not None else self.failures.record(agent, tool, args, not is_error)
        if fv.action == "steer" and self.enforcing:
            return ResultRewrite("replace", failure_guidance(tool or "tool", fv.failures, text), "steer", fv.failures)
        return None

    # -- operator actions --------------------------------------------------------------------
    def set_enforcing(self, on: bool) -> None:
        """Pause (observe only) or resume enforcement."""
        self.enforcing = on

    def reset_windows(self, agent: str | None = None) -> None:
        """Forget the sliding windows (one agent, or all)."""
        for name in [agent] if agent else list(self.agents):
            if name is not None:
                self.repeat.reset(name)
                self._recent.pop(name, None)
                self._a(name).last_hits = ()
                if self.rules is not None:
                    self.rules.reset_windows(name)

    # -- display -----------------------------------------------------------------------------
    def snapshot(self) -> Snapshot:
        """Live scores for every agent seen so far."""
        out = []
        th = self.config.thinking
        limits = self.config.repeat.limits
        for name, a in self.agents.items():
            slot = self.repeat.agents.get(name)
            rows: list[WindowRow] = []
            if slot is not None:
                seen: dict[str, None] = {}
                for entry in reversed(slot.calls):
                    for fp in entry:
                        seen.setdefault(fp, None)
                rows = [WindowRow(fp, slot.tally.get(fp, 0), limit_for(fp, limits), fp in a.last_hits) for fp in seen]
            f = a.deg.last_features() if a.deg is not None else None
            hit = self.rules.cycles.last_hit(name) if self.rules is not None else None
            fails = self.rules.failures.counts(name) if self.rules is not None else self.failures.counts(name)
            out.append(
                AgentScores(
                    agent=name,
                    turn=a.turn,
                    window=tuple(rows),
                    window_calls=len(slot.calls) if slot else 0,
                    window_size=self.config.repeat.window,
                    overlap=a.rep.last_overlap if a.rep else 0.0,
                    overlap_threshold=th.novelty_overlap,
                    novelty_streak=a.rep.low_novelty if a.rep else 0,
                    novelty_limit=th.novelty_streak,
                    overlap_history=tuple(a.overlap_hist),
                    deg_flags=f.flags if f else (),
                    deg_streak=a.deg.streak if a.deg else 0,
                    deg_streak_limit=th.deg_streak,
                    meaning_ratio=f.meaning_ratio if f else 1.0,
                    meaning_history=tuple(a.meaning_hist),
                    reasoning_chars=a.reasoning_chars,
                    max_reasoning_chars=th.max_reasoning_chars,
                    failures=tuple((f"{t}:{s}", n) for (t, s), n in fails.items()),
                    trips=a.trips,
                    retries_used=a.retries_used,
                    local_exempt=bool(slot and (slot.exempt or slot.approved)),
                    local_refused=bool(slot and slot.refused),
                    thinking_off=self.thinking_off(name),
                    denials=a.denials,
                    asks=a.asks,
                    ran_tripped=a.ran_tripped,
                    cycle=hit.calls if hit else (),
                    cycle_rule=hit.rule if hit else "",
                    cycle_period=hit.period if hit else 0,
                )
            )
        return Snapshot(tuple(out), self.enforcing)
