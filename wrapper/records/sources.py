"""Readers for recorded sessions: breaker-tui recordings and dsh's own session.jsonl[.zstd], as streams.

Files given to `replay` and `scan` may be damaged, hostile, simply not files, or very long: `load` reads only
their first lines (to tell what they are), and `Loaded.records` reads the rest one record at a time, again
for every pass, so memory stays flat whatever the file's length (a long line is skipped, never held whole; a
zstd stream may not expand past a hard limit nor ask for a big window). Non-regular files are refused
before they are read. What goes wrong before the first record is one `SourceError` naming the file and the
problem; what goes wrong later is counted and kept (`bad_lines`, `problems`, `incomplete`) and the pass ends,
never a traceback. A pass also checks a recording's hash chain (`records.verify`): after one complete pass,
`integrity` says whether the file is the one breaker-tui wrote. The counts are those of the last complete
pass; asking for them before any pass reads the file once.
"""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO, Any, Literal

import zstandard

from wrapper.records.integrity import SEED, unseal
from wrapper.records.live import writer
from wrapper.records.recorder import FORMAT
from wrapper.records.verify import Integrity, judge

Kind = Literal["recording", "dsh"]
MAX_TOTAL_BYTES = 4 << 30  # decompressed bytes read from one zstd file (a plain file is read to its end)
MAX_LINE_BYTES = 64 << 20  # a longer line is skipped (and counted), never held whole
MAX_WINDOW_LOG = 27  # zstd window of at most 128 MiB (dsh writes far smaller frames)
HEAD_RECORDS = 5  # records read by `load` to tell the formats apart
CHUNK = 1 << 20
ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"


class SourceError(ValueError):
    """The file cannot be read as a session; the message says why."""


def _open(path: Path) -> tuple[IO[bytes], tuple[int, int]]:
    """Open for reading without blocking on FIFOs, and refuse anything but a regular file."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError as e:
        raise SourceError(f"{path}: cannot read it: {e.strerror or e}") from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            what = "a directory" if stat.S_ISDIR(st.st_mode) else "not a regular file (a pipe, socket or device)"
            raise SourceError(f"{path}: {what}; give a breaker-tui recording or a dsh session log")
        os.set_blocking(fd, True)
        return os.fdopen(fd, "rb"), (st.st_dev, st.st_ino)
    except BaseException:
        os.close(fd)
        raise


def _chunks(path: Path, fh: IO[bytes]) -> Iterator[bytes]:
    """The file's bytes, decompressed when it is zstd (never more than MAX_TOTAL_BYTES of that)."""
    head = fh.read(4)
    stream: IO[bytes] = fh
    packed = head == ZSTD_MAGIC
    if packed:
        fh.seek(0)
        dctx = zstandard.ZstdDecompressor(max_window_size=1 << MAX_WINDOW_LOG)
        stream = dctx.stream_reader(fh, read_across_frames=True)
    else:
        yield head
    total = 0
    while True:
        try:
            data = stream.read(CHUNK)
        except zstandard.ZstdError as e:
            raise SourceError(f"{path}: a damaged zstd stream: {e}") from None
        if not data:
            return
        total += len(data)
        if packed and total > MAX_TOTAL_BYTES:
            raise SourceError(
                f"{path}: more than {MAX_TOTAL_BYTES >> 20} MiB of session data after decompression; "
                "breaker-tui reads at most that much from one compressed file"
            )
        yield data


def _lines(path: Path, fh: IO[bytes], bad: list[int]) -> Iterator[tuple[int, bytes, bool]]:
    """(line number, line, ended by a newline); a line over MAX_LINE_BYTES is skipped and its number put in `bad`."""
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
            elif buf:
                buf += chunk[start:nl]
                yield n, bytes(buf), True
                buf.clear()
            else:
                yield n, chunk[start:nl], True
            start = nl + 1
    if skipping:
        bad.append(n + 1)
    elif buf:
        yield n + 1, bytes(buf), False


_NUMBER = (int, float)
# the fields replay and scan rely on, and the types they must have (anything else makes a record unreadable)
_RECORDING_FIELDS: dict[str, tuple[type, ...]] = {"k": (str,), "at": _NUMBER, "t": (str,), "id": (str,)}
_DSH_FIELDS: dict[str, tuple[type, ...]] = {"type": (str,), "data": (dict,), "time": _NUMBER, "time0": _NUMBER}


_NOT_JSON = object()
# `json.loads` without its Python-level steps (finding the encoding, skipping whitespace, checking the end),
# which cost as much as the parsing of a short record: the C scanner of a decoder with json.loads' defaults
_SCAN: Callable[[str, int], tuple[Any, int]] = json.JSONDecoder().scan_once  # type: ignore[attr-defined]


def _decode(raw: bytes) -> Any:
    """The JSON value of a line, exactly as `json.loads` gives it (invalid UTF-8 replaced), or `_NOT_JSON`.

    A line that starts with `{` and a non-NUL byte is UTF-8 to `json.loads` (no byte order mark or UTF-16/32
    pattern begins so): such a line that the scanner reads to its last byte is decoded here in one call; any
    other line, and any failure, takes `json.loads`' own path below, so both paths give the same value.
    """
    if raw[:1] == b"{" and raw[1:2] != b"\x00":
        try:
            s = raw.decode("utf-8", "surrogatepass")
            obj, end = _SCAN(s, 0)
            if end == len(s):
                return obj
        except (StopIteration, ValueError, RecursionError):
            pass
    return _decode_slowly(raw)


def _decode_slowly(raw: bytes) -> Any:
    """`_decode` by `json.loads` itself (bytes straight to the parser; invalid UTF-8 replaced)."""
    try:
        return json.loads(raw)
    except UnicodeDecodeError:
        pass
    except (ValueError, RecursionError):
        return _NOT_JSON
    try:
        return json.loads(raw.decode("utf-8", "replace"))
    except (ValueError, RecursionError):
        return _NOT_JSON


def _odd_field(rec: dict[str, Any], fields: dict[str, tuple[type, ...]]) -> str | None:
    """The first field of `rec` whose value has the wrong type, or None (a bool is no number)."""
    for key, types in fields.items():
        v = rec.get(key)
        if v is None or type(v) in types:  # what JSON decodes to: exact types, the common case first
            continue
        if not isinstance(v, types) or isinstance(v, bool):
            return key
    return None


class _Pass:
    """What one reading of the file found: bad lines, the chain, where the records ended."""

    def __init__(self) -> None:
        self.bad = 0
        self.problems: list[str] = []
        self.last_line = 0
        self.last_bad = 0
        self.last_number = 0  # the line of the last record (kept or not)
        self.last: dict[str, Any] | None = None  # the last well-formed record
        self.prev = SEED
        self.chained = 0  # lines whose digest matched
        self.broken: int | None = None  # first line where the chain breaks
        self.broken_tail = False  # ... and it is an unterminated last line (a record cut mid-write)
        self.stopped: str | None = None  # why the pass ended before the end of the file
        self.integrity: Integrity | None = None
        self.incomplete: str | None = None

    def problem(self, n: int, text: str) -> None:
        self.bad += 1
        self.last_bad = n
        if len(self.problems) < 5:
            self.problems.append(f"line {n}: {text}")

    def chain(self, n: int, raw: bytes, ended: bool) -> None:
        if self.broken is not None:
            return
        digest = unseal(self.prev, raw)
        if digest is None:
            self.broken, self.broken_tail = n, not ended
        else:
            self.prev, self.chained = digest, self.chained + 1


class Records:
    """The records of a file, read again from the start on every iteration (never held in memory)."""

    def __init__(self, loaded: Loaded) -> None:
        self.loaded = loaded

    def __iter__(self) -> Iterator[dict[str, Any]]:
        return self.loaded._records()


class Loaded:
    """A file whose kind is known: its meta record and its records, as a stream; what a pass found."""

    def __init__(self, path: Path, kind: Kind, meta: dict[str, Any], shape: str, ident: tuple[int, int]) -> None:
        self.path = path
        self.kind: Kind = kind
        self.meta = meta
        self.shape = shape  # recording, feed (a bare bridge feed), dsh, dsh-headed (with a session header)
        self.records = Records(self)
        self._ident = ident
        self._done: _Pass | None = None

    # -- what the last complete pass found ------------------------------------------------------------
    def _finished(self) -> _Pass:
        if self._done is None:
            for _ in self.records:
                pass
        assert self._done is not None
        return self._done

    @property
    def bad_lines(self) -> int:
        """Lines that could not be read (not JSON, not an object, wrong field types, too long)."""
        return self._finished().bad

    @property
    def problems(self) -> list[str]:
        """The first few of them, `line N: what`."""
        return self._finished().problems

    @property
    def incomplete(self) -> str | None:
        """Why a recording is not whole (`line N: ...`), or None."""
        return self._finished().incomplete

    @property
    def integrity(self) -> Integrity | None:
        """Whether a recording is the one breaker-tui wrote (None for dsh logs)."""
        return self._finished().integrity

    # -- one pass ----------------------------------------------------------------------------------
    def _records(self) -> Iterator[dict[str, Any]]:
        p = _Pass()
        try:
            yield from self._read(p)
        except SourceError as e:
            p.stopped = str(e).removeprefix(f"{self.path}: ")
            p.problem(p.last_line + 1, p.stopped)
        except (OSError, MemoryError) as e:
            p.stopped = f"the file cannot be read past here: {type(e).__name__}: {e}"
            p.problem(p.last_line + 1, p.stopped)
        if self.kind == "recording":
            p.incomplete = _incomplete(self.meta, p)
            p.integrity = judge(self.path, self.meta, p.broken, p.broken_tail, p.chained, p.prev, p.last, p.incomplete)
            if p.integrity.status == "incomplete" and p.stopped is None:
                _still_written(self.path, p)
        self._done = p

    def _read(self, p: _Pass) -> Iterator[dict[str, Any]]:
        recording = self.kind == "recording"
        chained = recording and _version(self.meta) >= 3
        fields = _RECORDING_FIELDS if recording else _DSH_FIELDS
        skip = 1 if self.shape in ("recording", "dsh-headed") else 0  # the meta / session header
        too_long: list[int] = []
        fh, ident = _open(self.path)
        with fh:
            if ident != self._ident:
                raise SourceError(f"{self.path}: the file was replaced since it was opened; open it again")
            objects = 0
            chain = p.chain if chained else None
            feed = self.shape == "feed"
            # once per line of a file of millions: the checks are ordered and bound to locals for speed
            for n, raw, ended in _lines(self.path, fh, too_long):
                p.last_line = n
                if chain is not None:
                    chain(n, raw, ended)
                if raw[:1] != b"{" and not raw.strip():
                    continue
                obj = _decode(raw)
                if obj is _NOT_JSON:
                    p.problem(n, f"not JSON ({raw[:60].decode('utf-8', 'replace')!r})")
                    continue
                if not isinstance(obj, dict):
                    p.problem(n, f"not a JSON object ({type(obj).__name__})")
                    continue
                objects += 1
                if objects <= skip:
                    continue
                p.last_number = n
                if feed:
                    ev = obj.get("event")
                    if obj.get("t") == "event" and isinstance(ev, dict) and _odd_field(ev, _DSH_FIELDS) is None:
                        yield {**ev, "_agent": obj.get("sessionId")}
                    continue
                key = _odd_field(obj, fields)
                if key is not None:
                    p.problem(n, f"`{key}` has the wrong type ({type(obj[key]).__name__})")
                    continue
                if chained:
                    obj.pop("h", None)
                p.last = obj
                yield obj
        for n in too_long:
            p.last_line = max(p.last_line, n)
            p.problem(n, f"longer than {MAX_LINE_BYTES >> 20} MiB, skipped")
            if chained and (p.broken is None or n < p.broken):
                p.broken, p.broken_tail = n, False


def _version(meta: dict[str, Any]) -> int:
    v = meta.get("version")
    return v if isinstance(v, int) and not isinstance(v, bool) else 0


def load(path: Path) -> Loaded:
    """Tell a recording or a dsh session log by its first lines (only ever raises SourceError)."""
    try:
        return _load(path)
    except SourceError:
        raise
    except MemoryError:
        raise SourceError(f"{path}: too large to read into memory") from None
    except Exception as e:  # the contract: a bad file is a clear message, never a traceback
        raise SourceError(f"{path}: cannot be read as a session: {type(e).__name__}: {e}") from None


def _head(path: Path) -> tuple[list[dict[str, Any]], int, list[str], tuple[int, int]]:
    """The first few JSON objects, how many lines before them were bad, and the first problems."""
    heads: list[dict[str, Any]] = []
    bad, problems = 0, list[str]()
    too_long: list[int] = []
    fh, ident = _open(path)
    with fh:
        for n, raw, _ in _lines(path, fh, too_long):
            if not raw.strip():
                continue
            obj = _decode(raw)
            if isinstance(obj, dict):
                heads.append(obj)
                if len(heads) >= HEAD_RECORDS:
                    break
            else:
                bad += 1
                if len(problems) < 2:
                    problems.append(f"line {n}: not a JSON object")
    return heads, bad + len(too_long), problems, ident


def _load(path: Path) -> Loaded:
    heads, bad, problems, ident = _head(path)
    if not heads:
        if bad == 0:
            raise SourceError(f"{path}: empty file, nothing to replay")
        raise SourceError(f"{path}: no readable JSON lines ({bad} bad; {'; '.join(problems)})")
    first = heads[0]
    if first.get("k") == "meta" and first.get("format") == FORMAT:
        return Loaded(path, "recording", first, "recording", ident)
    if first.get("t") == "hello" and isinstance(first.get("plugin"), str):
        # a bare bridge feed (the prototype bridge's capture format): its events, replayed like a dsh log
        return Loaded(path, "dsh", {"id": "bridge-feed"}, "feed", ident)
    if first.get("type") == "session":
        return Loaded(path, "dsh", first, "dsh-headed", ident)
    if any("seq" in rec and "type" in rec for rec in heads):
        return Loaded(path, "dsh", {}, "dsh", ident)
    raise SourceError(
        f"{path}: neither a breaker-tui recording nor a dsh session log "
        f"(first line has keys {[str(k)[:30] for k in sorted(map(str, first))[:6]]})"
    )


def _still_written(path: Path, p: _Pass) -> None:
    """A recording without its end marker that a live writer holds is not damaged: it is not finished yet."""
    who = writer(path)
    if who is None or p.integrity is None:
        return
    p.incomplete = None
    if p.last_bad and p.last_bad == p.last_line:  # the record being written as we read: not a bad line
        p.bad -= 1
        p.problems = [text for text in p.problems if not text.startswith(f"line {p.last_bad}:")]
    check = p.integrity
    detail = f"still being written by {who}; the {check.records} records so far are intact"
    p.integrity = Integrity("live", detail, None, check.digest, check.records)


def _incomplete(meta: dict[str, Any], p: _Pass) -> str | None:
    """Why a recording is not whole, or None (version 1 recordings had no end marker to check)."""
    if p.stopped is not None:
        return f"line {p.last_line + 1}: reading stopped here: {p.stopped}"
    if _version(meta) < 2:
        return None
    end = p.last
    if end is None or end.get("k") != "end":
        if p.last_bad == p.last_line and p.last_bad:
            return (
                f"line {p.last_bad}: the recording is cut off mid-record and has no end marker "
                "(the disk filled up or the monitor was killed)"
            )
        return f"line {p.last_line + 1}: the recording has no end marker (the monitor stopped before closing it)"
    if end.get("complete") is not True:
        return f"line {p.last_number}: the recorder marked the recording incomplete: {str(end.get('error'))[:200]}"
    return None
