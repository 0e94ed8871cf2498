"""The cycle and backstop rules as bookkeeping: the quick forms (positions, a clock of ticks, a running count)
answer every check as the plain formulation below does, caps and clears included.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from engine.tools import cycles
from engine.tools.cycles import PERIOD_MAX, Cycles

WINDOW, REPEATS, BACKSTOP, BACKSTOP_WINDOW = 8, 5, 3, 6


class _PlainCycles:
    """The strict-cycle, dense-replay and backstop rules written plainly: every check and pair kept, the
    look-back scanned, the flags summed, the backstop's window counted from the whole list.
    """

    def __init__(self) -> None:
        self.checks: list[str | None] = []  # per check: the call, or None when a change came after its last run
        self.pairs: list[tuple[str, int, int]] = []
        self.last: dict[str, tuple[int, int, int]] = {}  # call -> (epoch after it, its answer, times run)
        self.seen: dict[tuple[str, int, int], int] = {}
        self.flags: list[bool] = []

    def check(self, call: str, epoch: int) -> tuple[Any, ...] | None:
        last = self.last.get(call)
        counted = last is None or last[0] == epoch
        self.checks.append(call if counted else None)
        n = self.checks[-BACKSTOP_WINDOW:].count(call)
        if counted and n >= BACKSTOP:
            return ("backstop", 1, n)
        if last is None:
            return None
        seq = self.pairs[-(3 * PERIOD_MAX + 1) :]
        m = len(seq)
        for p in range(2, min(PERIOD_MAX, m // 3) + 1):
            if seq[m - p][0] != call or all(seq[m - k][0] == call for k in range(1, p + 1)):
                continue
            if all(seq[m - i] == seq[m - i - p] for i in range(1, 2 * p + 1)):
                return ("cycle", p, min(self.last[c][2] if c in self.last else 0 for c, _, _ in seq[m - p :]))
        if len(self.flags) >= WINDOW and sum(self.flags[-WINDOW:]) >= REPEATS:
            unit = dict.fromkeys(c for c, _, _ in seq[-WINDOW:])
            return ("cycle", len(unit), min(self.last[c][2] if c in self.last else 0 for c in unit))
        return None

    def record(self, call: str, result: int, epoch: int) -> None:
        prev = self.last.get(call)
        if len(self.last) >= cycles._SEEN_CAP:
            self.last.clear()
            self.last[call] = (epoch, result, 1)
        else:
            self.last[call] = (epoch, result, prev[2] + 1 if prev is not None else 1)
        if prev is not None and prev[1] != result:
            self.checks = [None if c == call else c for c in self.checks]
        pair = (call, result, epoch)
        times = self.seen.get(pair, 0)
        self.flags.append(times > 0)
        if len(self.seen) >= cycles._SEEN_CAP:
            self.seen.clear()
        self.seen[pair] = times + 1
        self.pairs.append(pair)


_OPS = st.lists(
    st.tuples(st.integers(0, 5), st.integers(0, 2), st.integers(0, 1), st.booleans()),
    max_size=160,
)


@pytest.mark.slow
@settings(max_examples=400, deadline=None)
@given(_OPS)
# a period of six whose last call clears the table of last calls as it is recorded (its earlier place is
# no longer known): the look-back must still be scanned
@example([(k, 0, 0, True) for k in (0, 1, 2, 3, 4, 0) * 3] + [(0, 0, 0, False)])
# four views in turn: the dense replay sees them before a strict cycle can; then new calls push them out
@example([(k, 0, 0, True) for k in (0, 1, 2, 3) * 4])
@example([(k, 0, 0, True) for k in (0, 1, 2, 3) * 3] + [(k, 0, 0, True) for k in range(10, 18)] + [(17, 0, 0, False)])
def test_cycles_answer_as_the_plain_formulation_would(ops: list[tuple[int, int, int, bool]]) -> None:
    """Each op checks one call and, unless the check is only a look, records it with a result at an epoch:
    calls recur, results change, epochs move, and the small caps make the tables clear and prune.
    """
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(cycles, "_SEEN_CAP", 5)
        mp.setattr(cycles, "_COUNTED_CAP", 3)
        quick, plain = Cycles(WINDOW, REPEATS, 0, BACKSTOP, BACKSTOP_WINDOW), _PlainCycles()
        for k, result, epoch, run in ops:
            call = f"bash\x00c{k}"
            hit = quick.check("A", call, epoch, None)
            assert (None if hit is None else (hit.rule, hit.period, hit.times)) == plain.check(call, epoch)
            if run:
                quick.record("A", call, result, None, epoch)
                plain.record(call, result, epoch)


def test_the_backstop_counts_a_call_across_more_calls_than_it_holds() -> None:
    """Pruning the calls out of the backstop's window forgets none inside it: a call repeated between many
    distinct ones is still counted.
    """
    c = Cycles(backstop=3, backstop_window=40)
    hits = []
    for i in range(600):
        call = "bash\x00same" if i % 13 == 0 else f"bash\x00other {i}"
        hits.append(c.check("A", call, 0, None))
        c.record("A", call, 1, None, 0)
    assert hits[26] is not None and hits[26].rule == "backstop"  # its 3rd time within 40 calls
    assert all(h is None or h.rule == "backstop" for h in hits)
