"""Lens A2: the degeneracy detector. Symbol and emoji floods that carry no meaning, per request."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import regex

from engine.blocks import BlockBuffer
from engine.config import ThinkingConfig
from engine.shell import JS_SPACE
from engine.units import FNV_OFFSET, FNV_PRIME, MASK32, code_points, has_surrogate, round3

SPACE, EMOJI, MEANING, SYMBOL = "S", "E", "M", "Y"
_NOT_EMOJI = (
    (0xA9, 0xA9),
    (0xAE, 0xAE),
    (0x203C, 0x203C),
    (0x2049, 0x2049),
    (0x2122, 0x2122),
    (0x2139, 0x2139),
    (0x2190, 0x21FF),
    (0x25AA, 0x25AB),
    (0x25FB, 0x25FE),
    (0x2900, 0x297F),
    (0x2B00, 0x2BFF),
    (0x3030, 0x3030),
    (0x303D, 0x303D),
    (0x3297, 0x3297),
    (0x3299, 0x3299),
)
_FORCE_EMOJI = ((0x200D, 0x200D), (0x20E3, 0x20E3), (0xFE0E, 0xFE0F), (0x1F1E6, 0x1F1FF), (0x1F3FB, 0x1F3FF))
_PICTO = regex.compile(r"\p{Extended_Pictographic}")
_LN = regex.compile(r"[\p{L}\p{N}]")


def _in(cp: int, ranges: tuple[tuple[int, int], ...]) -> bool:
    return any(lo <= cp <= hi for lo, hi in ranges)


def classify(cp: int) -> str:
    """SPACE / EMOJI / MEANING / SYMBOL, in the seed's order of tests."""
    if cp == 0x20 or 0x09 <= cp <= 0x0D:
        return SPACE
    ch = chr(cp)
    if not _in(cp, _NOT_EMOJI) and (_in(cp, _FORCE_EMOJI) or _PICTO.match(ch)):
        return EMOJI
    if _LN.match(ch):
        return MEANING
    if ch in JS_SPACE:
        return SPACE
    return SYMBOL


class _ClassTable(dict[int, str]):
    """`str.translate` table mapping a code point to its class letter, filled on demand."""

    def __missing__(self, cp: int) -> str:
        c = self[cp] = classify(cp)
        return c


CLASS_TABLE = _ClassTable()
_ASCII_SPACE = bytes(range(9, 14)) + b" "
_ASCII_ALNUM = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"


@dataclass(frozen=True, slots=True)
class DegeneracySettings:
    """Lens-A2 thresholds; the values and their meaning are declared once, in `ThinkingConfig`."""

    block_chars: int
    evidence_min: int
    streak: int
    meaning_ratio_max: float
    noise_ratio_min: float
    variety_ratio_max: float
    run_len_min: int
    run_count_min: int
    emoji_min: int
    emoji_ratio_min: float

    @classmethod
    def from_config(cls, th: ThinkingConfig | None = None) -> DegeneracySettings:
        """Lens A2 as a validated `[thinking]` table configures it (the defaults when None)."""
        th = th or ThinkingConfig()
        return cls(
            th.block_chars,
            th.deg_evidence_min,
            th.deg_streak,
            th.deg_meaning_ratio_max,
            th.deg_noise_ratio_min,
            th.deg_variety_ratio_max,
            th.deg_run_len_min,
            th.deg_run_count_min,
            th.deg_emoji_min,
            th.deg_emoji_ratio_min,
        )


@dataclass(frozen=True, slots=True)
class BlockFeatures:
    """Everything lens A2 measures in one block, and its verdict."""

    n: int
    non_space: int
    meaning: int
    symbol: int
    emoji: int
    distinct: int
    max_run: int
    run_count: int
    meaning_ratio: float
    noise_ratio: float
    variety: float
    emoji_ratio: float
    flags: tuple[str, ...]
    degenerate: bool

    def stats(self) -> dict[str, Any]:
        """The rounded stats of a trip descriptor."""
        return {
            "meaningRatio": round3(self.meaning_ratio),
            "noiseRatio": round3(self.noise_ratio),
            "variety": round3(self.variety),
            "emojiRatio": round3(self.emoji_ratio),
            "maxRun": self.max_run,
            "runCount": self.run_count,
            "emoji": self.emoji,
            "nonSpace": self.non_space,
        }


def features(units: str, base: int, end: int, s: DegeneracySettings) -> BlockFeatures:
    """Measure one block exactly, code point by code point (the reference path)."""
    n = spaces = meaning = symbol = emoji = 0
    distinct: set[int] = set()
    run_cp = -1
    run_len = max_run = run_count = 0
    for _, cp in code_points(units, base, end):
        n += 1
        distinct.add(cp)
        c = CLASS_TABLE[cp]
        if c in (SPACE, MEANING):
            if run_len >= 3:
                run_count += 1
            run_cp, run_len = -1, 0
            if c == SPACE:
                spaces += 1
            else:
                meaning += 1
            continue
        if c == EMOJI:
            emoji += 1
        else:
            symbol += 1
        if cp == run_cp:
            run_len += 1
        else:
            if run_len >= 3:
                run_count += 1
            run_cp, run_len = cp, 1
        if run_len > max_run:
            max_run = run_len
    if run_len >= 3:
        run_count += 1
    non_space = n - spaces
    denom = max(1, non_space)
    mr = meaning / denom
    nr = (symbol + emoji) / denom
    er = emoji / denom
    var = len(distinct) / max(1, min(non_space, 48))
    flags = []
    if mr <= s.meaning_ratio_max:
        flags.append("meaningless")
    if nr >= s.noise_ratio_min:
        flags.append("noisy")
    if var <= s.variety_ratio_max:
        flags.append("low-variety")
    if max_run >= s.run_len_min or run_count >= s.run_count_min:
        flags.append("run-heavy")
    if emoji >= s.emoji_min and er >= s.emoji_ratio_min:
        flags.append("emoji-flood")
    degenerate = "meaningless" in flags and len(flags) - 1 >= s.evidence_min
    return BlockFeatures(
        n,
        non_space,
        meaning,
        symbol,
        emoji,
        len(distinct),
        max_run,
        run_count,
        mr,
        nr,
        var,
        er,
        tuple(flags),
        degenerate,
    )


def gate_open(units: str, base: int, end: int, s: DegeneracySettings) -> bool:
    """The hard meaning gate alone, computed with C-level counting where the block allows it."""
    block = units[base:end]
    if block.isascii():
        b = block.encode("ascii")
        n = len(b)
        non_space = len(b.translate(None, _ASCII_SPACE))
        meaning = n - len(b.translate(None, _ASCII_ALNUM))
    elif not has_surrogate(block):
        cls = block.translate(CLASS_TABLE)
        non_space = len(cls) - cls.count(SPACE)
        meaning = cls.count(MEANING)
    else:
        return True  # let the exact path decide
    return meaning / max(1, non_space) <= s.meaning_ratio_max


def fnv1a(units: str, base: int, end: int) -> int:
    """FNV-1a 32 over a block's code units (the trip fingerprint)."""
    h = FNV_OFFSET
    for i in range(base, end):
        h = ((h ^ ord(units[i])) * FNV_PRIME) & MASK32
    return h


def trip_rule(flags: tuple[str, ...]) -> str:
    """The rule name a degenerate block trips under."""
    if "emoji-flood" in flags:
        return "emoji-flood"
    if "run-heavy" in flags:
        return "symbol-flood"
    return "degenerate-output"


class DegeneracyDetector(BlockBuffer):
    """One request stream's lens A2. `push()` returns a trip descriptor or None."""

    def __init__(self, settings: DegeneracySettings | None = None) -> None:
        self.s = settings or DegeneracySettings.from_config()
        super().__init__(self.s.block_chars)
        self.streak = 0
        self.last_block = ""
        self.last_gate = False
        self.trips = 0

    def last_features(self) -> BlockFeatures | None:
        """Exact features of the newest block (computed on demand, for display)."""
        if not self.last_block:
            return None
        return features(self.last_block, 0, self.s.block_chars, self.s)

    def _block(self, base: int, end: int) -> dict[str, Any] | None:
        s = self.s
        self.last_block = self.text[base : end + 1]
        self.last_gate = gate_open(self.text, base, end, s)
        if not self.last_gate:
            self.streak = 0
            return None
        f = features(self.text, base, end, s)
        self.streak = self.streak + 1 if f.degenerate else 0
        if self.streak < s.streak:
            return None
        self.trips += 1
        return {
            "rule": trip_rule(f.flags),
            "blockChars": s.block_chars,
            "block": self.idx,
            "offset": base + 1,
            "streak": s.streak,
            "evidence": list(f.flags),
            "fingerprint": fnv1a(self.text, base, end),
            "stats": f.stats(),
        }
