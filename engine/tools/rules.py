"""The default mode's tool rules in one place: progress-aware failures, result-aware repeats, cycles.

`Breaker` runs the seeds' repeat window as before and asks this object two things: before a call
runs, whether a failure streak, a cycle, paging or the identical-call backstop blocks it; after it
ran, what its result says (failed? changed the workspace? the same answer as last time?). A window
entry whose call made progress — it succeeded and its answer changed, or the workspace changed since
the same call last ran — is taken back out of the repeat window, so polling that moves, `git status`
between commits and re-runs after an edit never reach the cap. A failure is never progress by itself.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from engine.config import BreakerConfig
from engine.monologue import Monologue
from engine.peragent import state_of
from engine.tools.cycles import CycleHit, Cycles, page_path, page_span
from engine.tools.errortext import cancelled, reads_as_error
from engine.tools.fingerprints import exact_body, ignored_keys
from engine.tools.messages import cause_message, failure_denial
from engine.tools.novelty import NEW_LINES, RESPELLED, Seen, may_respell, news_text, shell_args
from engine.tools.outcomes import DISPATCH, Outcome, ProgressFailures
from engine.tools.progress import (
    SHELL_TOOLS,
    cd_dir,
    command_text,
    exit_marker,
    failed,
    mutates,
    pure_wait,
    wait_seconds,
)
from engine.tools.repeat import AgentWindow
from engine.tools.safeargs import bounded_args
from engine.tools.sameresult import SameResultHit, SameResults, answer_of
from engine.tools.sameresult import shape as result_shape

_LAST_CAP = 512
_PENDING_CAP = 64  # calls judged and not yet answered, per agent (an agent runs a few at once)


@dataclass(slots=True)
class Pending:
    """A call `gate` judged, until its result comes: what the rules compared and what they found."""

    body: str  # the call's arguments as compared (`novelty.shell_args`), canonical
    exact: str  # its arguments as given, canonical: the `exact:` fingerprint's body
    call: str
    epoch: int
    wait: bool  # a pure `sleep`: never a repeated action
    tool: str
    # the arguments `gate` judged: what only the result needs (does the call write? which file and lines does
    # a read show? in which directory does it run?) is read from them after the call, off the check's path;
    # the result reuses `norm` when it comes with the same object
    args: Any
    norm: Any  # `novelty.shell_args` of them, or `_UNSET` until a rule needs it (`normed`)
    found: tuple[str, str] | None = None  # (rule, message) when a rule blocks the call
    entry: tuple[str, ...] | None = None  # the fingerprints the repeat window counted for it

    def normed(self) -> Any:
        """The arguments as the rules compare them (`novelty.shell_args`), worked out once."""
        norm = self.norm
        if norm is _UNSET:
            norm = self.norm = shell_args(self.tool, self.args)
        return norm


_UNSET: Any = object()
_FORMS_CAP = 1024  # calls whose compared form is remembered, per rules object


@dataclass(slots=True)
class _Agent:
    seen: Seen = field(default_factory=Seen)  # fingerprint or call -> the results it returned since a change
    # fingerprint -> (the `cd X &&` dir of its last call, `news` after its last call)
    last: dict[str, tuple[str | None, int]] = field(default_factory=dict)
    news: int = 0  # calls this turn that brought something new (a changed workspace or an unseen result)
    pending: dict[str, Pending] = field(default_factory=dict)  # oldest first
    longest_wait: float = 0.0  # the longest `sleep` this turn, in seconds


def _status_hidden(tool: str, args: Any) -> bool:
    """A shell command whose status is not its work's: a pipeline (`curl ... | head` exits with `head`'s
    status) or a failure swallowed with `||`.
    """
    return tool in SHELL_TOOLS and "|" in command_text(args)


def cycle_message(hit: CycleHit) -> str:
    """The denial text for a cycle, paging or backstop hit: what loop was seen, with counts."""
    calls = "; ".join(f"{label} (×{n})" for label, n in hit.calls[:17])
    if hit.rule == "paging":
        label, n = hit.calls[0]
        return (
            f"Blocked by breaker: you have read {label} {n} times in this turn without changing anything. "
            "Paging through it again will not help: search for what you need (grep -n), or act on what you have."
        )
    if hit.rule == "backstop":
        return (
            f"Blocked by breaker: this exact call was made {hit.times} times in the last calls with nothing "
            f"changed in between: {calls}. Wait for something to change, use a different approach, or stop and report."
        )
    return (
        f"Blocked by breaker: you are repeating a cycle of {hit.period} call(s) that already returned the same "
        f"results in this turn: {calls}. Repeating them will show the same thing again; change the approach "
        "(edit something, look elsewhere, or stop and report what blocks you)."
    )


def same_result_message(tool: str, hit: SameResultHit) -> str:
    """The denial text of the same-result rule: what was repeated, and how "the same" was decided."""
    return (
        f'Blocked by breaker: "{tool}" returned the same result {hit.times} times in a row with nothing changed '
        "in between (compared after folding timestamps, ids, durations and the numbers your own calls carry; "
        "calls compared without their numbers, flags, comments and echo text), so it was not dispatched. "
        "Changing a counter, a flag or a comment does not change the answer: act on it, change something "
        "first, or stop and report."
    )


def failure_message(tool: str, o: Outcome) -> str:
    """The denial text of the default failure arm."""
    if o.rule == "same-failure":
        return (
            f'Blocked by breaker: "{tool}" failed {o.failures} times in this turn with the same error, even '
            "after your changes, so it was not dispatched. Your edits are not reaching the cause: re-read the "
            "error, check that you are changing the code that runs, or stop and report the blocker."
        )
    if o.rule == "same-error":
        return (
            f'Blocked by breaker: "{tool}" failed {o.failures} times in a row with the same error, however the '
            "call was spelled, and nothing changed in between, so it was not dispatched. Rewording the same "
            "command will fail the same way: read the error, change something first, or stop and report."
        )
    if o.rule == "same-answer":
        return (
            f'Blocked by breaker: "{tool}" printed the same result {o.failures} times in a row, however the call '
            "was spelled, and nothing changed in between, so it was not dispatched. Running it again will print "
            "it again: act on what it says, change something first, or stop and report."
        )
    if o.rule == "cause-failure":
        return cause_message(tool, o.cause, o.failures)
    if o.rule == "tool-failing":
        return (
            f'Blocked by breaker: every one of the last {o.failures} calls to "{tool}" failed with the same error, '
            "whatever the arguments. The tool is not usable this way (does it exist?): use another tool or stop."
        )
    return failure_denial(tool, o.failures, o.already)


class DefaultRules:
    """Tool-call rules of the default mode, per agent and turn."""

    def __init__(self, cfg: BreakerConfig) -> None:
        th, eng = cfg.thinking, cfg.engine
        self.cfg = cfg
        self.failures = ProgressFailures(
            th.tool_failure_steer_after,
            th.tool_failure_deny_after,
            th.tool_failure_history,
            eng.same_failure_limit,
            eng.tool_failure_limit,
            eng.same_error_limit,
            active=th.enabled and th.tool_failure_guard,
        )
        # with no cap on identical calls (`limits.exact` off) the cycle rules and the backstop are off too
        capped = cfg.repeat.limits.get("exact") is not None
        self.cycles = Cycles(
            eng.cycle_window,
            eng.cycle_repeats,
            eng.paging_limit,
            eng.backstop_limit if capped else 0,
            eng.backstop_window,
            cycles=capped,
        )
        self.monologue = Monologue(eng.monologue_steps)
        self.same = SameResults(eng.same_error_limit if capped else 0)
        self.agents: dict[str, _Agent] = {}
        # (tool, canonical arguments) -> the call as compared: its body, `call` key and whether it only waits
        self._forms: dict[tuple[str, str], tuple[str, str, bool]] = {}

    def _a(self, agent: str) -> _Agent:
        return state_of(self.agents, agent, _Agent)

    def body(self, agent: str, call_id: str) -> str | None:
        """The canonical arguments `gate` computed for this call, as given (the `exact:` body)."""
        a = self.agents.get(agent)
        p = a.pending.get(call_id) if a else None
        return p.exact if p else None

    def gate(self, agent: str, call_id: str, tool: str, args: Any) -> Pending:
        """Before dispatch: the call as the rules compare it, with `(rule, message)` in `found` when a failure
        streak or a loop blocks it (`args` bounded). Kept until its result; the repeat window's count of it is
        written to its `entry`.
        """
        ignore = self.cfg.repeat.ignore_args
        exact = exact_body(tool, args, ignore)
        if may_respell(tool, args):
            form = self._forms.get((tool, exact))
            norm = _UNSET
            if form is None:
                form, norm = self._form(tool, args, exact, ignore)
            body, call, wait = form
        else:  # compared as given
            body, call, wait, norm = exact, f"{tool}\x00{exact}", False, args
        a = self.agents.get(agent) or self._a(agent)
        epoch, armed = self.failures.standing(agent)
        p = Pending(body, exact, call, epoch, wait, tool, args, norm)
        pending = a.pending
        if call_id in pending:
            del pending[call_id]  # an id used again is the newest call
        pending[call_id] = p
        if len(pending) > _PENDING_CAP:
            del pending[next(iter(pending))]
        self.monologue.call(agent)
        p.found = self._judge(agent, p, armed)
        return p

    def _form(self, tool: str, args: Any, exact: str, ignore: Any) -> tuple[tuple[str, str, bool], Any]:
        """The call as compared (`novelty.shell_args`: quoting, a `cd DIR &&` prefix and operator spacing aside):
        its canonical body, its `call` key and whether it only waits, with the compared arguments.

        The form follows from the tool and the canonical arguments as given (`exact`) wherever no argument
        that `shell_args` re-spells is dropped, so it is remembered under them (loops repeat calls).
        """
        norm = shell_args(tool, args)
        body = exact if norm is args else exact_body(tool, norm, ignore)
        form = (body, f"{tool}\x00{body}", pure_wait(tool, norm))
        # the form follows from the canonical arguments only where none that `shell_args` re-spells is dropped
        if RESPELLED.isdisjoint(ignored_keys(tool, ignore)):
            forms = self._forms
            if len(forms) >= _FORMS_CAP:
                forms.clear()
            forms[(tool, exact)] = form
        return form, norm

    def _judge(self, agent: str, p: Pending, armed: bool) -> tuple[str, str] | None:
        """`(rule, message)` when a failure streak, a run of one result or a loop blocks the call (`armed`: the
        failure arm could block one, `ProgressFailures.standing`).
        """
        tool, body, epoch = p.tool, p.body, p.epoch
        if armed:
            o = self.failures.gate(agent, tool, p.normed(), body)
            if o is not None:
                return o.rule, failure_message(tool, o)
        if p.wait:
            return None  # waiting is how polling backs off: the poll after it is what repeats or not
        if self.same.hot(agent):  # the shape costs a few regex passes: only when some run is full
            same = self.same.check(agent, result_shape(tool, p.normed(), body), epoch)
            if same is not None:
                return "same-result", same_result_message(tool, same)
        path = span = None
        if self.cycles.paging_due(agent, epoch) and not mutates(tool, p.args):  # else no read can reach the limit
            path = page_path(tool, p.args)
            span = page_span(tool, p.args) if path is not None else None
        hit = self.cycles.check(agent, p.call, epoch, path, span)
        if hit is not None:
            return hit.rule, cycle_message(hit)
        return None

    def committed(self, agent: str, call_id: str, entry: tuple[str, ...]) -> None:
        """The repeat window counted this call with these fingerprints (it may be taken back)."""
        p = self._a(agent).pending.get(call_id)
        if p is not None:
            p.entry = entry

    def result(
        self,
        agent: str,
        call_id: str,
        tool: str,
        args: Any,
        text: str,
        is_error: bool,
        exit: int | None,
        window: AgentWindow | None,
    ) -> Outcome:
        """After a dispatched call: forgive progress in the repeat window, record pairs, count failures."""
        args = bounded_args(args)
        a = self._a(agent)
        p = a.pending.pop(call_id, None)
        # as `gate` compared it (the same arguments: its answer); the echo is judged on `args`
        norm = p.normed() if p is not None and p.args is args else shell_args(tool, args)
        if cancelled(text):
            # the harness cancelled it with its batch: it never ran, so it is no failure, result or repeat
            if p is not None and p.entry and window is not None:
                window.forgive(p.entry, ())
            return DISPATCH
        bad = failed(tool, args, text, is_error, exit)
        guessed = False  # failed only as the text reads, with no status saying so
        if not bad and ((exit is None and not exit_marker(text)) or _status_hidden(tool, args)):
            # no status, or the pipe's: the text says whether it failed (its echo of the call aside)
            bad = guessed = reads_as_error(tool, text, args)
        said = news_text(text, tool, args)  # the result as every rule compares it: worked out once, passed on
        key = hash(said)  # `progress.result_key`
        if bad and _waits_longest(a, tool, norm):
            # `sleep 8 && curl localhost:3000` failing after `sleep 4 && ...` failed: each try waits
            # longer for a service that is coming up, so it starts every count over (a change before it)
            self.failures.waited(agent)
        before = self.failures.epoch(agent)
        body = p.body if p is not None else exact_body(tool, norm, self.cfg.repeat.ignore_args)
        reading = p is not None and not mutates(p.tool, p.args)
        changed = not bad and (not reading if p is not None else mutates(tool, args))
        if not bad and not changed and _waits_longest(a, tool, norm):
            # backing off longer than ever before is a change for what follows: a transient error
            # (a 429, a flaky mirror) may be gone; waiting the same time again changes nothing
            changed = True
            self.failures.backed_off(agent)
        # errors compare raw (folded): an error naming its own test id is a different error
        outcome = self.failures.record(agent, tool, norm, text, bad, changed, body, key)
        after = self.failures.epoch(agent)  # what the next occurrence of this call compares against
        if p is not None and p.wait and not bad:
            if p.entry and window is not None:
                window.forgive(p.entry, ())
            return outcome
        if p is not None:
            path = page_path(p.tool, p.args) if reading and self.cycles.paging else None
            span = page_span(p.tool, p.args) if path is not None else None
            cwd = cd_dir(p.tool, p.args)
            answer = answer_of(said)  # `sameresult.result_of`
            news = key if answer is None else answer  # what "a different answer" is judged on (ids folded)
            # the turn learned something (a failure alone never is: a new error is not progress)
            # a failure read from the text alone that prints lines never printed before is a poll whose
            # output moves, not the same failure again (a re-worded error line is one line); a status that
            # says it failed is never news
            seen = a.seen
            fresh = seen.new_lines(said, before)
            settled = bad and (not guessed or fresh < NEW_LINES)
            brought = changed or (not settled and seen.novel(news, before))
            renewed = seen.new(p.call, news, before)  # this call answered anew
            if p.entry and window is not None:
                _forgive(a, cwd, p.entry, news, before, settled, window)
            if brought:
                a.news += 1
            if len(a.last) >= _LAST_CAP:
                a.last.clear()
            fps = (*p.entry, p.call) if p.entry else (p.call,)
            seen.add_all(fps, news, after)
            last, now = a.last, (cwd, a.news)
            for fp in fps:
                last[fp] = now
            self.cycles.record(agent, p.call, key, path, after, span, news, renewed)
            if answer is not None or self.same.running(agent):  # else no run to end: the shape is not needed
                self.same.record(agent, result_shape(tool, norm, p.body), answer, after, p.call)
        return outcome

    def dropped(self, agent: str, call_id: str) -> None:
        """A call refused before it ran: forget its pending entry."""
        a = self.agents.get(agent)
        if a is not None:
            a.pending.pop(call_id, None)

    def epoch(self, agent: str) -> int:
        """Successful workspace changes this turn."""
        return self.failures.epoch(agent)

    def progress(self, agent: str) -> int:
        """What moved this turn: workspace changes plus calls whose result was new (`novelty`). A plan
        restated while this moves is work going on, not a loop.
        """
        a = self.agents.get(agent)
        return self.failures.epoch(agent) + (a.news if a else 0)

    def reset_windows(self, agent: str) -> None:
        """The operator reset the windows: forget the cycle, paging and backstop history, last results and
        the causes counted across turns (the person's way to let a retry run after fixing its cause).
        """
        self.cycles.reset(agent)
        self.same.reset(agent)
        self.failures.causes.changed(agent)
        a = self.agents.get(agent)
        if a is not None:
            a.seen.clear()

    def new_turn(self, agent: str) -> None:
        """A new turn (or a human message): forget everything about the agent."""
        self.failures.new_turn(agent)
        self.cycles.reset(agent)
        self.same.reset(agent)
        self.monologue.reset(agent)
        self.agents.pop(agent, None)


def _waits_longest(a: _Agent, tool: str, norm: Any) -> bool:
    """Whether this shell command starts with a `sleep` longer than any before it this turn (and remember it)."""
    wait = wait_seconds(tool, norm)
    if wait > a.longest_wait:
        a.longest_wait = wait
        return True
    return False


def _forgive(
    a: _Agent, cwd: str | None, entry: tuple[str, ...], news: int, before: int, settled: bool, window: AgentWindow
) -> None:
    """Take back from the repeat window the fingerprints of this call that made progress (or whose turn
    learned something since they were last counted), and restart their counts.

    A call made progress for a fingerprint that answered before (`novelty.Seen`) when it is a re-run after
    a change, or a success whose answer is new for it; a failure alone is not, unless it ran in another
    directory (`cd A && make`, then `cd B && make`) and answered something new.
    """
    keys, last, now = a.seen.keys, a.last, a.news
    gone: list[str] = []
    for fp in entry:
        mine = last.get(fp)  # (the `cd` dir of its last call, the turn's news count then)
        if mine is not None and now > mine[1]:
            gone.append(fp)
            continue
        seen = keys.get(fp)
        if seen is not None and (
            seen[0] != before
            or (
                news not in seen[1]
                and (not settled or (cwd is not None and mine is not None and mine[0] is not None and cwd != mine[0]))
            )
        ):
            gone.append(fp)
    if gone:
        # (every fingerprint made progress, most often: a change since they were counted)
        window.forgive(entry, tuple(fp for fp in entry if fp not in gone) if len(gone) < len(entry) else ())
        window.restart(tuple(gone))
