"""Reads a neutral JSON Lines trace from disk as a stream, so any agent's session can be scanned.

`engine.trace` knows what a trace line means and replays it; it does no I/O. This module is the file
side: it opens only regular files (a FIFO or a device would hang or never end), reads them in chunks
with a hard cap on the length of one line (so a 10 GB line or `/dev/zero` renamed `.jsonl` costs at
most that cap in memory), decompresses zstd on the fly, and turns every fault into a `TraceError`
that names the 1-based line and what is wrong. Memory stays flat whatever the file's length: events
are produced one at a time, for `simulate` to consume as they come.
"""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from engine.trace import TraceError, TraceEvent, TraceMeta, parse_line

DEFAULT_MAX_LINE_BYTES = 8 << 20
CHUNK = 1 << 16
ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"
TRACE_KINDS = frozenset({"meta", "user", "request", "think", "answer", "call"})
# A labelled corpus keeps the sessions its labeller could not decide on, marked `"expected": "skip"`:
# they are read (so a broken one is still reported) and replayed like unlabelled ones, never scored.
SKIP = "skip"


def trace_error(message: str, line: int | None = None) -> TraceError:
    """A `TraceError` carrying the 1-based line it is about (None: the file as a whole)."""
    return TraceError(message, line)


def open_regular(path: Path) -> IO[bytes]:
    """Open `path` for reading if it is a regular file; anything else is refused before a byte is read.

    The file is opened non-blocking first, so a FIFO with no writer cannot hang the open itself, and
    the type is checked on the open descriptor, so it cannot be swapped in between.
    """
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except FileNotFoundError:
        raise trace_error(f"{path}: no such file") from None
    except OSError as e:
        raise trace_error(f"{path}: cannot open it: {e.strerror or e}") from None
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            what = "a directory" if stat.S_ISDIR(mode) else "a FIFO" if stat.S_ISFIFO(mode) else "not a regular file"
            raise trace_error(f"{path}: {what}; give the path of a regular file (save a stream to a file first)")
        os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def _decompressed(fh: IO[bytes]) -> IO[bytes]:
    """`fh` itself, or a streaming zstd reader over it when the file starts with the zstd magic."""
    head = fh.read(4)
    fh.seek(0)
    if head != ZSTD_MAGIC:
        return fh
    import zstandard

    # A frame may not ask for a window over 128 MiB: a hostile header cannot make us allocate more.
    dctx = zstandard.ZstdDecompressor(max_window_size=1 << 27)
    reader: IO[bytes] = dctx.stream_reader(fh, read_across_frames=True, closefd=False)
    return reader


def iter_lines(fh: IO[bytes], max_line_bytes: int = DEFAULT_MAX_LINE_BYTES) -> Iterator[tuple[int, bytes]]:
    """(1-based line number, line without its newline) for every line, holding at most one line.

    A line longer than `max_line_bytes` raises at that line before more of it is read.
    """
    buf = b""
    n = 0
    while True:
        try:
            chunk = fh.read(CHUNK)
        except OSError as e:  # includes zstandard.ZstdError, an OSError subclass in recent releases
            raise trace_error(f"the file cannot be read past this line: {e}", n + 1) from None
        except Exception as e:  # a damaged compressed stream raises the decompressor's own error type
            raise trace_error(f"the compressed stream is damaged here: {e}", n + 1) from None
        if not chunk:
            break
        buf += chunk
        start = 0
        while True:
            nl = buf.find(b"\n", start)
            if nl < 0:
                break
            n += 1
            if nl - start > max_line_bytes:
                raise _too_long(n, max_line_bytes)
            yield n, buf[start:nl]
            start = nl + 1
        buf = buf[start:]
        if len(buf) > max_line_bytes:
            raise _too_long(n + 1, max_line_bytes)
    if buf:
        yield n + 1, buf


def _too_long(line: int, limit: int) -> TraceError:
    return trace_error(
        f"the line is longer than {limit:,} bytes (the limit is `max_line_bytes` in the [wrapper] config table)",
        line,
    )


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


_DECODER = json.JSONDecoder(parse_constant=_reject_constant)


def decode_line(raw: bytes, line: int) -> Any:
    """The JSON value on one line, or a `TraceError` saying why it is not one."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        raise trace_error(f"not UTF-8 text (byte {e.start + 1} of the line)", line) from None
    try:
        return _DECODER.decode(text)
    except RecursionError:
        raise trace_error("the JSON is nested too deeply", line) from None
    except ValueError as e:
        raise trace_error(f"not valid JSON: {e}", line) from None


def load_json_file(path: Path, max_bytes: int) -> Any:
    """One whole JSON document (an importer's input), refused when larger than `max_bytes`."""
    with open_regular(path) as fh:
        raw = fh.read(max_bytes + 1)
    if len(raw) > max_bytes:
        raise trace_error(f"{path}: larger than {max_bytes:,} bytes; not read (is it the right kind of file?)")
    try:
        return _DECODER.decode(raw.decode("utf-8"))
    except UnicodeDecodeError as e:
        raise trace_error(f"{path}: not UTF-8 text (byte {e.start + 1})") from None
    except RecursionError:
        raise trace_error(f"{path}: the JSON is nested too deeply") from None
    except json.JSONDecodeError as e:  # the document's own line, so an editor can jump to it
        raise trace_error(f"not valid JSON: {e.msg} (column {e.colno})", e.lineno) from None
    except ValueError as e:
        raise trace_error(f"{path}: not valid JSON: {e}") from None


@dataclass
class Trace:
    """An open trace: its meta line (if it has one) and its events, read lazily in order."""

    path: Path
    meta: TraceMeta | None
    events: Iterator[TraceEvent]
    skipped: bool = False  # the meta line says `"expected": "skip"`: read, but not to be scored


def _events(first: TraceEvent | None, objects: Iterator[tuple[int, Any]]) -> Iterator[TraceEvent]:
    index = 0
    if first is not None:
        yield first
        index = 1
    for line, obj in objects:
        item = _parse(obj, line, index)
        if isinstance(item, TraceMeta):
            raise trace_error("a `meta` event is only allowed on the first line", line)
        yield item
        index += 1


def _parse(obj: Any, line: int, index: int) -> TraceMeta | TraceEvent:
    try:
        return parse_line(obj, line, index)
    except TraceError as e:
        if e.line is None:
            e.line = line
        raise
    except (TypeError, ValueError, AttributeError, RecursionError) as e:  # a parser gap is still bad input
        raise trace_error(f"not a trace event: {e}", line) from None


def objects_of(fh: IO[bytes], max_line_bytes: int = DEFAULT_MAX_LINE_BYTES) -> Iterator[tuple[int, Any]]:
    """(line, JSON value) for every non-blank line of an open trace file."""
    for line, raw in iter_lines(_decompressed(fh), max_line_bytes):
        if raw.strip():
            yield line, decode_line(raw.rstrip(b"\r"), line)


def from_objects(path: Path, objects: Iterator[tuple[int, Any]]) -> Trace:
    """A `Trace` over (line, JSON value) pairs, from a file or an importer; the meta line is read now."""
    first = next(objects, None)
    if first is None:
        raise trace_error(f"{path}: empty file, no trace events in it")
    line, obj = first
    skipped = is_skip_meta(obj)
    head = _parse({k: v for k, v in obj.items() if k != "expected"} if skipped else obj, line, 0)
    if isinstance(head, TraceMeta):
        return Trace(path, head, _events(None, objects), skipped)
    return Trace(path, None, _events(head, objects))


@contextmanager
def open_trace(path: Path, max_line_bytes: int = DEFAULT_MAX_LINE_BYTES) -> Iterator[Trace]:
    """Open a trace file; the events are read as they are consumed, and the file closes on exit."""
    with open_regular(path) as fh:
        yield from_objects(path, objects_of(fh, max_line_bytes))


def first_object(path: Path, max_line_bytes: int = DEFAULT_MAX_LINE_BYTES) -> Any:
    """The JSON value on the first non-blank line (decompressed), for telling formats apart; None if none."""
    with open_regular(path) as fh:
        for _, obj in objects_of(fh, max_line_bytes):
            return obj
    return None


def is_skip_meta(obj: Any) -> bool:
    """Whether a decoded first line is a meta line whose label is `skip` (undecided: not scored)."""
    return isinstance(obj, dict) and obj.get("t") == "meta" and obj.get("expected") == SKIP


def is_trace_line(obj: Any) -> bool:
    """Whether a first line looks like a neutral trace rather than a recording or a dsh log."""
    return isinstance(obj, dict) and obj.get("t") in TRACE_KINDS and "k" not in obj and "seq" not in obj
