"""`breaker-tui scan FILE`: every intervention in a recorded session, for people and for scripts.

Three kinds of input, told apart by their first line: a neutral trace (any agent's session, see
the README's trace format; replayed by `engine.trace.simulate`), a breaker-tui recording, or a dsh
session log (both replayed by `wrapper.records.replay`); `--from NAME` reads another agent's file through
an importer. The exit status is the contract scripts rely on: 0 nothing found, 1 something found,
2 the input is bad (with `FILE:LINE: what is wrong` on stderr, never a traceback), 4 a breaker-tui
recording that was edited or forged (its digest chain or the digest index says so), 70 an internal
error. A damaged file must never look clean, and a crash must never look like "loop found".
Everything printed that came from the file goes through `wrapper.safetext.inert()`.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from engine.errors import ConfigError
from engine.trace import Intervention, TraceError, TraceEvent, simulate
from wrapper.exits import Exit
from wrapper.records import trace_io
from wrapper.records.importers import IMPORTERS, convert_lines, import_trace
from wrapper.records.importers.detect import recognise
from wrapper.records.sources import Loaded
from wrapper.safetext import inert, reveal
from wrapper.settings import Settings

# which harness's replayer reads a recording: the harness registry's `replayer_for`, passed by the CLI
ReplayerFor = Callable[[Loaded, Settings], Any]

# a breaker-tui recording that is not the one breaker-tui wrote (edited or forged) is TAMPERED
EXIT_OK, EXIT_FOUND, EXIT_BAD, EXIT_INTERNAL = Exit.OK, Exit.FAILED, Exit.USAGE, Exit.INTERNAL
EXIT_TAMPERED, EXIT_UNVERIFIED = Exit.TAMPERED, Exit.UNVERIFIED
MESSAGE_CHARS = 200
# What replaying a malformed record can raise; anything else is a bug of ours (exit 70).
_BAD_RECORD = (ValueError, TypeError, KeyError, AttributeError, IndexError, RecursionError, OverflowError)


class BadInput(Exception):
    """The input cannot be scanned; `where` is `FILE` or `FILE:LINE`, `what` says what is wrong."""

    def __init__(self, where: str, what: str) -> None:
        super().__init__(f"{where}: {what}")
        self.where, self.what = where, what


def parser() -> argparse.ArgumentParser:
    """The `scan` command line (its help is part of the README's command list)."""
    p = argparse.ArgumentParser(
        prog="breaker-tui scan",
        description="Replay a recorded session and print every intervention. "
        "Exit 0 when nothing was found, 1 when something was, 2 on bad input, "
        "4 when a recording was edited or forged, 5 when nothing vouches for it (no index entry, no kept digest).",
    )
    p.add_argument(
        "files",
        type=Path,
        nargs="+",
        metavar="FILE",
        help="a trace (.jsonl), a breaker-tui recording, a dsh session log, or another agent's session file "
        "(its format is recognised); several files or a DIR are judged in parallel into one table",
    )
    p.add_argument("--json", action="store_true", help="one JSON object per line per intervention, on stdout")
    p.add_argument("--config", type=Path, help="config file (a trace's own meta `config` is laid over it)")
    p.add_argument(
        "--approvals",
        choices=["deny", "allow"],
        default="deny",
        help="traces: how a call the engine would ask about is answered (default: deny, fail closed)",
    )
    p.add_argument(
        "--from",
        dest="source",
        choices=sorted(IMPORTERS),
        help="read the file(s) as this format instead of recognising it: "
        + "; ".join(f"{k}: {v[1]}" for k, v in IMPORTERS.items()),
    )
    p.add_argument("--convert", action="store_true", help="print another agent's file converted to a trace instead")
    p.add_argument(
        "--digests",
        type=Path,
        metavar="FILE",
        help="check a recording against the final digests kept in FILE at close (`--digest-to FILE` of the run): "
        "they outrank this machine's index, which a process of your user could rewrite",
    )
    return p


def _settings(path: Path | None) -> Settings:
    from wrapper import settings as S
    from wrapper.paths import config_file

    return S.load(path, must_exist=True) if path is not None else S.load(config_file())


def main(argv: list[str], replayer_for: ReplayerFor) -> int:
    """Run `scan`; returns the exit status."""
    a = parser().parse_args(argv)
    a.file = a.files[0]
    if len(a.files) == 1 and not a.file.exists():  # nothing to read: the command's error, not a location
        _say(f"{a.file}: no such file or folder")
        return EXIT_BAD
    try:
        settings = _settings(a.config)
        if len(a.files) > 1 or a.file.is_dir():
            return _scan_many(a, settings, replayer_for)
        if a.convert:
            return _convert(a, settings)
        kind = a.source or recognise(a.file, settings.wrapper.max_line_bytes)
        if kind == "trace":
            with trace_io.open_trace(a.file, settings.wrapper.max_line_bytes) as trace:
                return _scan_trace(a, settings, trace)
        if kind:
            return _scan_trace(a, settings, import_trace(kind, a.file))
        return _scan_session(a, settings, replayer_for)
    except TraceError as e:
        return _bad(a.file, e.line, e.args[0] if e.args else str(e))
    except BadInput as e:
        _report(f"{e.where}: {e.what}")
        return EXIT_BAD
    except ConfigError as e:
        _say(f"bad config: {e}")
        return EXIT_BAD
    except (KeyboardInterrupt, BrokenPipeError):
        raise
    except Exception as e:  # a bug of ours must never read as "loop found" (1) or "clean" (0)
        if os.environ.get("BREAKER_TUI_DEBUG"):
            raise
        _say(f"internal error while scanning {a.file}: {type(e).__name__}: {e} (set BREAKER_TUI_DEBUG=1 for details)")
        return EXIT_INTERNAL


def _say(text: str) -> None:
    print(f"breaker-tui scan: {inert(text, keep_newlines=False)}", file=sys.stderr)


def _report(text: str) -> None:
    """A problem with the input, location first (`FILE:LINE: what is wrong`), as editors and CI parse it."""
    print(inert(text, keep_newlines=False), file=sys.stderr)


def _bad(path: Path, line: int | None, what: str) -> int:
    if line is not None:
        _report(f"{path}:{line}: {what}")
    else:
        _report(what if what.startswith(str(path)) else f"{path}: {what}")
    return EXIT_BAD


# -- the format, and many files at once -----------------------------------------------------------


def _convert(a: argparse.Namespace, settings: Settings) -> int:
    """`--convert`: another agent's file as the trace `scan` replays (its format recognised, or `--from`)."""
    kind = a.source or recognise(a.file, settings.wrapper.max_line_bytes)
    if kind in ("", "trace"):
        what = (
            "already a trace" if kind else "not a format an importer reads (a recording or dsh log needs no converting)"
        )
        raise BadInput(str(a.file), f"{what}; give --from NAME to force one of: {', '.join(sorted(IMPORTERS))}")
    for line in convert_lines(kind, a.file):
        print(line)
    return EXIT_OK


def _scan_many(a: argparse.Namespace, settings: Settings, replayer_for: ReplayerFor) -> int:
    """Several files or directories: each judged in parallel, one summary row per file (`wrapper.records.batch`)."""
    from wrapper.records import batch

    if a.convert:
        raise BadInput(str(a.file), "--convert takes one file (it prints that file's converted trace)")
    files = batch.files_of(a.files)
    jobs = [batch.Job(str(f), a.source, settings, a.approvals, walked, replayer_for) for f, walked in files]
    if not jobs:
        raise BadInput(str(a.file), f"no session files here ({', '.join(batch.SUFFIXES)})")
    results = batch.judge_all(jobs)
    batch.print_results(results, a.json)
    return batch.exit_status(results)


# -- neutral traces (and imported files) ---------------------------------------------------------


class _Tracked:
    """The events as they are consumed, counting them and remembering the last line read."""

    def __init__(self, events: Iterator[TraceEvent]) -> None:
        self.events = events
        self.count = 0
        self.line: int | None = None

    def __iter__(self) -> Iterator[TraceEvent]:
        for e in self.events:
            self.count += 1
            self.line = e.line
            yield e


def _scan_trace(a: argparse.Namespace, settings: Settings, trace: trace_io.Trace) -> int:
    tracked = _Tracked(trace.events)
    try:
        found = simulate(trace.meta, tracked, a.approvals, settings.engine)
    except TraceError:
        raise
    except _BAD_RECORD as e:
        return _bad(a.file, tracked.line, f"this event cannot be replayed: {type(e).__name__}: {e}")
    except Exception as e:
        _say(f"internal error while replaying {a.file} at line {tracked.line}: {type(e).__name__}: {e}")
        return EXIT_INTERNAL
    for i in found:
        print(json.dumps(intervention_json(i), ensure_ascii=False) if a.json else intervention_text(i))
    counts = Counter(i.action for i in found)
    detail = ", ".join(f"{k} {v}" for k, v in sorted(counts.items()))
    summary = f"trace: {tracked.count} events, {len(found)} intervention(s)" + (f" ({detail})" if detail else "")
    print(("# " if a.json else "") + summary, file=sys.stderr)
    return EXIT_FOUND if found else EXIT_OK


def intervention_json(i: Intervention) -> dict[str, Any]:
    """The `--json` object of one intervention: line, index, action, rule, agent, message."""
    return {k: inert(v) if isinstance(v, str) else v for k, v in i.to_dict().items()}


def intervention_text(i: Intervention) -> str:
    """One readable line: where, what, which rule, and the start of the message."""
    msg = reveal(i.message, keep_newlines=False).strip()
    if len(msg) > MESSAGE_CHARS:
        msg = msg[: MESSAGE_CHARS - 1] + "…"
    agent = inert(i.agent, keep_newlines=False)
    return f"line {i.line:>5}  {i.action.upper():6} {inert(i.rule, keep_newlines=False):<18} {agent}  {msg}".rstrip()


# -- breaker-tui recordings and dsh session logs -------------------------------------------------

_PROBLEM = re.compile(r"^line (\d+): (.*)$", re.DOTALL)


def _inert_json(obj: Any, depth: int = 0) -> Any:
    if isinstance(obj, str):
        return inert(obj)
    if depth > 50:
        return "…"
    if isinstance(obj, dict):
        return {inert(str(k)): _inert_json(v, depth + 1) for k, v in obj.items()}
    if isinstance(obj, list | tuple):
        return [_inert_json(v, depth + 1) for v in obj]
    return obj


def _scan_session(a: argparse.Namespace, settings: Settings, replayer_for: ReplayerFor) -> int:
    from wrapper.records.replay import finding
    from wrapper.records.sources import SourceError, load

    try:
        loaded = load(a.file)
    except SourceError as e:
        raise BadInput(str(a.file), str(e).removeprefix(f"{a.file}: ")) from None
    except (RecursionError, ValueError, OSError) as e:
        raise BadInput(str(a.file), f"cannot be read: {type(e).__name__}: {e}") from None
    r = replayer_for(loaded, settings)
    bad_before = r.bad_messages
    loops = count = 0
    steps = r.steps()
    while True:
        try:
            step = next(steps, None)
        except _BAD_RECORD as e:
            return _bad_record(a.file, r, f"{type(e).__name__}: {e}")
        except Exception as e:
            _say(f"internal error while replaying {a.file} ({_record(r)}): {type(e).__name__}: {e}")
            return EXIT_INTERNAL
        if step is None:
            break
        if r.bad_messages > bad_before:
            return _bad_record(a.file, r, "a recorded message is malformed: " + _last_warning(step.item))
        f = finding(step.item)
        if f is None:
            continue
        count += 1
        if f["kind"] == "trip" or (f["kind"] == "verdict" and f["verdict"] != "allow"):
            loops += 1
        print(json.dumps(_inert_json(f), ensure_ascii=False, default=str) if a.json else _finding_text(step.t, f))
    summary = f"{loaded.kind}: {count} decisions, {loops} loop finding(s)"
    if r.mismatches:
        summary += f", {len(r.mismatches)} live decision(s) not reproduced: {r.mismatches[:3]}"
    print(("# " if a.json else "") + inert(summary, keep_newlines=False), file=sys.stderr)
    verdict = _integrity(a, loaded)
    if verdict == EXIT_TAMPERED:
        return verdict
    damage = _damage(loaded)
    if damage:
        for where, what in damage:
            _report(f"{a.file}:{where}: {what}" if where else f"{a.file}: {what}")
        _report(f"{a.file}: the file is damaged, so the findings above may be incomplete")
        return EXIT_BAD
    if verdict is not None:  # whole, but nothing vouches for it: never "clean" or "loop found"
        return verdict
    return EXIT_FOUND if loops else EXIT_OK


def _integrity(a: argparse.Namespace, loaded: Any) -> int | None:
    """Say whether a recording is the one breaker-tui wrote (`records.verify`, and the kept digests with
    `--digests`); the exit status when it is not, or when nothing vouches for it; None when it is.
    """
    check = getattr(loaded, "integrity", None)
    if check is None:
        return None
    if a.digests is not None:
        check = _against_kept(a.digests, check, loaded.meta)
    if a.json:
        line = json.dumps({"integrity": _inert_json(check.to_dict())}, ensure_ascii=False)
        print(f"# {line}", file=sys.stderr)
    else:
        print(f"integrity: {inert(check.text(), keep_newlines=False)}", file=sys.stderr)
    if check.lies:
        where = f":{check.line}" if check.line else ""
        _report(f"{a.file}{where}: the recording is {check.status.upper()}: {check.detail}")
        _report(f"{a.file}: the decisions above are not a faithful record of the session (exit {EXIT_TAMPERED})")
        return EXIT_TAMPERED
    if check.status == "live":
        _report(
            f"{a.file}: LIVE: the decisions above are those so far (exit {EXIT_UNVERIFIED}): nothing vouches for"
            " the file until its writer closes it; scan it again once the session ends"
        )
        return EXIT_UNVERIFIED
    if check.unvouched:
        _report(
            f"{a.file}: nothing vouches for this recording (exit {EXIT_UNVERIFIED}): compare its digest with the one"
            " on the session's exit line, or give --digests FILE if you kept them with --digest-to"
        )
        return EXIT_UNVERIFIED
    return None


def _against_kept(source: Path, check: Any, meta: dict[str, Any]) -> Any:
    from wrapper.records.keep import read_kept
    from wrapper.records.verify import against_kept

    try:
        kept = read_kept(source)
    except OSError as e:
        raise BadInput(str(source), f"cannot read the kept digests: {e.strerror or e}") from None
    rid = meta.get("rid")
    return against_kept(check, kept.get(rid) if isinstance(rid, str) else None, str(source))


def _damage(loaded: Any) -> list[tuple[str, str]]:
    """(line, what) for every way the file is not whole: a missing end marker, unreadable lines."""
    out: list[tuple[str, str]] = []
    problems = [str(p) for p in (getattr(loaded, "incomplete", None), *loaded.problems) if p]
    for p in problems:
        m = _PROBLEM.match(p)
        out.append((m.group(1), m.group(2)) if m else ("", p))
    if loaded.bad_lines > len(loaded.problems):
        out.append(("", f"{loaded.bad_lines} unreadable line(s) in all"))
    return out


def _record(r: Any) -> str:
    return f"record {getattr(r, 'record', '?')}"


def _bad_record(path: Path, r: Any, what: str) -> int:
    _report(f"{path}: {_record(r)}: {what}")
    return EXIT_BAD


def _last_warning(item: Any) -> str:
    return str(getattr(item, "text", "") or "")


def _finding_text(t: float, f: dict[str, Any]) -> str:
    def s(v: Any) -> str:
        # what a person reads about a call: invisible and bidi characters escaped, long blank runs folded
        return reveal(str(v), keep_newlines=False)

    if f["kind"] == "verdict":
        hits = ", ".join(f"{s(h[0])} {s(h[1])}/{s(h[2])}" for h in f["hits"])
        if f.get("ran") and f["verdict"] != "allow":  # not a denial: it had run, then the turn was cancelled
            return f"{t:8.2f}s  RAN   {s(f['tool'])} {s(f['callId'])} {hits} (ran without asking, then tripped)"
        return f"{t:8.2f}s  {s(f['verdict']).upper():5} {s(f['tool'])} {s(f['callId'])} {hits}".rstrip()
    if f["kind"] == "trip":
        return f"{t:8.2f}s  TRIP  {s(f['stream'])} {s(f['rule'])} ({s(f['evidence'])}) -> {s(f['action_sent'])}"
    who = s(f.get("by") or "unknown") + (f": {s(f['why'])}" if f.get("why") else "")
    return f"{t:8.2f}s  APPROVAL {s(f['callId'])}: {s(f['answer'])} ({who})"
