"""Text tables for `breaker-tui calibrate`, laid out as the seeds' calibration output."""

from __future__ import annotations

from collections.abc import Sequence
from decimal import ROUND_HALF_UP, Decimal

from engine.config import ThinkingConfig
from engine.lenses.degeneracy import DegeneracySettings, features
from engine.seed.calibrate import THRESHOLDS, longest_runs, overlap_series, trips
from engine.seed.corpora import LENS_A, LENS_B_CLEAN, LENS_B_DEGENERATE
from engine.seed.textgen import expand
from engine.units import to_units

BLOCK_SIZES = (96, 128, 192, 256)
_D = ThinkingConfig()


def fixed(x: float, digits: int) -> str:
    """JavaScript `toFixed`: the exact binary value rounded half up (Python's format rounds half-even)."""
    q = Decimal(1).scaleb(-digits)
    return str(Decimal(x).quantize(q, rounding=ROUND_HALF_UP))


def lens_a_table(
    block_chars: int = _D.block_chars,
    min_gap: int = _D.min_repeat_gap,
    history: int = _D.history_blocks,
    thresholds: Sequence[float] = THRESHOLDS,
) -> str:
    """Longest run per threshold and max overlap for every lens-A corpus, plus separation lines."""
    head = "case                        " + "".join(f"{t:>5g}" for t in thresholds)
    lines = [f"lens A sweep, blockChars={block_chars} minRepeatGap={min_gap} historyBlocks={history}", head]
    runs: dict[str, list[int]] = {}
    for label, spec in LENS_A.items():
        series = overlap_series(expand(spec), block_chars, min_gap, history)
        r = runs[label] = longest_runs(series, thresholds)
        mx = max(series) if series else 0.0
        lines.append(f"{label:27} " + "".join(f"{v:>5}" for v in r) + f"   max={fixed(mx, 2)}")
    lines.append("")
    for k, t in enumerate(thresholds):
        cmax = max(v[k] for lab, v in runs.items() if lab.startswith("CLEAN"))
        lmin = min(v[k] for lab, v in runs.items() if lab.startswith("LOOP"))
        verdict = "SEPARATED" if lmin > cmax else "overlap"
        lines.append(f"t={t:<5g} cleanMaxRun={cmax:<3} loopMinRun={lmin:<3} {verdict}")
    return "\n".join(lines)


def lens_a_sizes(
    min_gap: int = _D.min_repeat_gap, history: int = _D.history_blocks, t: float = _D.novelty_overlap
) -> str:
    """Longest run at one threshold / max overlap, per block size."""
    labels = list(LENS_A)
    lines = [f"lens A by block size (longest run at t={t:g} / max overlap)", "blockChars " + " | ".join(labels)]
    for size in BLOCK_SIZES:
        cells = []
        for spec in LENS_A.values():
            series = overlap_series(expand(spec), size, min_gap, history)
            cells.append(f"{longest_runs(series, [t])[0]}/{fixed(max(series) if series else 0.0, 2)}")
        lines.append(f"{size:<10} " + " | ".join(cells))
    return "\n".join(lines)


def lens_b_blocks(chunk: int = 512) -> str:
    """First-block features of every lens-B corpus, and where it trips at the defaults."""
    s = DegeneracySettings.from_config()
    lines = [
        "lens A2 first block, defaults",
        "case                              meaning  noise  variety  emoji  maxRun  runs  gate  flags  trip@",
    ]
    for label, spec in {**LENS_B_DEGENERATE, **LENS_B_CLEAN}.items():
        units = to_units(expand(spec))
        f = features(units, 0, min(len(units), s.block_chars), s)
        gate = "open" if "meaningless" in f.flags else "shut"
        trip = _trip_block(units, chunk)
        lines.append(
            f"{label:33} {fixed(f.meaning_ratio, 3):>7} {fixed(f.noise_ratio, 2):>6} "
            f"{fixed(f.variety, 2):>8} {f.emoji:6} "
            f"{f.max_run:7} {f.run_count:5}  {gate:4} {len(f.flags) - (gate == 'open'):6}  "
            f"{'blk' + str(trip) if trip is not None else '   -'}"
        )
    return "\n".join(lines)


def _trip_block(units: str, chunk: int) -> int | None:
    from engine.lenses.degeneracy import DegeneracyDetector

    det = DegeneracyDetector()
    for i in range(0, len(units), chunk):
        t = det.push(units[i : i + chunk])
        if t is not None:
            return int(t["block"])
    return None


def lens_b_sweep(
    chunk: int = 512,
    evidence: Sequence[int] = (1, 2, 3, 4),
    streaks: Sequence[int] = (1, 2, 3, 4),
    shipped: tuple[int, int] = (2, 2),
) -> str:
    """cleanTrips / degenerateMisses for every evidenceMin x streak pair, and the gate check."""
    clean = [expand(t) for t in LENS_B_CLEAN.values()]
    degen = [expand(t) for t in LENS_B_DEGENERATE.values()]
    lines = [
        f"lens A2 sweep: cleanTrips/degenerateMisses over {len(clean)} clean and {len(degen)} degenerate corpora",
        "evidenceMin \\ streak " + "".join(f"{s:>14}" for s in streaks),
    ]
    for e in evidence:
        cells = []
        for s in streaks:
            opts = {"evidenceMin": e, "streak": s}
            ct = sum(trips(t, chunk, opts) for t in clean)
            dm = sum(not trips(t, chunk, opts) for t in degen)
            mark = " (shipped)" if (e, s) == shipped else ""
            cells.append(f"{f'{ct}/{dm}{mark}':>14}")
        lines.append(f"{e:<20} " + "".join(cells))
    with_gate = sum(trips(t, chunk, {}) for t in clean)
    without = sum(trips(t, chunk, {"meaningRatioMax": 1}) for t in clean)
    lines += [
        "",
        f"gate check: with the meaning gate {with_gate} clean corpora trip; without it {without} trip",
        "  -> the hard gate is what keeps markdown, code and tables safe.",
    ]
    return "\n".join(lines)


def full_report(
    block_chars: int = _D.block_chars, min_gap: int = _D.min_repeat_gap, history: int = _D.history_blocks
) -> str:
    """Every calibration table, as `breaker-tui calibrate` prints them."""
    return "\n\n".join(
        [
            lens_a_table(block_chars, min_gap, history),
            lens_a_sizes(min_gap, history),
            lens_b_blocks(),
            lens_b_sweep(),
        ]
    )
