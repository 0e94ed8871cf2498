"""The per-agent sliding window, its commit rule and the `local_hosts` allow/deny/ask state machine.

What an answer to an ask allows is decided here, so that it means what its button says:

* allow once (`approve(..., "once")`): this call runs and is counted; the next repeat asks again;
* allow for the turn (`approve(..., "turn")`): this call, and for the rest of the turn the later local
  calls whose only blocking hits are the very fingerprints the person saw (`net:127.0.0.1:18999/health`):
  a different local URL, a non-local call or any other hit still asks or is denied;
* decline (`settle`): local repeats are refused, without asking, until the next human message.

The seed's own approve, where running the guard on the pending call exempts every local repeat of the
turn (`guard`), stays for the seed's pre-execute driver (the conformance vectors) only.
"""

from __future__ import annotations

import math
from collections import deque
from dataclasses import dataclass, field
from typing import Any, Literal, NamedTuple

from engine.repeat_config import RepeatConfig
from engine.tools.fingerprints import RELAXABLE, CallPrint, all_relaxable, fingerprints, is_tracked, kind_of, limit_for
from engine.tools.messages import Hit, ask_message, deny_message
from engine.units import from_units, to_units

Note = Literal["policy", "refused", "approved"] | None  # "approved": allowed under an allow-for-the-turn


class RepeatVerdict(NamedTuple):
    """What the repeat breaker says about one call."""

    kind: Literal["allow", "deny", "ask"]
    hits: tuple[Hit, ...] = ()
    note: Note = None
    message: str = ""
    print: CallPrint | None = None


ALLOW = RepeatVerdict("allow")


@dataclass(slots=True)
class AgentWindow:
    """One agent's state for the current turn: its recent fingerprint lists and local flags."""

    window: int
    calls: deque[tuple[str, ...]] = field(default_factory=deque)
    tally: dict[str, int] = field(default_factory=dict)
    last_result: str = ""
    exempt: bool = False  # the seed's approve: every local repeat of the turn is exempt
    refused: bool = False
    approved: set[str] = field(default_factory=set)  # fingerprints allowed for the turn (local calls only)

    def commit(self, fps: tuple[str, ...]) -> None:
        """Append one entry, dropping the oldest beyond the window."""
        self.calls.append(fps)
        tally = self.tally
        for fp in fps:
            tally[fp] = tally.get(fp, 0) + 1
        while len(self.calls) > self.window:
            for fp in self.calls.popleft():
                n = tally[fp] - 1
                if n:
                    tally[fp] = n
                else:
                    del tally[fp]

    def restart(self, fps: tuple[str, ...]) -> None:
        """These fingerprints brought something new (`novelty`): their earlier occurrences stop counting,
        so each one's count starts over from here.
        """
        drop = {fp for fp in fps if fp in self.tally}
        if not drop:
            return
        calls = self.calls
        for i, e in enumerate(calls):
            if not drop.isdisjoint(e):
                calls[i] = tuple(fp for fp in e if fp not in drop)
        for fp in drop:
            del self.tally[fp]

    def forgive(self, entry: tuple[str, ...], keep: tuple[str, ...]) -> bool:
        """Replace a committed entry (found by identity) by the fingerprints that still count."""
        calls = self.calls
        for i in range(len(calls) - 1, -1, -1):
            if calls[i] is entry:
                calls[i] = keep
                tally = self.tally
                for fp in entry:
                    if fp in keep:
                        continue
                    n = tally.get(fp, 0) - 1
                    if n > 0:
                        tally[fp] = n
                    else:
                        tally.pop(fp, None)
                return True
        return False


class _Pending(NamedTuple):
    print: CallPrint
    hits: tuple[Hit, ...]


class RepeatGuard:
    """Counts tool calls per agent and denies the cap-th repeat before it runs."""

    def __init__(self, cfg: RepeatConfig, seed: bool = False) -> None:
        self.cfg = cfg
        self.seed = seed  # the seed's prefix rule for local hosts (see `engine.tools.urls`)
        self.agents: dict[str, AgentWindow] = {}
        self._pending: dict[tuple[str, str], _Pending] = {}
        self._caps: dict[str, float] = {}
        self._tracked: dict[Any, bool] = {}

    def tracked(self, tool: Any) -> bool:
        """`is_tracked`, memoised per tool name (names repeat; patterns are fixed per config)."""
        if not isinstance(tool, str):
            return False
        hit = self._tracked.get(tool)
        if hit is None:
            if len(self._tracked) > 4096:
                self._tracked.clear()
            hit = self._tracked[tool] = is_tracked(tool, self.cfg)
        return hit

    def slot(self, agent: str) -> AgentWindow:
        """The agent's window, created on first use."""
        s = self.agents.get(agent)
        if s is None:
            s = self.agents[agent] = AgentWindow(self.cfg.window)
        return s

    def would_exceed(self, agent: str, fps: tuple[str, ...]) -> tuple[Hit, ...]:
        """The fingerprints whose next occurrence would reach their cap."""
        s = self.agents.get(agent)
        tally: dict[str, int] = s.tally if s else {}
        caps = self._caps  # per whole key, or per kind for keys the limits table does not name
        limits = self.cfg.limits
        hits = []
        for fp in fps:
            if fp in limits:
                cap = caps.get(fp)
                if cap is None:
                    cap = caps[fp] = limit_for(fp, limits)
            else:
                kind = fp.partition(":")[0]
                cap = caps.get(kind)
                if cap is None:
                    v = limits.get(kind)
                    cap = caps[kind] = math.inf if v is None else float(v)
            nxt = tally.get(fp, 0) + 1
            if nxt >= cap:
                hits.append(Hit(fp, nxt, cap))
        return tuple(hits)

    def print_of(self, tool: Any, args: Any) -> CallPrint:
        """The call's fingerprints as this guard's mode computes them (the breaker's, when it has none)."""
        return fingerprints(tool, args, self.cfg, bounds=not self.seed, seed_hosts=self.seed)

    @staticmethod
    def blocking(
        hits: tuple[Hit, ...], local: bool, exempt: bool, approved: set[str] | frozenset[str] = frozenset()
    ) -> tuple[Hit, ...]:
        """Hits that still block once the turn's local exemption, or the fingerprints approved for it, apply.

        Only a call that touches nothing but local addresses is relieved, and only of relaxable hits.
        """
        if not local or not (exempt or approved):
            return hits
        if exempt:
            return tuple(h for h in hits if kind_of(h.fp) not in RELAXABLE)
        return tuple(h for h in hits if h.fp not in approved or kind_of(h.fp) not in RELAXABLE)

    def covered(self, agent: str | None, cp: CallPrint) -> bool:
        """Whether an allow-for-the-turn covers this call: it is local and each of its URLs was approved."""
        s = self.agents.get(agent) if agent is not None else None
        if s is None or not cp.local:
            return False
        if s.exempt:
            return True
        nets = [fp for fp in cp.fingerprints if kind_of(fp) == "net"]
        return bool(nets) and all(fp in s.approved for fp in nets)

    def pre_execute(
        self, agent: str | None, call_id: str, tool: Any, args: Any, cp: CallPrint | None = None
    ) -> RepeatVerdict:
        """Under `local_hosts = "ask"`, ask when local traffic is the sole reason a call would be blocked."""
        if self.cfg.local_hosts != "ask" or agent is None or not self.tracked(tool):
            return ALLOW
        s = self.agents.get(agent)
        if s is not None and (s.refused or s.exempt):
            return ALLOW
        cp = cp or self.print_of(tool, args)
        return self._ask(agent, call_id, cp, self.would_exceed(agent, cp.fingerprints)) or ALLOW

    def _ask(self, agent: str, call_id: str, cp: CallPrint, hits: tuple[Hit, ...]) -> RepeatVerdict | None:
        """An ask when local traffic is the only reason the call would be blocked (else None)."""
        if not all_relaxable([h.fp for h in hits], cp.local):
            return None
        self._pending[(agent, call_id)] = _Pending(cp, hits)
        return RepeatVerdict("ask", hits, None, ask_message(hits, self.cfg.preview_chars), cp)

    def guard(
        self, agent: str | None, call_id: str, tool: Any, args: Any, cp: CallPrint | None = None
    ) -> RepeatVerdict:
        """The synchronous guard: count the call and allow it, or deny it with the reasons."""
        if agent is None or not self.tracked(tool):
            return ALLOW
        s = self.slot(agent)
        if self._pending.pop((agent, call_id), None) is not None:
            s.exempt = True
        cp = cp or self.print_of(tool, args)
        return self._decide(s, tool, cp, self.would_exceed(agent, cp.fingerprints))

    def approve(
        self, agent: str | None, call_id: str, tool: Any, args: Any, scope: Literal["once", "turn"]
    ) -> RepeatVerdict:
        """The person allowed an ask: run this call (once), or also its approved fingerprints' repeats (turn).

        The hits are counted again (the window may have moved while the person read): only the local,
        relaxable hits are waived for this call; anything else still denies it. An answer to a call that
        is not pending (answered twice, or after a reset) is judged as a new call: no waiver.
        """
        if agent is None or not self.tracked(tool):
            return ALLOW
        s = self.slot(agent)
        pending = self._pending.pop((agent, call_id), None)
        if pending is None:
            cp = self.print_of(tool, args)
            return self._decide(s, tool, cp, self.would_exceed(agent, cp.fingerprints))
        cp = pending.print
        if scope == "turn" and cp.local:
            s.approved.update(h.fp for h in pending.hits if kind_of(h.fp) in RELAXABLE)
        hits = self.would_exceed(agent, cp.fingerprints)
        waived = frozenset(h.fp for h in hits) if cp.local else frozenset()
        return self._decide(s, tool, cp, hits, waived)

    def check(self, agent: str | None, call_id: str, tool: Any, args: Any, cp: CallPrint) -> RepeatVerdict:
        """Pre-execute and guard in one pass, for a call whose fingerprints are already known."""
        if agent is None or not self.tracked(tool):
            return ALLOW
        s = self.slot(agent)
        hits = self.would_exceed(agent, cp.fingerprints)
        if self.cfg.local_hosts == "ask" and not (s.refused or s.exempt):
            # hits the person already allowed for the turn need no question; any other hit does
            open_hits = self.blocking(hits, cp.local, False, s.approved)
            ask = self._ask(agent, call_id, cp, open_hits)
            if ask is not None:
                return ask
        return self._decide(s, tool, cp, hits)

    def _decide(
        self, s: AgentWindow, tool: Any, cp: CallPrint, hits: tuple[Hit, ...], waived: frozenset[str] = frozenset()
    ) -> RepeatVerdict:
        block = self.blocking(hits, cp.local, s.exempt, s.approved | waived if waived else s.approved)
        if not block:
            s.commit(cp.fingerprints)
            covered = bool(hits) and not s.exempt and not waived
            return RepeatVerdict("allow", (), "approved" if covered else None, "", cp)
        s.commit(tuple(h.fp for h in block))
        note: Note = None
        if all_relaxable([h.fp for h in block], cp.local):
            note = "refused" if s.refused else "policy"
        msg = deny_message(
            tool,
            block,
            note,
            self.cfg.local_hosts,
            s.last_result,
            self.cfg.preview_chars,
            self.cfg.result_preview_chars,
        )
        return RepeatVerdict("deny", block, note, msg, cp)

    def settle(self, agent: str | None, call_id: str) -> bool:
        """An ask that never reached the guard was rejected: refuse local calls for the turn."""
        if agent is None:
            return False
        pending = self._pending.pop((agent, call_id), None)
        if pending is None:
            return False
        s = self.slot(agent)
        s.refused = True
        s.commit(tuple(h.fp for h in pending.hits))
        return True

    def post_execute(self, agent: str | None, call_id: str, tool: Any, text: str, is_error: bool) -> None:
        """Settle a rejected ask, or remember the last successful result text."""
        if agent is None or not self.tracked(tool):
            return
        if self._pending and self.settle(agent, call_id):
            return
        if not is_error and text:
            n = self.cfg.result_preview_chars
            # ASCII is one UTF-16 unit a character: the cut needs no round trip through units
            self.slot(agent).last_result = text[:n] if text.isascii() else from_units(to_units(text)[:n])

    def reset(self, agent: str) -> None:
        """A human message: forget the agent's window, last result and local flags."""
        self.agents.pop(agent, None)
        for key in [k for k in self._pending if k[0] == agent]:
            del self._pending[key]
