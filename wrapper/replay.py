"""Plays a recorded session through a fresh engine, as if live: for `scan` and the TUI's replay."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from engine.breaker import Verdict
from engine.config import BreakerConfig
from engine.errors import ConfigError
from wrapper import protocol as P
from wrapper.items import ApprovalItem, Item, OutputItem, Question, StatusItem, TripItem, VerdictItem
from wrapper.monitor import Monitor
from wrapper.normalize import parse_args, text_of
from wrapper.settings import Settings
from wrapper.sources import Loaded, iter_dsh_events


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


class Replayer:
    """Iterate `steps()`; `mismatches` lists live decisions the replay did not reproduce."""

    def __init__(self, loaded: Loaded, settings: Settings | None = None) -> None:
        self.loaded = loaded
        self.settings = settings_for(loaded, settings or Settings())
        self.monitor = Monitor(self.settings)
        self.monitor.info.dsh = True
        self.mismatches: list[str] = []
        self.bad_messages = loaded.bad_lines
        self.record = 0  # 1-based position in `loaded.records` of the record being replayed (for errors)

    def steps(self) -> Iterator[Step]:
        """Every item the live session showed, re-derived, with its relative time."""
        if self.loaded.kind == "recording":
            yield from self._recording()
        else:
            yield from self._dsh_log()

    # -- breaker-tui recordings -----------------------------------------------------------------
    def _recording(self) -> Iterator[Step]:
        m = self.monitor
        records = self.loaded.records
        t0 = float(records[0].get("at", 0) or 0) if records else 0.0
        live_verdicts = {r.get("id"): r for r in records if r.get("k") == "out" and r.get("t") == "verdict"}
        questions: dict[str, tuple[P.ApprovalRequest, Question]] = {}
        for n, r in enumerate(records, 1):
            self.record = n
            t = max(0.0, float(r.get("at", t0) or t0) - t0)
            k = r.get("k")
            body = {key: v for key, v in r.items() if key not in ("at", "k")}
            if k == "child":
                yield Step(t, OutputItem(str(r.get("text", ""))))
                continue
            if k == "note":
                yield from (Step(t, i) for i in self._note(r))
                continue
            if k == "out" and r.get("t") == "approval_response":
                pair = questions.pop(str(r.get("id")), None)
                answer = r.get("answer", "deny")
                if pair is not None:
                    m.answer(pair[0], pair[1], answer)
                    yield Step(t, ApprovalItem(pair[1], answer, "recorded answer"))
                continue
            if k == "out" and r.get("t") == "trip":
                continue
            if k != "in" or r.get("t") == "hello":
                continue
            try:
                msg = P.parse_inbound(body)
            except P.BadMessage as e:
                self.bad_messages += 1
                yield Step(t, StatusItem("warning", f"unreadable recorded message: {e}"))
                continue
            reaction = m.handle(msg)  # the live session's dispatcher, decision for decision
            for item in reaction.items:
                if isinstance(msg, P.VerdictRequest) and isinstance(item, VerdictItem):
                    self._compare(msg.id, item.verdict, live_verdicts.get(msg.id))
                yield Step(t, item)
            for trip in reaction.trips:
                yield Step(t, TripItem(trip, describe_command(m.trip_command(trip))))
            if reaction.approval is not None:
                q = m.question(reaction.approval)
                questions[reaction.approval.id] = (reaction.approval, q)
                yield Step(t, ApprovalItem(q))

    def _note(self, r: dict[str, Any]) -> list[Item]:
        what = r.get("what")
        if what == "enforcing":
            self.monitor.breaker.set_enforcing(bool(r.get("on")))
            return [StatusItem("notice", "enforcement resumed" if r.get("on") else "enforcement paused")]
        if what == "reset-windows":
            self.monitor.breaker.reset_windows()
            return [StatusItem("notice", "sliding windows reset")]
        if what == "exit":
            return [StatusItem("exited", f"child exited with status {r.get('code')}", {"code": r.get("code")})]
        if what == "launch":
            return [StatusItem("started", "started " + " ".join(map(str, r.get("argv", []))))]
        if what == "bridge-lost":
            return [StatusItem("notice", "the dsh bridge disconnected")]
        return [StatusItem(str(what or "note"), str(r.get("text", "")))] if r.get("text") else []

    def _compare(self, vid: str, got: Verdict, live: dict[str, Any] | None) -> None:
        if live is None:
            return
        if live.get("kind") != got.kind:
            self.mismatches.append(f"verdict {vid}: live {live.get('kind')}, replay {got.kind}")

    # -- dsh's own session logs -----------------------------------------------------------------
    def _dsh_log(self) -> Iterator[Step]:
        m = self.monitor
        t0: float | None = None
        n = 0
        for k, (agent, e) in enumerate(iter_dsh_events(self.loaded), 1):
            self.record = k
            ts = float(e.get("time") or e.get("time0") or 0) / 1000
            t0 = ts if t0 is None else t0
            t = max(0.0, ts - t0)
            kind = e.get("type")
            data = e.get("data") or {}
            if kind == "step/start":
                yield from (
                    Step(t, i)
                    for i in m.request_start(
                        P.RequestStart(
                            t="request_start",
                            sessionId=agent,
                            turn=int(data.get("turn") or 0),
                            step=int(data.get("step") or 0),
                        )
                    )
                )
            items, trips = m.event(agent, e)
            for item in items:
                yield Step(t, item)
            for trip in trips:
                yield Step(t, TripItem(trip, "replay: nothing sent"))
            if kind == "tool/call":
                n += 1
                req = P.VerdictRequest(
                    t="verdict_request",
                    id=f"log-{n}",
                    sessionId=agent,
                    callId=str(data.get("callId", "")),
                    name=str(data.get("name", "")),
                    args=parse_args(data.get("arguments")),
                )
                _, vitem = m.verdict(req)
                yield Step(t, vitem)
                if vitem.verdict.kind == "ask":  # nobody can answer in a log: fail closed, as headless does
                    q = m.question(
                        P.ApprovalRequest(
                            t="approval_request", id=req.id, sessionId=agent, callId=req.callId, toolName=req.name
                        )
                    )
                    m.answer(
                        P.ApprovalRequest(t="approval_request", id=req.id, sessionId=agent, callId=req.callId),
                        q,
                        "deny",
                    )
                    yield Step(t, ApprovalItem(q, "deny", "replay of a dsh log: nobody to ask"))
            elif kind == "tool/result":
                msg = data.get("message") or {}
                call_id = str((msg.get("source") or {}).get("callId", ""))
                name, args = m.breaker.call_of(agent, call_id)
                content = msg.get("content") or []
                is_error = any(isinstance(b, dict) and b.get("isError") for b in content)
                _, ritem = m.result(
                    P.ResultRequest(
                        t="result_request",
                        id=f"res-{call_id}",
                        sessionId=agent,
                        callId=call_id,
                        name=name,
                        args=args,
                        isError=is_error,
                        text=text_of(content),
                    )
                )
                yield Step(t, ritem)


def describe_command(cmd: P.Abort | None) -> str:
    """How a trip's command reads in logs and banners."""
    if cmd is None:
        return "nothing (enforcement paused)"
    return "abort, then retry with thinking off" if cmd.retry else "abort (terminal)"


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

    def __init__(
        self, loaded: Loaded, settings: Settings | None = None, make: Callable[..., Any] | None = None
    ) -> None:
        self.loaded = loaded
        self.settings = settings
        # which replayer reads this file (dsh recordings and logs here; ACP ones from the harness registry)
        self.make: Callable[..., Any] = make or Replayer
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
