"""Readers for recorded sessions: breaker-tui recordings and dsh's own session.jsonl[.zstd].

Files given to `replay` and `scan` may be damaged, hostile or simply not files: they are read as
streams with hard limits (bytes after decompression, bytes per line, zstd window), non-regular
files are refused before they are read, and whatever goes wrong comes out as one `SourceError`
that names the file, the line and the problem, never as a traceback. A breaker-tui recording
that lacks its end marker is reported as incomplete (`Loaded.incomplete`), since it was cut short.
"""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, Literal

import zstandard

from wrapper.recorder import FORMAT

Kind = Literal["recording", "dsh"]
MAX_TOTAL_BYTES = 256 << 20  # decompressed bytes read from one file
MAX_LINE_BYTES = 64 << 20  # a longer line is skipped (and counted), never held whole
MAX_WINDOW_LOG = 27  # zstd window of at most 128 MiB (dsh writes far smaller frames)
CHUNK = 1 << 20
ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"


class SourceError(ValueError):
    """The file cannot be read as a session; the message says why."""


@dataclass
class Loaded:
    """A whole file, decoded: its kind, its records, and the lines that could not be read."""

    path: Path
    kind: Kind
    records: list[dict[str, Any]]
    bad_lines: int = 0
    problems: list[str] = field(default_factory=list)
    meta: dict[str, Any] = field(default_factory=dict)
    incomplete: str | None = None
    """Why a recording is not whole (`line N: ...`), or None."""


def _open(path: Path) -> IO[bytes]:
    """Open for reading without blocking on FIFOs, and refuse anything but a regular file."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError as e:
        raise SourceError(f"{path}: cannot read it: {e.strerror or e}") from None
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            what = "a directory" if stat.S_ISDIR(mode) else "not a regular file (a pipe, socket or device)"
            raise SourceError(f"{path}: {what}; give a breaker-tui recording or a dsh session log")
        os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def _chunks(path: Path, fh: IO[bytes]) -> Iterator[bytes]:
    """The file's bytes, decompressed when it is zstd, never more than MAX_TOTAL_BYTES in all."""
    head = fh.read(4)
    stream: IO[bytes] = fh
    if head == ZSTD_MAGIC:
        fh.seek(0)
        dctx = zstandard.ZstdDecompressor(max_window_size=1 << MAX_WINDOW_LOG)
        stream = dctx.stream_reader(fh, read_across_frames=True)
    else:
        yield head
    total = len(head) if head != ZSTD_MAGIC else 0
    while True:
        try:
            data = stream.read(CHUNK)
        except zstandard.ZstdError as e:
            raise SourceError(f"{path}: a damaged zstd stream: {e}") from None
        if not data:
            return
        total += len(data)
        if total > MAX_TOTAL_BYTES:
            raise SourceError(
                f"{path}: more than {MAX_TOTAL_BYTES >> 20} MiB of session data (after decompression); "
                "breaker-tui reads at most that much from one file"
            )
        yield data


def _lines(path: Path, fh: IO[bytes], bad: list[int]) -> Iterator[tuple[int, bytes]]:
    """(line number, line) pairs; a line over MAX_LINE_BYTES is skipped and its number put in `bad`."""
    buf = bytearray()
    n = 0
    skipping = False
    for chunk in _chunks(path, fh):
        start = 0
        while True:
            nl = chunk.find(b"\n", start)
            if nl < 0:
                if not skipping:
                    buf += chunk[start:]
                    if len(buf) > MAX_LINE_BYTES:
                        buf.clear()
                        skipping = True
                break
            n += 1
            if skipping:
                skipping = False
                bad.append(n)
            else:
                buf += chunk[start:nl]
                yield n, bytes(buf)
                buf.clear()
            start = nl + 1
    if skipping:
        bad.append(n + 1)
    elif buf:
        yield n + 1, bytes(buf)


@dataclass
class _Reading:
    records: list[dict[str, Any]] = field(default_factory=list)
    numbers: list[int] = field(default_factory=list)
    bad: int = 0
    problems: list[str] = field(default_factory=list)
    last_line: int = 0
    last_bad: int = 0

    def problem(self, n: int, text: str) -> None:
        self.bad += 1
        self.last_bad = n
        if len(self.problems) < 5:
            self.problems.append(f"line {n}: {text}")


def _read(path: Path) -> _Reading:
    r = _Reading()
    too_long: list[int] = []
    with _open(path) as fh:
        for n, raw in _lines(path, fh, too_long):
            r.last_line = n
            if not raw.strip():
                continue
            try:
                obj = json.loads(raw.decode("utf-8", "replace"))
            except (ValueError, RecursionError):
                r.problem(n, f"not JSON ({raw[:60].decode('utf-8', 'replace')!r})")
                continue
            if isinstance(obj, dict):
                r.records.append(obj)
                r.numbers.append(n)
            else:
                r.problem(n, f"not a JSON object ({type(obj).__name__})")
    for n in too_long:
        r.last_line = max(r.last_line, n)
        r.problem(n, f"longer than {MAX_LINE_BYTES >> 20} MiB, skipped")
    return r


def load(path: Path) -> Loaded:
    """Decode a recording or a dsh session log, keeping every readable line (only ever raises SourceError)."""
    try:
        return _load(path)
    except SourceError:
        raise
    except MemoryError:
        raise SourceError(f"{path}: too large to read into memory") from None
    except Exception as e:  # the contract: a bad file is a clear message, never a traceback
        raise SourceError(f"{path}: cannot be read as a session: {type(e).__name__}: {e}") from None


def _load(path: Path) -> Loaded:
    r = _read(path)
    if not r.records:
        if r.bad == 0:
            raise SourceError(f"{path}: empty file, nothing to replay")
        raise SourceError(f"{path}: no readable JSON lines ({r.bad} bad; {'; '.join(r.problems[:2])})")
    first = r.records[0]
    if first.get("k") == "meta" and first.get("format") == FORMAT:
        body = _well_formed(r, _RECORDING_FIELDS, 1)
        return Loaded(path, "recording", body, r.bad, r.problems, first, _incomplete(first, body, r))
    if first.get("t") == "hello" and isinstance(first.get("plugin"), str):
        # a bare bridge feed (the prototype bridge's capture format): its events, replayed like a dsh log
        events = [
            {**rec["event"], "_agent": rec.get("sessionId")}
            for rec in r.records
            if rec.get("t") == "event"
            and isinstance(rec.get("event"), dict)
            and _odd_field(rec["event"], _DSH_FIELDS) is None
        ]
        return Loaded(path, "dsh", events, r.bad, r.problems, {"id": "bridge-feed"})
    if first.get("type") == "session" or any("seq" in rec and "type" in rec for rec in r.records[:5]):
        meta = first if first.get("type") == "session" else {}
        body = _well_formed(r, _DSH_FIELDS, 1 if meta else 0)
        return Loaded(path, "dsh", body, r.bad, r.problems, meta)
    raise SourceError(
        f"{path}: neither a breaker-tui recording nor a dsh session log "
        f"(first line has keys {[str(k)[:30] for k in sorted(map(str, first))[:6]]})"
    )


_NUMBER = (int, float)
# the fields replay and scan rely on, and the types they must have (anything else makes a record unreadable)
_RECORDING_FIELDS: dict[str, tuple[type, ...]] = {"k": (str,), "at": _NUMBER, "t": (str,), "id": (str,)}
_DSH_FIELDS: dict[str, tuple[type, ...]] = {"type": (str,), "data": (dict,), "time": _NUMBER, "time0": _NUMBER}


def _odd_field(rec: dict[str, Any], fields: dict[str, tuple[type, ...]]) -> str | None:
    """The first field of `rec` whose value has the wrong type, or None."""
    for key, types in fields.items():
        v = rec.get(key)
        if v is not None and (not isinstance(v, types) or isinstance(v, bool)):
            return key
    return None


def _well_formed(r: _Reading, fields: dict[str, tuple[type, ...]], start: int) -> list[dict[str, Any]]:
    """The records from `start` on whose known fields have the right types; the rest are bad lines."""
    out = []
    for rec, n in zip(r.records[start:], r.numbers[start:], strict=True):
        key = _odd_field(rec, fields)
        if key is None:
            out.append(rec)
        else:
            r.problem(n, f"`{key}` has the wrong type ({type(rec[key]).__name__})")
    return out


def _incomplete(meta: dict[str, Any], body: list[dict[str, Any]], r: _Reading) -> str | None:
    """Why a recording is not whole, or None (version 1 recordings had no end marker to check)."""
    version = meta.get("version")
    if not isinstance(version, int) or isinstance(version, bool) or version < 2:
        return None
    end = body[-1] if body else None
    if end is None or end.get("k") != "end":
        if r.last_bad == r.last_line and r.last_bad:
            return (
                f"line {r.last_bad}: the recording is cut off mid-record and has no end marker "
                "(the disk filled up or the monitor was killed)"
            )
        return f"line {r.last_line + 1}: the recording has no end marker (the monitor stopped before closing it)"
    if end.get("complete") is not True:
        return f"line {r.numbers[-1]}: the recorder marked the recording incomplete: {str(end.get('error'))[:200]}"
    return None
