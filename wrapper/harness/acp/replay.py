"""Plays an ACP recording through a fresh `AcpMonitor`, as if live: for `replay`, `scan` and the tests.

The recording holds every frame both ways plus the person's answers and the prompts' sources, so the
same monitor re-derives every verdict and trip; `mismatches` lists live decisions it did not reproduce.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterator
from typing import Any

from engine.config import BreakerConfig
from engine.errors import ConfigError
from wrapper.harness.acp.calls import obj
from wrapper.harness.acp.handshake import model_of
from wrapper.harness.acp.monitor import AcpMonitor
from wrapper.harness.acp.stream import AGENT_LOG
from wrapper.items import ApprovalItem, Item, OutputItem, Question, TripItem, VerdictItem
from wrapper.monitor import Info
from wrapper.records.replay import Step, session_note
from wrapper.records.sources import Loaded
from wrapper.settings import AcpSettings, Settings

MAX_MISMATCHES = 100  # listed; the counts still say how many verdicts there were
MAX_TRIPS_COMPARED = 1000


def settings_for(loaded: Loaded, fallback: Settings) -> Settings:
    """The engine and `[acp]` config stored in the recording, so decisions are reproduced exactly."""
    engine, acp = fallback.engine, fallback.acp
    try:
        if isinstance(loaded.meta.get("config"), dict):
            engine = BreakerConfig.model_validate(loaded.meta["config"])
        if isinstance(loaded.meta.get("acp"), dict):
            acp = AcpSettings.model_validate(loaded.meta["acp"])
    except (ValueError, ConfigError):
        return fallback
    return Settings(engine=engine, wrapper=fallback.wrapper, ui=fallback.ui, acp=acp, source="recording")


class AcpReplayer:
    """Iterate `steps()`; the same interface as the dsh `Replayer`."""

    def __init__(self, loaded: Loaded, settings: Settings | None = None) -> None:
        self.loaded = loaded
        self.settings = settings_for(loaded, settings or Settings())
        self.acp = AcpMonitor(self.settings, Info(runner=True), str(loaded.meta.get("agent") or "agent"))
        self.monitor = self.acp.monitor
        self.mismatches: list[str] = []
        self.bad_messages = (
            0  # recorded messages the replay could not read (the file's bad lines: `loaded`, after a pass)
        )
        self.verdicts: deque[tuple[str, str]] = deque()  # replayed, not yet paired with the live one
        self._replayed_count = 0
        self._live: deque[tuple[str, str]] = deque()
        self._live_count = self._matched = 0
        self.trips: list[str] = []

    def steps(self) -> Iterator[Step]:
        """Every item the live session showed, re-derived, with its relative time (the file read as a stream)."""
        t0: float | None = None
        requests: dict[Any, tuple[str, dict[str, Any]]] = {}
        asked: dict[str, tuple[dict[str, Any], Question]] = {}
        live_trips: list[str] = []
        for r in self.loaded.records:
            at = r.get("at")
            if at is not None and t0 is None:
                t0 = float(at)
            t = max(0.0, float(at) - t0) if at is not None and t0 is not None else 0.0
            k = r.get("k")
            if k == "child":
                yield Step(t, OutputItem(str(r.get("text", "")), AGENT_LOG))
            elif k == "note":
                what = r.get("what")
                if what == "verdict":
                    self._live.append((str(r.get("callId")), str(r.get("kind"))))
                    self._live_count += 1
                    self._pair()
                elif what == "trip" and len(live_trips) < MAX_TRIPS_COMPARED:
                    live_trips.append(str(r.get("rule")))
                for item in self._note(r, asked):
                    yield from self._step(t, item)
            elif k == "acp" and not r.get("loading"):
                msg = obj(r, "msg")
                for item in self._frame(str(r.get("dir")), msg, requests, asked):
                    yield from self._step(t, item)
        if self._live_count != self._replayed_count:
            self.mismatches.append(f"{self._live_count} live verdicts, {self._replayed_count} in the replay")
        if live_trips != self.trips[:MAX_TRIPS_COMPARED]:
            self.mismatches.append(f"trips: live {live_trips}, replay {self.trips[:MAX_TRIPS_COMPARED]}")

    def _pair(self) -> None:
        """Compare live and replayed verdicts in order, as both arrive (only the unpaired ones are kept)."""
        while self._live and self.verdicts:
            live, got = self._live.popleft(), self.verdicts.popleft()
            self._matched += 1
            if live != got and len(self.mismatches) < MAX_MISMATCHES:
                self.mismatches.append(f"verdict {self._matched} ({live[0]}): live {live[1]}, replay {got[1]}")

    def _step(self, t: float, item: Item) -> Iterator[Step]:
        if isinstance(item, VerdictItem):
            self.verdicts.append((item.call_id, item.verdict.kind))
            self._replayed_count += 1
            self._pair()
        elif isinstance(item, TripItem) and len(self.trips) < MAX_TRIPS_COMPARED:
            self.trips.append(item.trip.rule)
        yield Step(t, item)

    def _note(self, r: dict[str, Any], asked: dict[str, tuple[dict[str, Any], Question]]) -> list[Item]:
        what = r.get("what")
        acp = self.acp
        if what == "prompt":
            return acp.prompt_sent(str(r.get("text", "")), bool(r.get("followup")))
        if what == "prompt-done":
            items = acp.prompt_done(r.get("result"), r.get("error"))
            return items
        if what == "followup-dropped":
            return acp.end_turn()
        if what == "answer":
            pair = asked.pop(str(r.get("rid")), None)
            if pair is None:
                return []
            by, why = r.get("by"), r.get("why")
            if not isinstance(by, str) or not by:
                by, why = "unknown", "recorded before answers named who gave them"
            return acp.answered(
                pair[0], pair[1], r.get("answer", "deny"), by, why if isinstance(why, str) else ""
            ).items
        return session_note(r, self.monitor, "agent") or []

    def _frame(
        self,
        direction: str,
        msg: dict[str, Any],
        requests: dict[Any, tuple[str, dict[str, Any]]],
        asked: dict[str, tuple[dict[str, Any], Question]],
    ) -> list[Item]:
        method = msg.get("method")
        params = obj(msg, "params")
        if direction == "c2a":
            if isinstance(method, str) and "id" in msg:
                requests[msg["id"]] = (method, params or {})
            return []
        if method == "session/update":
            return self.acp.update(params or {}).items
        if method == "session/request_permission":
            r = self.acp.permission(params or {})
            if r.question is not None:
                asked[str(msg.get("id"))] = (params or {}, r.question)
                return [*r.items]
            return r.items
        if method is None and "id" in msg:
            req = requests.pop(msg["id"], None)
            if req is None or not isinstance(msg.get("result"), dict):
                return []
            name, sent = req
            if name == "session/new":
                sid = str(msg["result"].get("sessionId", ""))
                return [
                    *self.acp.session_started(sid, model_of(msg["result"]), False),
                    *self.acp.shown.opened(msg["result"]),
                ]
            if name == "session/load":
                sid = str(sent.get("sessionId", ""))
                return [
                    *self.acp.session_started(sid, model_of(msg["result"]), True),
                    *self.acp.shown.opened(msg["result"]),
                ]
            if name in ("session/set_config_option", "session/set_mode", "session/set_model"):
                return self.acp.shown.accepted(name, sent, msg["result"])
        return []


def is_acp_recording(loaded: Loaded) -> bool:
    """Whether a loaded file is a recording of an ACP session."""
    return loaded.kind == "recording" and loaded.meta.get("harness") == "acp"


__all__ = ["AcpReplayer", "ApprovalItem", "is_acp_recording"]
