"""`breaker-tui eval DIR`: how well detection does on a folder of labelled traces.

Every `*.jsonl` trace in the folder (with a meta `expected`) is replayed through the engine in the
default mode and in `mode = "seed"`, the files in parallel worker processes (one per CPU, results in
file order, a progress line on a terminal's stderr); a `loop` case agrees when the engine blocks (denies a call,
refuses an ask, aborts a stream or cancels the turn) at or after its `judge_from`, a `no_loop` case
when it does not block at all. A steer alone is not a block. A trace whose meta says
`"expected": "skip"` (its labeller could not decide) is read and counted as skipped, never scored. A
corpus folder holds its traces at its top, or in its `traces/` folder when it has one (beside a
`labels.jsonl` and the native files, as the public corpus does).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from engine.config import BreakerConfig, EngineConfig
from engine.trace import Intervention, TraceError, TraceEvent, TraceMeta, simulate
from wrapper.exits import Exit
from wrapper.records.parallel import PoolBroken, run_all
from wrapper.records.trace_io import open_trace, trace_error
from wrapper.safetext import inert

BLOCKS = ("deny", "ask", "abort", "cancel")
MODES = ("default", "seed")


@dataclass(frozen=True, slots=True)
class CaseResult:
    """One trace in one mode."""

    file: str
    name: str
    expected: str
    blocked: bool
    steered: bool
    first_rule: str
    first_line: int
    block_calls: int = 0  # a blocked loop: calls from its first call (1) to the blocked one, inclusive

    @property
    def agrees(self) -> bool:
        """A loop is blocked; legitimate work is not."""
        return self.blocked == (self.expected == "loop")

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready form."""
        return {
            "file": self.file,
            "name": self.name,
            "expected": self.expected,
            "blocked": self.blocked,
            "steered": self.steered,
            "agrees": self.agrees,
            "first_rule": self.first_rule,
            "first_line": self.first_line,
            "block_calls": self.block_calls,
        }


@dataclass(frozen=True, slots=True)
class Skipped:
    """A trace labelled `skip`: read without error, not scored."""

    file: str


@dataclass(slots=True)
class ModeReport:
    """The confusion table of one mode."""

    mode: str
    cases: list[CaseResult] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)

    def table(self) -> dict[str, int]:
        """Loops blocked / only steered / missed; legitimate work blocked / steered / clean; agreed."""
        loops = [c for c in self.cases if c.expected == "loop"]
        legit = [c for c in self.cases if c.expected == "no_loop"]
        return {
            "loops": len(loops),
            "loops_blocked": sum(c.blocked for c in loops),
            "loops_steered_only": sum(c.steered and not c.blocked for c in loops),
            "loops_missed": sum(not c.blocked and not c.steered for c in loops),
            "legit": len(legit),
            "legit_blocked": sum(c.blocked for c in legit),
            "legit_steered": sum(c.steered and not c.blocked for c in legit),
            "legit_clean": sum(not c.blocked and not c.steered for c in legit),
            "agreed": sum(c.agrees for c in self.cases),
            "cases": len(self.cases),
            "skipped": len(self.skipped),
            # how late loops are stopped: the median of `block_calls` over blocked loops (0 when none)
            "median_block_calls": int(statistics.median(d))
            if (d := [c.block_calls for c in loops if c.blocked])
            else 0,
        }


def read_trace(path: Path) -> tuple[TraceMeta | None, list[TraceEvent]]:
    """Parse one trace file (the same bounded reader as `scan`); a bad line raises TraceError with its line."""
    meta, events, _ = read_labelled(path)
    return meta, events


def read_labelled(path: Path) -> tuple[TraceMeta | None, list[TraceEvent], bool]:
    """`read_trace` and whether its label is `skip` (the meta then carries no `expected`)."""
    with open_trace(path) as t:
        return t.meta, list(t.events), t.skipped


def judge(
    file: str, meta: TraceMeta | None, found: list[Intervention], events: list[TraceEvent] | None = None
) -> CaseResult:
    """Score one replay against its label (`events` give how many calls the loop ran before its block)."""
    start = meta.judge_from if meta else 0
    counted = [i for i in found if i.index >= start]
    blocks = [i for i in counted if i.action in BLOCKS]
    first = blocks[0] if blocks else (counted[0] if counted else None)
    calls = 0
    if blocks and events is not None:
        calls = sum(1 for e in events if e.kind == "call" and start <= e.index <= blocks[0].index)
    return CaseResult(
        file,
        meta.name if meta else file,
        (meta.expected if meta else None) or "no_loop",
        bool(blocks),
        any(i.action == "steer" for i in counted),
        first.rule if first else "",
        first.line if first else 0,
        calls,
    )


def judge_path(job: tuple[str, tuple[str, ...]]) -> list[CaseResult] | Skipped | str:
    """One labelled trace in each mode (a worker's task): its results, [] when it has no label, `Skipped`
    when its label is `skip`, or the error text when it cannot be read (a string crosses the process
    boundary whole; an exception's extra fields would not).
    """
    path, modes = Path(job[0]), job[1]
    try:
        meta, events, skipped = read_labelled(path)
    except (TraceError, OSError) as e:
        return f"{path}: {e}" if not str(e).startswith(str(path)) else str(e)
    if skipped:
        return Skipped(path.name)
    if meta is None or meta.expected is None:
        return []
    out = []
    for m in modes:
        base = BreakerConfig(engine=EngineConfig(mode=m))  # type: ignore[arg-type]
        out.append(judge(path.name, meta, simulate(meta, events, "deny", base), events))
    return out


def evaluate(folder: str | Path, modes: tuple[str, ...] = MODES, workers: int | None = None) -> dict[str, ModeReport]:
    """Replay every labelled trace of a folder in each mode, the files in parallel (`wrapper.records.parallel`)."""
    root = Path(folder)
    files = trace_files(root)
    reports = {m: ModeReport(m) for m in modes}
    try:
        results = run_all(judge_path, [(str(p), modes) for p in files], "evaluating", workers)
    except PoolBroken:
        raise TraceError(f"{root}: a worker process died while replaying the traces (out of memory?)") from None
    for result in results:
        if isinstance(result, str):
            raise TraceError(result)
        if isinstance(result, Skipped):
            for rep in reports.values():
                rep.skipped.append(result.file)
            continue
        for m, case in zip(modes, result, strict=False):
            reports[m].cases.append(case)
    return reports


def trace_files(root: Path) -> list[Path]:
    """The traces of a corpus folder: `root/traces/*.jsonl` when that folder exists, else `root/*.jsonl`."""
    if not root.is_dir():
        raise trace_error(f"{root}: not a folder — give a folder of labelled *.jsonl traces")
    folder = root / "traces" if (root / "traces").is_dir() else root
    files = sorted(folder.glob("*.jsonl"))
    if not files:
        raise trace_error(f"{folder}: no *.jsonl traces here — give a folder of labelled traces")
    return files


def _print(reports: dict[str, ModeReport]) -> None:
    for m, rep in reports.items():
        t = rep.table()
        skipped = f" ({t['skipped']} labelled skip, not scored)" if t["skipped"] else ""
        print(f"mode {m}: agreed {t['agreed']}/{t['cases']}{skipped}")
        print(
            f"  loops {t['loops']}: blocked {t['loops_blocked']}, only steered {t['loops_steered_only']}, "
            f"missed {t['loops_missed']}; median block {t['median_block_calls']} call(s) from the loop's start"
        )
        print(
            f"  legitimate {t['legit']}: blocked {t['legit_blocked']}, steered {t['legit_steered']}, "
            f"clean {t['legit_clean']}"
        )
        for c in rep.cases:
            mark = "ok " if c.agrees else "XX "
            how = "blocked" if c.blocked else ("steered" if c.steered else "clean")
            rule = f" first {c.first_rule} (line {c.first_line})" if c.first_rule else ""
            # the file first: a row is looked up by it (`ls`, `scan FILE`); the trace's own name when it differs
            named = f"  ({inert(c.name)})" if c.name not in (c.file, c.file.removesuffix(".jsonl")) else ""
            print(f"  {mark}{c.expected:7} {how:7}{inert(rule)}  {inert(c.file)}{named}")


def main(argv: list[str] | None = None) -> int:
    """Print the confusion tables (or `--json`); 0 when done, 2 on bad input."""
    p = argparse.ArgumentParser(prog="breaker-tui eval", description="Measure detection on labelled traces.")
    p.add_argument("dir", help="a folder of labelled *.jsonl traces")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--mode", choices=MODES, action="append", help="only this mode (repeatable)")
    a = p.parse_args(argv)
    try:
        reports = evaluate(a.dir, tuple(a.mode) if a.mode else MODES)
    except (TraceError, OSError) as e:
        print(f"breaker-tui eval: {inert(str(e))}", file=sys.stderr)
        return Exit.USAGE
    try:
        if a.json:
            print(json.dumps(as_json(reports)))
        else:
            _print(reports)
        sys.stdout.flush()
    except BrokenPipeError:  # `| head`: the reader has all it wants
        sys.stdout = open(os.devnull, "w")  # noqa: SIM115 - nothing more is written; the interpreter closes it
    return Exit.OK


def as_json(reports: dict[str, ModeReport]) -> dict[str, Any]:
    """The reports as one JSON-ready object: per mode, the table and every case."""
    return {m: {"table": r.table(), "cases": [c.to_dict() for c in r.cases]} for m, r in reports.items()}


if __name__ == "__main__":
    sys.exit(main())
