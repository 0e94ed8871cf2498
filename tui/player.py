"""Replay as a player: a recording played through the same screen, with seek both ways.

The engine state shown is always the state at the current step (`wrapper.records.replay.Player` rebuilds it
when going back); timing follows the recording at the chosen speed, and any key interrupts a wait. A
recording a live session still writes ends as LIVE (who writes it, its pid), not as finished.
"""

from __future__ import annotations

import asyncio
import contextlib

from tui.sources import Emit, Source
from wrapper.harness.capabilities import REPLAY
from wrapper.harness.registry import replayer_for
from wrapper.items import StatusItem
from wrapper.monitor import Monitor
from wrapper.records.live import writer
from wrapper.records.replay import Player
from wrapper.records.sources import Loaded
from wrapper.settings import Settings

INDEX_CHUNK = 2000  # steps the index counts between two looks at the keys


class ReplaySource(Source):
    """A recording or a dsh log as a player: play / pause, step and seek both ways, jump between trips.

    The engine state shown is the state at `position` (see `wrapper.records.replay.Player`). A backward move
    emits `StatusItem("rewind")` first, then the items up to the new position: the screen starts over.
    """

    kind = "replay"
    capabilities = REPLAY

    def __init__(self, loaded: Loaded, settings: Settings, speed: float = 1.0, paused: bool = False) -> None:
        super().__init__(settings, f"replay: {loaded.path.name}")
        self.player = Player(loaded, settings, replayer_for)
        self.speed = speed
        self.paused = paused
        self.done = False
        self.live = ""  # who still writes the recording, when it was at the end of what there is so far
        self._target: int | None = None
        self._wake = asyncio.Event()
        self._closed = False

    @property
    def monitor(self) -> Monitor:
        return self.player.monitor

    @property
    def position(self) -> int:
        """Steps played so far."""
        return self.player.position

    @property
    def total(self) -> int:
        """Steps in the recording."""
        return self.player.total

    def _poke(self) -> None:
        self._wake.set()

    def toggle_pause(self) -> None:
        """Play or pause (playing at the end starts over)."""
        self.paused = not self.paused
        if not self.paused and self.player.at_end:
            self._target = 0
        self._poke()

    def step(self, n: int = 1) -> None:
        """Pause and move `n` steps (negative: back)."""
        self.seek((self._target if self._target is not None else self.position) + n)

    def seek(self, target: int) -> None:
        """Pause at `target` (-1: the end)."""
        self.paused = True
        self._target = self.total if target < 0 else max(0, min(self.total, target))
        self._poke()

    def jump(self, direction: int) -> bool:
        """Pause at the next (1) or previous (-1) trip or denial; False when there is none."""
        mark = self.player.mark(direction)
        if mark is None:
            later = "" if self.player.complete else " yet (the rest of the recording is still being read)"
            self.notes.append(f"no further trip or denial{later}" if direction > 0 else "no earlier trip or denial")
            return False
        self.seek(mark)
        return True

    def change_speed(self, factor: float) -> None:
        """Multiply the speed (between 1/8 and 64)."""
        self.speed = max(0.125, min(64.0, (self.speed or 1.0) * factor))

    async def run(self, emit: Emit) -> None:
        while not self._closed:
            if self._target is not None:
                target, self._target = self._target, None
                rewound, items = self.player.seek(target)
                if rewound:
                    emit(StatusItem("rewind", f"back to step {target}"))
                for item in items:
                    emit(item)
                continue
            if not self.player.complete and (self.paused or self.position >= self.player.indexed):
                self.player.index(INDEX_CHUNK)  # count ahead of playback, a chunk per turn of the loop
                await asyncio.sleep(0)
                continue
            if self.paused or self.player.at_end:
                if self.player.at_end and not self.done:
                    self.done = True
                    emit(self._finished())
                self._wake.clear()
                await self._wake.wait()
                continue
            self.done = False
            gap = self.player.gap() / self.speed if self.speed > 0 else 0.0
            if gap > 0:
                self._wake.clear()
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self._wake.wait(), min(gap, 2.0))
                if self._wake.is_set():  # a key was pressed meanwhile: obey it first
                    continue
            for item in self.player.forward(1):
                emit(item)
            if self.speed <= 0 and self.position % 64 == 0:
                await asyncio.sleep(0)  # full speed still lets the screen breathe

    def _finished(self) -> StatusItem:
        """The closing line: steps, decisions not reproduced, and whether the file is the one recorded.

        A recording still being written (its writer holds its lock, as `scan` reads it) is not finished:
        the end of what is there so far is said as LIVE, with the writer's command and pid.
        """
        mism = self.player.mismatches
        loaded = self.player.loaded
        check = loaded.integrity if loaded.kind == "recording" else None
        who = writer(loaded.path) if loaded.kind == "recording" else None
        steps = f"{self.total} steps" + (f"; {len(mism)} live decisions not reproduced" if mism else "")
        if self.player.error:
            steps += f"; {self.player.error}"
        self.live = who or ""
        if who is not None:
            return StatusItem(
                "warning",
                f"replay at the end so far: {steps}; LIVE: still being written by {who}; nothing vouches for it"
                " until its writer closes it: replay it again once the session ends",
            )
        text = f"replay finished: {steps}"
        if check is not None and check.status == "live":  # its writer closed it while it played
            return StatusItem("warning", f"{text}; the recording was still being written: replay it again for the rest")
        if check is not None and (check.lies or check.status == "incomplete"):  # `scan` also names "unverified"
            return StatusItem("warning", f"{text}; recording {check.text()}")
        return StatusItem("notice", text)

    async def close(self) -> None:
        self._closed = True
        self._poke()
