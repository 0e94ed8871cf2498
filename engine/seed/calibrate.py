"""Re-measures the seeds' threshold tables (lens-A sweep, lens-B sweep) from their generator corpora."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from engine.lenses.degeneracy import DegeneracyDetector
from engine.lenses.repetition import overlap, shingles
from engine.seed import seedopts
from engine.seed.textgen import expand
from engine.units import round3, to_units

THRESHOLDS = (0.5, 0.6, 0.7, 0.75, 0.8, 0.85, 0.9, 0.95)


def overlap_series(text: str, block_chars: int, min_gap: int, history: int) -> list[float]:
    """Per complete block, the best shingle overlap against blocks `min_gap..history` back."""
    units = to_units(text)
    count = len(units) // block_chars
    sets = [shingles(units, i * block_chars, (i + 1) * block_chars) for i in range(count)]
    series = []
    for i, s in enumerate(sets):
        best = 0.0
        for j in range(max(0, i - history), i - min_gap + 1):
            o = overlap(s, sets[j])
            if o > best:
                best = o
        series.append(best)
    return series


def longest_runs(series: Sequence[float], thresholds: Sequence[float]) -> list[int]:
    """For each threshold, the longest run of consecutive blocks at or above it."""
    out = []
    for t in thresholds:
        best = run = 0
        for v in series:
            run = run + 1 if v >= t else 0
            best = max(best, run)
        out.append(best)
    return out


def lens_a_sweep(inp: Mapping[str, Any]) -> dict[str, Any]:
    """One corpus at one block size: block count, longest runs per threshold, max overlap."""
    series = overlap_series(expand(inp["text"]), inp["blockChars"], inp["minRepeatGap"], inp["historyBlocks"])
    return {
        "blocks": len(series),
        "longest_run": longest_runs(series, inp["thresholds"]),
        "max_overlap": round3(max(series)) if series else 0,
    }


def lens_a_separation(inp: Mapping[str, Any]) -> dict[str, Any]:
    """Per threshold: does every loop corpus out-run every clean corpus?"""

    def runs(corpora: Mapping[str, Any]) -> list[list[int]]:
        return [
            longest_runs(
                overlap_series(expand(t), inp["blockChars"], inp["minRepeatGap"], inp["historyBlocks"]),
                inp["thresholds"],
            )
            for t in corpora.values()
        ]

    loop, clean = runs(inp["loop"]), runs(inp["clean"])
    rows = []
    for k in range(len(inp["thresholds"])):
        cmax = max((r[k] for r in clean), default=0)
        lmin = min((r[k] for r in loop), default=0)
        rows.append({"clean_max_run": cmax, "loop_min_run": lmin, "separated": lmin > cmax})
    return {"rows": rows}


def trips(text: str, chunk: int, opts: Mapping[str, Any]) -> bool:
    """Whether a fresh degeneracy detector with these options trips on the text fed in chunks."""
    det = DegeneracyDetector(seedopts.degeneracy_settings(dict(opts)))
    units = to_units(text)
    return any(det.push(units[i : i + chunk]) is not None for i in range(0, len(units), chunk))


def lens_b_sweep(inp: Mapping[str, Any]) -> dict[str, Any]:
    """The evidence x streak table of clean trips and degenerate misses."""
    clean = [expand(t) for t in inp["clean"].values()]
    degen = [expand(t) for t in inp["degenerate"].values()]
    table = []
    for e in inp["evidenceMin"]:
        row = []
        for s in inp["streak"]:
            opts = {"evidenceMin": e, "streak": s}
            row.append(
                {
                    "clean_trips": sum(trips(t, inp["chunk"], opts) for t in clean),
                    "degenerate_misses": sum(not trips(t, inp["chunk"], opts) for t in degen),
                }
            )
        table.append(row)
    return {"table": table}


def lens_b_gate(inp: Mapping[str, Any]) -> dict[str, Any]:
    """How many clean corpora trip with the meaning gate, and without it."""
    texts = [expand(t) for t in inp["clean"].values()]
    return {
        "with_gate": sum(trips(t, inp["chunk"], {}) for t in texts),
        "without_gate": sum(trips(t, inp["chunk"], {"meaningRatioMax": 1}) for t in texts),
    }
