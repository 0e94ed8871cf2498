"""Replays as a seekable player, and the decisions `scan` prints: shared by every harness's replayer.

Each harness brings its own replayer (`harness.dsh.replay.Replayer`, `harness.acp.replay.AcpReplayer`), picked
by `harness.registry.replayer_for`; this module holds what they share: a `Step`, the recording's own engine
config, the `Player` and the findings.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from engine.config import BreakerConfig
from engine.errors import ConfigError
from wrapper.items import ApprovalItem, Item, StatusItem, TripItem, VerdictItem
from wrapper.monitor import Monitor
from wrapper.records.sources import Loaded
from wrapper.settings import Settings


@dataclass(frozen=True)
class Step:
    """One replayed moment: when it happened (seconds from the start) and what it showed."""

    t: float
    item: Item


def settings_for(loaded: Loaded, fallback: Settings) -> Settings:
    """Use the engine config stored in a recording, so verdicts are reproduced exactly."""
    cfg = loaded.meta.get("config") if loaded.kind == "recording" else None
    if not isinstance(cfg, dict):
        return fallback
    try:
        engine = BreakerConfig.model_validate(cfg)
    except (ValueError, ConfigError):
        return fallback
    return Settings(engine=engine, wrapper=fallback.wrapper, ui=fallback.ui, source="recording")


def finding(item: Item) -> dict[str, Any] | None:
    """The JSON line `scan` prints for an item, or None when the item is not a decision."""
    if isinstance(item, VerdictItem):
        v = item.verdict
        out = {
            "kind": "verdict",
            "agent": item.agent,
            "callId": item.call_id,
            "tool": item.tool,
            "verdict": v.kind,
            "source": v.source,
            "hits": [h.as_list() for h in v.hits],
            "note": v.note,
            "args": json.loads(json.dumps(item.args, default=str)),
        }
        if item.ran:  # it ran without asking (ACP): judged after it ran, so a deny here refused nothing
            out["ran"] = True
        return out
    if isinstance(item, TripItem):
        return {"kind": "trip", **item.trip.to_dict(), "evidence": item.trip.evidence(), "action_sent": item.sent}
    if isinstance(item, ApprovalItem) and item.answer is not None:
        return {
            "kind": "approval",
            "agent": item.question.agent,
            "callId": item.question.call_id,
            "answer": item.answer,
            "by": item.by,
            "why": item.why,
        }
    return None


def notable(item: Item) -> bool:
    """A moment a person jumps to: a trip, or a verdict that is not a plain allow."""
    return isinstance(item, TripItem) or (isinstance(item, VerdictItem) and item.verdict.kind != "allow")


class Player:
    """A recording as a seekable position: the engine state shown is always the state at `position`.

    Going forward feeds the next steps through the engine; going back starts a fresh engine and feeds
    it up to the target (an engine cannot run backwards), so the window and the scores at step N are
    exactly what the live monitor showed at step N.

    The file is read as a stream, never held: playback pulls one step at a time, and a second replayer
    (the index) runs ahead counting the steps and remembering where the trips and denials are, a chunk
    at a time (`index`), so the first step shows at once however long the recording is. Until the index
    has reached the end, `total` is the count so far and `complete` is False.
    """

    INDEX_AT_START = 5000  # steps counted before the first is shown: a short recording is fully known at once

    def __init__(self, loaded: Loaded, settings: Settings | None, make: Callable[..., Any]) -> None:
        self.loaded = loaded
        self.settings = settings
        # which replayer reads this file: the harness registry's `replayer_for`
        self.make: Callable[..., Any] = make
        self.marks: list[int] = []  # positions (1-based) right after a notable step
        self.indexed = 0
        self.complete = False
        self.error: str | None = None  # why reading stopped early (a record no replayer could read)
        self.mismatches: list[str] = []
        self.bad_messages = 0
        self._probe: Any = self.make(loaded, settings)
        self._probe_steps: Iterator[Step] | None = self._probe.steps()
        self.index(self.INDEX_AT_START)
        self._restart()

    def _next(self, steps: Iterator[Step]) -> Step | None:
        """The next step, or None at the end or when a record cannot be replayed (said in `error`)."""
        try:
            return next(steps, None)
        except Exception as e:  # a hostile record must end the replay, not the screen
            self.error = f"the replay stopped at a record it cannot read: {type(e).__name__}: {e}"
            return None

    def index(self, budget: int) -> bool:
        """Count up to `budget` more steps ahead of playback; True once the whole recording is counted."""
        for _ in range(budget if not self.complete else 0):
            if self._probe_steps is None:
                break
            step = self._next(self._probe_steps)
            if step is None:
                self._finish(self._probe, self.indexed)
                break
            self.indexed += 1
            if notable(step.item):
                self.marks.append(self.indexed)
        return self.complete

    def _finish(self, replayer: Any, total: int) -> None:
        if not self.complete:
            self.complete = True
            self.indexed = total
            self.mismatches = replayer.mismatches
            self.bad_messages = replayer.bad_messages
            self._probe = self._probe_steps = None

    @property
    def total(self) -> int:
        """Steps in the recording (while `complete` is False: the steps known so far)."""
        return self.indexed if self.complete else max(self.indexed, self.position)

    @property
    def at_end(self) -> bool:
        """Whether playback has shown the last step of the recording."""
        return self.complete and self.position >= self.indexed

    def _restart(self) -> None:
        self.replayer = self.make(self.loaded, self.settings)
        self.replayer.monitor.info.child = "recorded"
        self._steps = self.replayer.steps()
        self._peek: Step | None = self._next(self._steps)
        self._last_t: float | None = None
        self.position = 0

    @property
    def monitor(self) -> Monitor:
        """The engine at the current position."""
        m: Monitor = self.replayer.monitor
        return m

    def forward(self, n: int = 1) -> list[Item]:
        """Play up to `n` steps; the items they showed."""
        items: list[Item] = []
        for _ in range(max(0, n)):
            step = self._peek
            if step is None:
                self._finish(self.replayer, self.position)
                break
            self._peek = self._next(self._steps)
            self.position += 1
            self._last_t = step.t
            items.append(step.item)
        return items

    def seek(self, target: int) -> tuple[bool, list[Item]]:
        """Go to `target` (clamped to the steps known): (whether the engine was rewound, the items from there)."""
        target = max(0, min(self.total, target))
        rewound = target < self.position
        if rewound:
            self._restart()
        return rewound, self.forward(target - self.position)

    def gap(self) -> float:
        """Recorded seconds between the current step and the next one."""
        if self._peek is None or self._last_t is None:
            return 0.0
        return max(0.0, self._peek.t - self._last_t)

    def mark(self, direction: int) -> int | None:
        """The position of the next (1) or previous (-1) notable step, or None (among the steps counted so far)."""
        if direction > 0:
            return next((m for m in self.marks if m > self.position), None)
        return next((m for m in reversed(self.marks) if m < self.position), None)


def session_note(r: dict[str, Any], monitor: Monitor, child: str) -> list[Item] | None:
    """A recorded note every harness writes alike (`SessionControls`, launch and exit), replayed into `monitor`;
    None for a note of the harness's own. `child` names what exited ("child", "agent").
    """
    what = r.get("what")
    if what == "enforcing":
        monitor.breaker.set_enforcing(bool(r.get("on")))
        return [StatusItem("notice", "enforcement resumed" if r.get("on") else "enforcement paused")]
    if what == "reset-windows":
        monitor.breaker.reset_windows()
        return [StatusItem("notice", "sliding windows reset")]
    if what == "launch":
        return [StatusItem("started", "started " + " ".join(map(str, r.get("argv", []))))]
    if what == "exit":
        return [StatusItem("exited", f"{child} exited with status {r.get('code')}", {"code": r.get("code")})]
    return None
