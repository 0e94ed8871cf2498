"""Lens A: the repetition detector. Disjoint blocks, shingle overlap and exact repeats, per request."""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from itertools import repeat
from typing import Any

from engine.config import ThinkingConfig
from engine.lenses.blocks import BlockBuffer, block_key
from engine.units import code_points, has_surrogate, round3


@dataclass(frozen=True, slots=True)
class RepetitionSettings:
    """Lens-A settings; the values and their meaning are declared once, in `ThinkingConfig`."""

    block_chars: int
    history_blocks: int
    min_repeat_gap: int
    novelty_overlap: float
    novelty_streak: int

    @classmethod
    def from_config(cls, th: ThinkingConfig | None = None) -> RepetitionSettings:
        """Lens A as a validated `[thinking]` table configures it (the defaults when None)."""
        th = th or ThinkingConfig()
        return cls(th.block_chars, th.history_blocks, th.min_repeat_gap, th.novelty_overlap, th.novelty_streak)


def shingles(units: str, base: int, end: int) -> frozenset[str]:
    """Distinct 4-code-point shingles taken at every second code point of the block."""
    block = units[base:end]
    if not has_surrogate(block):
        return frozenset([block[k : k + 4] for k in range(0, len(block) - 3, 2)])
    cps = [chr(cp) for _, cp in code_points(units, base, end)]
    return frozenset(["".join(cps[k : k + 4]) for k in range(0, len(cps) - 3, 2)])


def overlap(a: frozenset[str], b: frozenset[str]) -> float:
    """Jaccard overlap of two shingle sets (0 when either is empty)."""
    if not a or not b:
        return 0.0
    inter = len(a & b)
    return inter / (len(a) + len(b) - inter)


class RepetitionDetector(BlockBuffer):
    """One request stream's lens A. `push()` returns a trip descriptor or None.

    Shingle overlaps against the whole history are counted at once: every shingle maps
    to a packed integer with one small counter field per ring slot, so summing the
    values of a block's shingles yields its intersection size with every stored block.
    """

    def __init__(self, settings: RepetitionSettings | None = None) -> None:
        self.s = settings or RepetitionSettings.from_config()
        super().__init__(self.s.block_chars)
        self.ring: deque[tuple[str, frozenset[str], int]] = deque()
        self.postings: dict[str, int] = {}
        self.width = (self.s.block_chars // 2 + 2).bit_length()
        self.field = (1 << self.width) - 1
        self.low_novelty = 0
        self.cooldown_until = 0
        self.last_overlap = 0.0
        self.max_overlap = 0.0
        self.trips = 0

    def _bit(self, index: int) -> int:
        return 1 << ((index % self.s.history_blocks) * self.width)

    def _block(self, base: int, end: int) -> dict[str, Any] | None:
        s = self.s
        here = self.idx
        key = block_key(self.text, base, end)
        sh = shingles(self.text, base, end)
        postings = self.postings
        best = 0.0
        exact = False
        lo = here - s.history_blocks
        hi = here - s.min_repeat_gap
        if self.ring and ring_has(self.ring, lo, hi):
            total = sum(map(postings.get, sh, repeat(0)))
            n = len(sh)
            width, fld, slots = self.width, self.field, s.history_blocks
            for k, osh, index in reversed(self.ring):
                if index > hi:
                    continue
                if index < lo:
                    break
                if k == key:
                    exact = True
                    break
                inter = (total >> ((index % slots) * width)) & fld
                if inter:
                    o = inter / (n + len(osh) - inter)
                    if o > best:
                        best = o
        if len(self.ring) >= s.history_blocks:
            _, old, oi = self.ring.popleft()
            bit = self._bit(oi)
            for sg in old:
                v = postings[sg] - bit
                if v:
                    postings[sg] = v
                else:
                    del postings[sg]
        self.ring.append((key, sh, here))
        bit = self._bit(here)
        get = postings.get
        postings.update([(sg, get(sg, 0) + bit) for sg in sh])
        self.last_overlap = best
        if best > self.max_overlap:
            self.max_overlap = best
        self.low_novelty = self.low_novelty + 1 if best >= s.novelty_overlap else 0
        if exact and here >= self.cooldown_until:
            self.cooldown_until = here + s.min_repeat_gap
            self.trips += 1
            return {"rule": "exact-repeat", "blockChars": s.block_chars, "block": here, "offset": base + 1}
        if self.low_novelty >= s.novelty_streak:
            self.low_novelty = 0
            self.trips += 1
            return {
                "rule": "low-novelty",
                "blockChars": s.block_chars,
                "block": here,
                "streak": s.novelty_streak,
                "overlap": round3(best),
                "offset": base + 1,
            }
        return None


def ring_has(ring: deque[tuple[str, frozenset[str], int]], lo: int, hi: int) -> bool:
    """Whether any stored block lies within the comparable gap range."""
    return ring[0][2] <= hi and ring[-1][2] >= lo
