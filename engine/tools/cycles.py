"""Long-horizon loops over dispatched calls: (call, result) cycles, paging with no edit, the identical-call backstop.

The repeat window (5 in 12) only sees cycles of period 3 or less. Real models also cycle through the
same handful of file views (periods of 4–17 calls, identical outputs) or page through one file for
dozens of calls. Per agent and turn this module keeps the (call, result) pairs dispatched so far and
denies, before it runs, a call that continues:

* a strict cycle: the last 3·p pairs repeat with period p (2 ≤ p ≤ 17) and the call is the next one;
* a dense replay: at least `repeats` of the last `window` dispatched pairs were pairs already seen in
  this turn, and the call was seen before too (catches period 4–17 within ~12 calls of repeating);
* paging: `paging` reads of one file with no successful change to the workspace in between, counting
  only reads that show little new: lines already shown, an unknown range, or a window under
  `PAGE_MIN` lines (reading a big file forward in real pages is progress; scrolling it 10 lines at a
  time, or back and forth, is not);
* the backstop: an identical call made `backstop` times in the last `backstop_window` calls with no
  change in between and no new result: a call whose result differs from its previous one (volatile
  parts folded: ids, stamps, durations) starts its count over, so a poll of a growing log is never
  stopped however often it is made, while one whose answer does not move is.

A result is the evidence everywhere here: paging does not count a read whose result differs from
the previous result of the same read (a log that grew is news, not a revisit).
"""

from __future__ import annotations

import re
from collections import OrderedDict, deque
from dataclasses import dataclass, field
from itertools import islice
from operator import itemgetter
from typing import Any, NamedTuple

from engine.peragent import state_of
from engine.tools.messages import preview
from engine.tools.progress import SHELL_TOOLS, command_text
from engine.tools.shellfacts import analyze

PERIOD_MAX = 17
LABEL_CHARS = 100
_SEEN_CAP = 512
_COUNTED_CAP = 256  # calls the backstop holds before it drops those out of its window
_PATH_KEYS = ("path", "file_path", "filePath", "file", "filename", "target_file", "absolute_path")
_PAGER_VERBS = frozenset({"sed", "head", "tail", "cat", "nl", "awk", "less", "more", "open", "goto", "bat"})
PAGE_MIN = 40  # a read showing fewer lines than this is a scroll step, not a page
WINDOW = 100  # the lines a viewer shows from an offset when no limit is given (SWE-agent's window)
WHOLE = 10**9  # "to the end of the file"
_SPANS_CAP = 64
_SED_ANY = re.compile(r"\bsed\s+-n\s*['\"]?(\d+),(\d+)p['\"]?")
_FILEISH = re.compile(r"^[\w./~-]*[\w-]\.[A-Za-z0-9]{1,8}$|^[\w.~-]*/[\w./-]+$")


class Pair(NamedTuple):
    """One dispatched call: its identity (`tool NUL canonical arguments`), its result, the epoch after it."""

    call: str
    result: int
    epoch: int


_CALL_OF = itemgetter(0)  # a `Pair`'s call
# a call's latest run: the epoch after it, its result, how often it ran this turn, the position of its pair,
# the position of the pair before it (-1 when not known)
Last = tuple[int, int, int, int, int]


def label(call: str) -> str:
    """A short description of a call for denial messages: the tool and the start of its arguments."""
    tool, _, body = call.partition("\x00")
    return f"{tool} {preview(body, LABEL_CHARS)}"


class CycleHit(NamedTuple):
    """A detected loop: the rule, the period (0 when none), the calls with how often each was made."""

    rule: str
    period: int
    calls: tuple[tuple[str, int], ...]
    times: int


@dataclass(slots=True)
class _Agent:
    pairs: deque[Pair] = field(default_factory=lambda: deque(maxlen=3 * PERIOD_MAX + 1))
    seen: dict[Pair, int] = field(default_factory=dict)
    # call key -> its latest run (`Last`): one table, not several keyed alike (every result writes each,
    # every check reads them)
    last: dict[str, Last] = field(default_factory=dict)
    count: int = 0  # pairs dispatched this turn: the position the next one takes
    flags: deque[bool] = field(default_factory=deque)
    repeated: int = 0  # how many of `flags` are set
    pages: OrderedDict[str, int] = field(default_factory=OrderedDict)
    spans: dict[str, list[tuple[int, int]]] = field(default_factory=dict)  # lines shown per file (merged)
    epoch: int = 0
    ticks: int = 0  # calls checked this turn: the backstop's clock
    # call key -> the ticks at which the backstop counted it, within its window (oldest first)
    counted: dict[str, list[int]] = field(default_factory=dict)
    hit: CycleHit | None = None


def page_path(tool: str, args: Any) -> str | None:
    """The file a read-like call looks at, when it names one."""
    if tool in SHELL_TOOLS:
        command = command_text(args)
        if not command or len(command) > 400:
            return None
        facts = analyze(command)
        if facts.verb not in _PAGER_VERBS or facts.sink is not None:
            return None
        words = [w for w in facts.stripped.split()[1:] if not w.startswith("-")]
        return next((w for w in reversed(words) if _FILEISH.match(w)), None)
    if not isinstance(args, dict):
        return None
    for key in _PATH_KEYS:
        v = args.get(key)
        if isinstance(v, str) and v:
            return v
    return None


def _int(v: Any) -> int | None:
    if isinstance(v, bool):
        return None
    if isinstance(v, int):
        return v
    if isinstance(v, str) and v.strip().isdigit():
        return int(v)
    return None


def page_span(tool: str, args: Any) -> tuple[int, int] | None:
    """The lines a read shows, when its arguments say (`view_range`, `offset`/`limit`, `sed -n A,Bp`, `head -n N`)."""
    if not isinstance(args, dict):
        return None
    if tool in SHELL_TOOLS:
        command = command_text(args)
        if not command or len(command) > 400:
            return None
        m = _SED_ANY.search(command)  # `sed -n 'A,Bp' f`, also behind a pipe: `nl -ba f | sed -n 'A,Bp'`
        if m:
            a, b = int(m.group(1)), int(m.group(2))
            return (a, b) if b >= a else None
        words = command.split()
        if len(words) >= 3 and words[0] == "head" and words[1] == "-n":
            n = _int(words[2])
            return (1, n) if n else None
        if len(words) == 2 and words[0] == "cat":
            return (1, WHOLE)
        return None
    vr = args.get("view_range")
    if isinstance(vr, list) and len(vr) == 2:
        first, last = _int(vr[0]), _int(vr[1])
        if first is not None and last == -1:
            return (first, WHOLE)
        if first is not None and last is not None and last >= first:
            return (first, last)
        return None
    off = _int(args.get("offset", args.get("start_line")))
    lim = _int(args.get("limit"))
    end = _int(args.get("end_line"))
    if off is not None and lim:
        return (off, off + lim - 1)
    if off is not None and end is not None and end >= off:
        return (off, end)
    if off is not None and lim is None and end is None:
        return (off, off + WINDOW - 1)
    if off is None and lim is None and end is None and not any(k in args for k in ("view_range", "pattern", "query")):
        return (1, WHOLE)  # the whole file
    return None


def _forget_before(table: dict[str, list[int]], floor: int) -> None:
    """Drop the calls the backstop last counted at or before `floor`: out of its window, they count for nothing."""
    for call in [c for c, ticks in table.items() if ticks[-1] <= floor]:
        del table[call]


def _within(count: int, top: int, at: int, before: int) -> bool:
    """Whether a call whose latest pair is at position `at` (the one before it at `before`, -1 when not
    known) may be among the pairs a cycle of period 2 .. `top` looks back to: positions `count - top`
    to `count - 2`. Never False when it is: a True only means "look".
    """
    if at < count - 1:
        return at >= count - top
    return before < 0 or before >= count - top


def _shows_little_new(spans: list[tuple[int, int]] | None, span: tuple[int, int] | None) -> bool:
    """Whether a read is a revisit: no known range, a scroll-sized window, or half of it already shown."""
    if span is None or span[1] - span[0] + 1 < PAGE_MIN:
        return True
    if not spans:
        return False
    a, b = span
    seen = sum(max(0, min(b, y) - max(a, x) + 1) for x, y in spans)
    return 2 * seen >= b - a + 1


def _merge(spans: list[tuple[int, int]], span: tuple[int, int]) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    for x, y in sorted([*spans, span]):
        if out and x <= out[-1][1] + 1:
            out[-1] = (out[-1][0], max(out[-1][1], y))
        else:
            out.append((x, y))
    return out[:_SPANS_CAP]


class Cycles:
    """Per-agent pair history for the strict-cycle, dense-replay, paging and backstop rules."""

    def __init__(
        self,
        window: int = 16,
        repeats: int = 12,
        paging: int = 20,
        backstop: int = 10,
        backstop_window: int = 20,
        cycles: bool = True,
    ) -> None:
        self.cycles = cycles
        self.window = window
        self.repeats = repeats
        self.paging = paging
        self.backstop = backstop
        self.backstop_window = backstop_window
        self.agents: dict[str, _Agent] = {}

    def _a(self, agent: str) -> _Agent:
        return state_of(self.agents, agent, _Agent)

    def check(
        self, agent: str, call: str, epoch: int, path: str | None, span: tuple[int, int] | None = None
    ) -> CycleHit | None:
        """Before dispatch: the loop this call would continue, if any (and count it for the backstop)."""
        a = self.agents.get(agent) or self._a(agent)
        if epoch != a.epoch:
            a.epoch = epoch
            a.pages.clear()
            a.spans.clear()
        last = a.last.get(call)
        hit = self._backstop(a, call, epoch, last) if self.backstop else None
        if hit is None and last is not None and self.cycles:  # a cycle repeats a call dispatched before
            hit = self._cycle(a, call, last)
        if hit is None and path is not None and self.paging:
            if a.pages.get(path, 0) >= self.paging and _shows_little_new(a.spans.get(path), span):
                hit = CycleHit("paging", 0, ((path, a.pages[path]),), a.pages[path])
        if hit is not None:
            a.hit = hit
        return hit

    def paging_due(self, agent: str, epoch: int) -> bool:
        """Whether a read could reach the paging limit now (some file was read `paging` times since the last
        change): only then does the check need the file and lines a read shows.
        """
        a = self.agents.get(agent)
        if not self.paging or a is None or a.epoch != epoch or not a.pages:
            return False  # (a new epoch clears the pages before the check)
        return max(a.pages.values()) >= self.paging

    def _backstop(self, a: _Agent, call: str, epoch: int, last: Last | None) -> CycleHit | None:
        """Count the call on the backstop's clock, unless a change came after its latest dispatch (then it is a
        new attempt); a hit when it was counted `backstop` times in the last `backstop_window` checks (`check`
        asks only when the backstop is on).
        """
        tick = a.ticks
        a.ticks = tick + 1
        if last is not None and last[0] != epoch:
            return None
        table = a.counted
        ticks = table.get(call)
        if ticks is None:
            if len(table) >= _COUNTED_CAP:
                _forget_before(table, tick - self.backstop_window)
            ticks = table[call] = []
        ticks.append(tick)
        floor = tick - self.backstop_window  # the window holds the ticks after it
        while ticks[0] <= floor:
            del ticks[0]
        n = len(ticks)
        if n >= self.backstop:
            return CycleHit("backstop", 1, ((label(call), n),), n)
        return None

    def _cycle(self, a: _Agent, call: str, last: Last) -> CycleHit | None:
        """A strict cycle or a dense replay that this call, dispatched before (`last`), would continue."""
        seq = a.pairs
        n = len(seq)
        top = min(PERIOD_MAX, n // 3)
        # a period p (2 .. top) needs this call p pairs back: most calls are not among those
        if (
            top >= 2
            and _within(a.count, top, last[3], last[4])
            and call in map(_CALL_OF, islice(reversed(seq), 1, top))
        ):
            # the pairs `p` back, walked from the end (no index per period)
            for p, back in enumerate(islice(reversed(seq), 1, top), 2):
                if back.call != call or all(seq[n - k].call == call for k in range(1, p + 1)):
                    continue  # one call repeated is the repeat window's business, not a cycle
                if all(seq[n - i] == seq[n - i - p] for i in range(1, 2 * p + 1)):
                    return self._hit(a, "cycle", p, [seq[n - p + k] for k in range(p)])
        if len(a.flags) >= self.window and a.repeated >= self.repeats:
            unit: dict[str, Pair] = {}
            for pr in list(seq)[-self.window :]:
                unit.setdefault(pr.call, pr)
            return self._hit(a, "cycle", len(unit), list(unit.values()))
        return None

    def _hit(self, a: _Agent, rule: str, period: int, unit: list[Pair]) -> CycleHit:
        last = a.last
        calls = tuple((label(p.call), last[p.call][2] if p.call in last else 0) for p in unit)
        return CycleHit(rule, period, calls, min(n for _, n in calls))

    def record(
        self,
        agent: str,
        call: str,
        result: int,
        path: str | None,
        epoch: int,
        span: tuple[int, int] | None = None,
        answer: int | None = None,
        brought: bool | None = None,
    ) -> None:
        """After a dispatched call: remember its pair, whether it repeats one, the page read, the epoch after it.

        `answer` is the result compared for news (per-call ids folded too; `result` when not given);
        `brought` is whether the call brought something new (`novelty.Seen`), judged here on the
        previous answer of the same call when not given.
        """
        if answer is None:
            answer = result
        a = self._a(agent)
        last = a.last
        prev = last.get(call)
        at = a.count
        a.count = at + 1
        if len(last) >= _SEEN_CAP:
            last.clear()  # bounded: a turn with this many distinct calls starts counting afresh
            last[call] = (epoch, answer, 1, at, -1)
        elif prev is None:
            last[call] = (epoch, answer, 1, at, -1)
        else:
            last[call] = (epoch, answer, prev[2] + 1, at, prev[3])
        news = (prev is not None and prev[1] != answer) if brought is None else brought  # new: progress
        if news:
            # the backstop counts repeats that show nothing new: a changed result starts the count over
            a.counted.pop(call, None)
        pair = Pair(call, result, epoch)  # a pair seen before a change to the workspace is not a repeat after it
        seen = a.seen.get(pair, 0)
        a.flags.append(seen > 0)
        a.repeated += seen > 0
        while len(a.flags) > self.window:
            a.repeated -= a.flags.popleft()
        if len(a.seen) >= _SEEN_CAP:
            a.seen.clear()
        a.seen[pair] = seen + 1
        a.pairs.append(pair)
        if path is not None:
            if path not in a.pages and len(a.pages) >= _SEEN_CAP:
                old, _ = a.pages.popitem(last=False)
                a.spans.pop(old, None)
            spans = a.spans.get(path)
            revisit = not news and _shows_little_new(spans, span)
            a.pages[path] = a.pages.get(path, 0) + (1 if revisit else 0)
            if span is not None:
                a.spans[path] = _merge(spans or [], span)

    def last_hit(self, agent: str) -> CycleHit | None:
        """The loop most recently detected for this agent in this turn (for the window panel)."""
        a = self.agents.get(agent)
        return a.hit if a else None

    def reset(self, agent: str) -> None:
        """A new turn or a human message: forget the agent."""
        self.agents.pop(agent, None)
