"""Replays as a seekable player, and the decisions `scan` prints: shared by every harness's replayer.

Each harness brings its own replayer (`harness.dsh.replay.Replayer`, `harness.acp.replay.AcpReplayer`), picked
by `harness.registry.replayer_for`; this module holds what they share: a `Step`, the recording's own engine
config, the `Player` and the findings.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from engine.config import BreakerConfig
from engine.errors import ConfigError
from wrapper.items import ApprovalItem, Item, TripItem, VerdictItem
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
        return {
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
    """

    def __init__(self, loaded: Loaded, settings: Settings | None, make: Callable[..., Any]) -> None:
        self.loaded = loaded
        self.settings = settings
        # which replayer reads this file: the harness registry's `replayer_for`
        self.make: Callable[..., Any] = make
        probe = self.make(loaded, settings)
        self.times: list[float] = []
        self.marks: list[int] = []  # positions (1-based) right after a notable step
        for n, step in enumerate(probe.steps(), 1):
            self.times.append(step.t)
            if notable(step.item):
                self.marks.append(n)
        self.mismatches = probe.mismatches
        self.bad_messages = probe.bad_messages
        self.total = len(self.times)
        self._restart()

    def _restart(self) -> None:
        self.replayer = self.make(self.loaded, self.settings)
        self.replayer.monitor.info.child = "recorded"
        self._steps = self.replayer.steps()
        self.position = 0

    @property
    def monitor(self) -> Monitor:
        """The engine at the current position."""
        m: Monitor = self.replayer.monitor
        return m

    def forward(self, n: int = 1) -> list[Item]:
        """Play up to `n` steps; the items they showed."""
        items: list[Item] = []
        for _ in range(max(0, min(n, self.total - self.position))):
            step = next(self._steps, None)
            if step is None:
                self.total = self.position
                break
            self.position += 1
            items.append(step.item)
        return items

    def seek(self, target: int) -> tuple[bool, list[Item]]:
        """Go to `target` (clamped): (whether the engine was rewound, the items to show from there)."""
        target = max(0, min(self.total, target))
        rewound = target < self.position
        if rewound:
            self._restart()
        return rewound, self.forward(target - self.position)

    def gap(self) -> float:
        """Recorded seconds between the current step and the next one."""
        if self.position >= self.total:
            return 0.0
        before = self.times[self.position - 1] if self.position else self.times[0]
        return max(0.0, self.times[self.position] - before)

    def mark(self, direction: int) -> int | None:
        """The position of the next (1) or previous (-1) notable step, or None."""
        if direction > 0:
            return next((m for m in self.marks if m > self.position), None)
        return next((m for m in reversed(self.marks) if m < self.position), None)
