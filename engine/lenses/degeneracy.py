"""Lens A2: the degeneracy detector. Symbol and emoji floods that carry no meaning, per request."""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass
from typing import Any

import regex
from mypy_extensions import i64

from engine.config import ThinkingConfig
from engine.lenses.blocks import BlockBuffer, block_key
from engine.units import FNV_OFFSET, FNV_PRIME, JS_SPACE, MASK32, UTF16, code_points, from_units, round3

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


_LITTLE = sys.byteorder == "little"
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
    return _judge(n, spaces, meaning, symbol, emoji, len(distinct), max_run, run_count, s)


_RUN3 = re.compile(r"((.)\2{2,})", re.DOTALL)
_RUN2 = re.compile(r"(.)\1", re.DOTALL)


def fast_features(units: str, base: int, end: int, s: DegeneracySettings) -> BlockFeatures:
    """The same measurement as `features`, with C-level counting instead of a loop per code point."""
    return _features_of(from_units(block_key(units, base, end)), s)


def _features_of(cps: str, s: DegeneracySettings, cls: str | None = None) -> BlockFeatures:
    """The features of one block given as code points (`cls`: its class letters, when known).

    Classes come from one `translate`, counts from `count`. A run is a stretch of one repeated
    symbol or emoji code point, so the runs are the regex's maximal repeats of one character,
    kept when that character is a symbol or an emoji.
    """
    if cls is None:
        cls = cps.translate(CLASS_TABLE)
    symbol, emoji = cls.count(SYMBOL), cls.count(EMOJI)
    max_run = run_count = 0
    if symbol + emoji:
        for run, ch in _RUN3.findall(cps):
            if CLASS_TABLE[ord(ch)] in (EMOJI, SYMBOL):
                run_count += 1
                if len(run) > max_run:
                    max_run = len(run)
        if max_run == 0:
            max_run = 1
            for ch in _RUN2.findall(cps):
                if CLASS_TABLE[ord(ch)] in (EMOJI, SYMBOL):
                    max_run = 2
                    break
    return _judge(len(cps), cls.count(SPACE), cls.count(MEANING), symbol, emoji, len(set(cps)), max_run, run_count, s)


def _judge(
    n: int,
    spaces: int,
    meaning: int,
    symbol: int,
    emoji: int,
    distinct: int,
    max_run: int,
    run_count: int,
    s: DegeneracySettings,
) -> BlockFeatures:
    """The ratios, the evidence flags and the verdict of one measured block."""
    non_space = n - spaces
    denom = max(1, non_space)
    mr = meaning / denom
    nr = (symbol + emoji) / denom
    er = emoji / denom
    var = distinct / max(1, min(non_space, 48))
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
        n, non_space, meaning, symbol, emoji, distinct, max_run, run_count, mr, nr, var, er, tuple(flags), degenerate
    )


def _block_text(buf: bytes, base: int, end: int) -> str:
    """Block `base:end` (in code units) of a UTF-16 byte string as code points.

    A pair straddling the end is read whole when its low half is already in the buffer, as the
    reference walk reads it; a lone half stays a lone code point.
    """
    stop = 2 * end
    if stop + 2 <= len(buf):
        hi = buf[stop - 2] | buf[stop - 1] << 8 if _LITTLE else buf[stop - 2] << 8 | buf[stop - 1]
        lo = buf[stop] | buf[stop + 1] << 8 if _LITTLE else buf[stop] << 8 | buf[stop + 1]
        if 0xD800 <= hi <= 0xDBFF and 0xDC00 <= lo <= 0xDFFF:
            stop += 2
    return buf[2 * base : stop].decode(UTF16, "surrogatepass")


def _gate(cps: str, s: DegeneracySettings) -> tuple[bool, float, str | None]:
    """Whether the meaning gate is open for a block of code points, its meaning ratio, and the
    block's class letters when they were needed (non-ASCII text).
    """
    cls: str | None = None
    if cps.isascii():
        b = cps.encode("ascii")
        non_space = len(b.translate(None, _ASCII_SPACE))
        meaning = len(b) - len(b.translate(None, _ASCII_ALNUM))
    else:
        cls = cps.translate(CLASS_TABLE)
        non_space = len(cls) - cls.count(SPACE)
        meaning = cls.count(MEANING)
    ratio = meaning / max(1, non_space)
    return ratio <= s.meaning_ratio_max, ratio, cls


def fnv1a(units: str, base: int, end: int) -> int:
    """FNV-1a 32 over a block's code units (the trip fingerprint)."""
    h = FNV_OFFSET
    for i in range(base, end):
        h = ((h ^ ord(units[i])) * FNV_PRIME) & MASK32
    return h


def _fnv1a_utf16(block: bytes) -> int:
    """`fnv1a` over the code units of a UTF-16 (machine order) byte string.

    `i64` keeps the loop in machine integers when compiled: the product stays below 2**57.
    """
    h: i64 = FNV_OFFSET
    n: i64 = len(block) - 1
    lo: i64 = 0 if _LITTLE else 1
    k: i64 = 0
    while k < n:
        h = ((h ^ (block[k + lo] | block[k + 1 - lo] << 8)) * FNV_PRIME) & MASK32
        k += 2
    return h


def trip_rule(flags: tuple[str, ...]) -> str:
    """The rule name a degenerate block trips under."""
    if "emoji-flood" in flags:
        return "emoji-flood"
    if "run-heavy" in flags:
        return "symbol-flood"
    return "degenerate-output"


class DegeneracyDetector(BlockBuffer):
    """One request stream's lens A2. `push()` returns a trip descriptor or None.

    Blocks are cut in UTF-16 code units like lens A's, but the text is kept as UTF-16 bytes: a
    block then reads back as code points in one decode, so floods of emoji are measured at C speed
    instead of a unit at a time.
    """

    def __init__(self, settings: DegeneracySettings | None = None) -> None:
        self.s = settings or DegeneracySettings.from_config()
        super().__init__(self.s.block_chars)
        self.buf = b""
        self.streak = 0
        self.last_block = ""  # the newest block, as code points
        self.last_meaning = 1.0  # the newest block's meaning ratio (1.0 before the first block)
        self.trips = 0
        self._last: BlockFeatures | None = None
        self._memo_raw = b""
        self._memo: tuple[str, float, BlockFeatures | None] = ("", 1.0, None)

    def _append(self, delta: str) -> None:
        self.buf += delta.encode(UTF16, "surrogatepass")

    def _units(self) -> int:
        return len(self.buf) // 2

    def _drop(self, units: int) -> None:
        self.buf = self.buf[2 * units :]

    def last_features(self) -> BlockFeatures | None:
        """Features of the newest block (computed on demand, for display)."""
        if not self.last_block:
            return None
        if self._last is None:
            self._last = _features_of(self.last_block, self.s)
        return self._last

    def _block(self, base: int, end: int) -> dict[str, Any] | None:
        s = self.s
        raw = self.buf[2 * base : 2 * end + 2]  # with the unit after the end: a straddling pair's low half
        if raw != self._memo_raw:  # a flood repeats whole blocks: measure each distinct one once
            cps = _block_text(raw, 0, end - base)
            gate, meaning, cls = _gate(cps, s)
            self._memo_raw = raw
            self._memo = (cps, meaning, _features_of(cps, s, cls) if gate else None)
        cps, self.last_meaning, f = self._memo  # no features: the meaning gate was shut
        self.last_block = cps
        self._last = f
        if f is None:
            self.streak = 0
            return None
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
            "fingerprint": _fnv1a_utf16(self.buf[2 * base : 2 * end]),
            "stats": f.stats(),
        }
