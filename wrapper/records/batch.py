"""`breaker-tui scan DIR...` (or several files): a whole benchmark run judged in one command.

Every file is replayed through a fresh engine, as `scan FILE` does, in parallel worker processes
(`wrapper.records.parallel`), and summed up in one row: its format, how many tool calls it made, how
many the engine denied (in a trace, also those it would have asked about, refused under
`--approvals deny`; in a recording, those whose question was not answered "allow"), how many
stream trips it had, and a verdict:

* `loop`: the engine blocked something (a denial, a refused ask, a stream abort, a cancelled turn);
* `steered`: only failing results were replaced with guidance (as in `eval`, a steer alone is not a
  block; `scan FILE` on one file still exits 1 for it, as it always has);
* `clean`: nothing; `unreadable`: the file could not be read or replayed (`error` says where and why).

A directory is walked for session files (`*.jsonl`, `*.json`, `*.traj`, `*.zst`, `*.zstd`); one
whose shape is no known session format (a `config.json`, a results table) is skipped and counted,
not an error, while a file named on the command line must be a session. Exit status: 2 when any
file is unreadable (each is named on stderr as `FILE:LINE: what is wrong`), else 1 when any has a
loop, else 0; 70 when a worker died.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from engine.trace import TraceError, simulate
from wrapper.exits import Exit
from wrapper.records import trace_io
from wrapper.records.importers import import_trace
from wrapper.records.importers.detect import UnknownFormat, recognise
from wrapper.records.parallel import PoolBroken, run_all
from wrapper.safetext import inert
from wrapper.settings import Settings

SUFFIXES = (".jsonl", ".json", ".traj", ".zst", ".zstd")
BLOCKS = frozenset({"deny", "ask", "abort", "cancel"})
_NOT_A_SESSION = "neither a breaker-tui recording nor a dsh session log"


@dataclass(frozen=True, slots=True)
class Job:
    """One file to judge, with everything a worker process needs (it shares nothing else)."""

    path: str
    forced: str | None  # --from NAME
    settings: Settings
    approvals: str
    walked: bool  # found in a directory (unknown shapes are skipped) rather than named
    replayer_for: Any  # the harness registry's `replayer_for` (a module-level function: it pickles by name)


@dataclass(frozen=True, slots=True)
class FileResult:
    """One row of the summary table (and one `--json` object)."""

    file: str
    format: str
    calls: int = 0
    denied: int = 0
    trips: int = 0
    steers: int = 0
    verdict: str = "clean"  # loop / steered / clean / unreadable / skipped
    first: str = ""  # the first block: `RULE (line N)`
    error: str = ""  # unreadable: `FILE:LINE: what is wrong`

    def to_json(self) -> dict[str, Any]:
        """The `--json` object: `kind: "file"` and every field, texts from the file made inert."""
        return {"kind": "file", **{k: inert(v) if isinstance(v, str) else v for k, v in asdict(self).items()}}


def files_of(paths: list[Path]) -> list[tuple[Path, bool]]:
    """(file, walked) for each argument: a file as given, a directory's session files sorted by path."""
    out: list[tuple[Path, bool]] = []
    for p in paths:
        if p.is_dir():
            found = [f for f in p.rglob("*") if f.suffix in SUFFIXES and f.is_file() and not f.is_symlink()]
            out.extend((f, True) for f in sorted(found))
        else:
            out.append((p, False))
    return out


def judge_file(job: Job) -> FileResult:
    """Replay one file and sum it up; never raises (a bad file is an `unreadable` row)."""
    path = Path(job.path)
    try:
        kind = job.forced or recognise(path, job.settings.wrapper.max_line_bytes)
        if kind:
            return _judge_trace(job, path, kind)
        return _judge_session(job, path)
    except UnknownFormat as e:
        if job.walked:
            return FileResult(str(path), "", verdict="skipped")
        return FileResult(str(path), "?", verdict="unreadable", error=str(e))
    except TraceError as e:
        what = e.args[0] if e.args else str(e)
        where = f"{path}:{e.line}" if e.line is not None else str(path)
        return FileResult(str(path), job.forced or "?", verdict="unreadable", error=_located(where, str(path), what))
    except Exception as e:
        return FileResult(str(path), "?", verdict="unreadable", error=f"{path}: {type(e).__name__}: {e}")


def _located(where: str, path: str, what: str) -> str:
    return what if what.startswith(path) else f"{where}: {what}"


def _judge_trace(job: Job, path: Path, kind: str) -> FileResult:
    max_line = job.settings.wrapper.max_line_bytes
    if kind == "trace":
        with trace_io.open_trace(path, max_line) as t:
            events = list(t.events)
            meta = t.meta
    else:
        t = import_trace(kind, path)
        events, meta = list(t.events), t.meta
    found = simulate(meta, events, "allow" if job.approvals == "allow" else "deny", job.settings.engine)
    blocks = [i for i in found if i.action in BLOCKS]
    steers = sum(i.action == "steer" for i in found)
    return FileResult(
        str(path),
        kind,
        calls=sum(e.kind == "call" for e in events),
        denied=sum(i.action in ("deny", "ask") for i in found),
        trips=sum(i.action in ("abort", "cancel") for i in found),
        steers=steers,
        verdict="loop" if blocks else "steered" if steers else "clean",
        first=f"{blocks[0].rule} (line {blocks[0].line})" if blocks else "",
    )


def _judge_session(job: Job, path: Path) -> FileResult:
    from wrapper.records.replay import finding
    from wrapper.records.sources import SourceError, load

    try:
        loaded = load(path)
    except SourceError as e:
        if job.walked and _NOT_A_SESSION in str(e):
            return FileResult(str(path), "", verdict="skipped")
        return FileResult(str(path), "?", verdict="unreadable", error=_located(str(path), str(path), str(e)))
    r = job.replayer_for(loaded, job.settings)
    calls = denied = trips = 0
    first = ""
    asked: dict[Any, str] = {}  # a call the engine asked about -> how it is named, until the answer says
    for step in r.steps():
        f = finding(step.item)
        if f is None:
            continue
        if f["kind"] == "verdict":
            calls += 1
            named = f"{f.get('source') or 'repeat'} ({f.get('tool')})"
            if f["verdict"] == "ask":
                asked[f.get("callId")] = named  # the recording holds the answer: a call allowed was no block
            elif f["verdict"] != "allow":
                denied += 1
                first = first or named
        elif f["kind"] == "approval" and f.get("callId") in asked:
            named = asked.pop(f.get("callId"))
            if not str(f.get("answer")).startswith("allow"):
                denied += 1
                first = first or named
        elif f["kind"] == "trip":
            trips += 1
            first = first or f"{f.get('rule')} (trip)"
    denied += len(asked)  # never answered: it did not run
    first = first or next(iter(asked.values()), "")
    damage = [p for p in (loaded.incomplete, *loaded.problems) if p]
    if damage:
        return FileResult(
            str(path), loaded.kind, calls, denied, trips, verdict="unreadable", error=f"{path}: {damage[0]}"
        )
    return FileResult(
        str(path), loaded.kind, calls, denied, trips, verdict="loop" if denied or trips else "clean", first=first
    )


def judge_all(jobs: list[Job], workers: int | None = None) -> list[FileResult]:
    """Every job's row, in order (a worker that died makes the files it left `unreadable`)."""
    try:
        return run_all(judge_file, jobs, "scanning", workers)
    except PoolBroken as e:
        died = "a worker process died while judging it (out of memory? killed?)"
        return [
            r
            if isinstance(r := e.done.get(i), FileResult)
            else FileResult(j.path, "?", verdict="unreadable", error=f"{j.path}: {died}")
            for i, j in enumerate(jobs)
        ]


def summary(results: list[FileResult]) -> dict[str, Any]:
    """The closing `--json` object: how many files of each verdict."""
    counts = {v: sum(r.verdict == v for r in results) for v in ("loop", "steered", "clean", "unreadable", "skipped")}
    return {"kind": "summary", "files": len(results), **counts, "calls": sum(r.calls for r in results)}


def exit_status(results: list[FileResult]) -> int:
    """Bad input when any file is unreadable, else found when any has a loop, else clean."""
    if any(r.verdict == "unreadable" for r in results):
        return Exit.USAGE
    return Exit.FAILED if any(r.verdict == "loop" for r in results) else Exit.OK


def print_results(results: list[FileResult], as_json: bool) -> None:
    """The table (or JSON lines) on stdout; every unreadable file on stderr, location first."""
    shown = [r for r in results if r.verdict != "skipped"]
    if as_json:
        for r in shown:
            print(json.dumps(r.to_json(), ensure_ascii=False))
        print(json.dumps(summary(results)))
    else:
        _table(shown, summary(results))
    sys.stdout.flush()  # the table first, then what could not be read
    for r in results:
        if r.verdict == "unreadable":
            print(inert(r.error, keep_newlines=False), file=sys.stderr)


_COLUMNS = 46  # what a row holds beside the file's name: format, calls, denied, trips, verdict


def _table(rows: list[FileResult], total: dict[str, Any]) -> None:
    room = max(30, shutil.get_terminal_size((120, 24)).columns - _COLUMNS)
    names = _in_room([inert(_short(r.file), keep_newlines=False) for r in rows], room)
    width = min(max([len(n) for n in names] + [4]), room)
    print(f"{'file':<{width}}  {'format':<14} {'calls':>5} {'denied':>6} {'trips':>5}  verdict")
    for n, r in zip(names, rows, strict=True):
        n = fit_name(n, width)
        first = f"  {inert(r.first, keep_newlines=False)}" if r.first else ""
        print(f"{n:<{width}}  {r.format:<14} {r.calls:>5} {r.denied:>6} {r.trips:>5}  {r.verdict}{first}")
    skipped = f", {total['skipped']} skipped (not a session)" if total["skipped"] else ""
    print(
        f"{len(rows)} file(s): {total['loop']} loop, {total['steered']} steered, {total['clean']} clean, "
        f"{total['unreadable']} unreadable{skipped}"
    )


def _in_room(names: list[str], room: int) -> list[str]:
    """The names as shown: as given when they fit, else without the folder they all share (`…/` instead)."""
    if len(names) < 2 or max(len(n) for n in names) <= room:
        return names
    try:
        shared = os.path.commonpath([os.path.dirname(n) or "." for n in names])
    except ValueError:  # absolute and relative names mixed
        return names
    if shared in ("", ".", os.sep):
        return names
    return ["…" + os.sep + os.path.relpath(n, shared) for n in names]


def fit_name(name: str, width: int) -> str:
    """`name` in `width` characters: cut in the middle, so both its start (where names in one folder
    differ: `work-000-`, `work-002-`) and its end (the extension, a run's number) stay.
    """
    if len(name) <= width:
        return name
    head = (width - 1) * 2 // 3
    return name[:head] + "…" + name[len(name) - (width - 1 - head) :]


def _short(file: str) -> str:
    """The path as given under the current directory, else as it is."""
    try:
        rel = os.path.relpath(file)
    except ValueError:
        return file
    return file if rel.startswith("..") else rel
