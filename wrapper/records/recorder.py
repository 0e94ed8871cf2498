"""Appends every message in and every decision out to a per-session JSON-lines file (0600).

A recording must never claim more than happened: the first write that fails is reported at once
(through `on_error`) and ends the recording, and a complete recording ends with an `end` record,
so a file cut short (full disk, killed monitor) is recognisably incomplete to every reader.

It must not lie silently either, since the agent can reach the file: every record carries the
running digest of the chain (`wrapper.records.integrity`), the index in the state directory holds the final
one, and at close the recorder checks the file at its path is still the one it wrote (same inode,
linked, the size it wrote); when it is not, the exit line says so instead of naming the file as the
session's record. What the child prints is capped (per record and in all) so a flood of output
cannot grow a recording without bound; the cut is marked with how much was dropped.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import secrets
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from wrapper.paths import recordings_dir
from wrapper.records import integrity, keep, live
from wrapper.settings import WrapperSettings

FORMAT = "breaker-tui-recording"
VERSION = 3  # 2: the file ends with an `end` record when it is complete; 3: every record carries the chain
CHILD_RECORD_CHARS = 65536  # of one piece of child output (or agent stderr); the rest is dropped, marked
CHILD_BUDGET_BYTES = 32 << 20  # of child output in one recording; later output is counted, not kept
SESSION_ID_CHARS = 64  # longer than every agent's session id (dsh's `session-<uuid>` is 44)
OWN_NAME = re.compile(r"^(session-)?\d{8}-\d{6}[-.].*\.jsonl$")


def slug(text: str, limit: int = 40) -> str:
    """A file-name-safe label: letters, digits, dot, dash, underscore; never empty.

    Cut first, then trimmed: a cut that lands on a separator leaves no dangling `-` or `.`.
    """
    s = re.sub(r"[^A-Za-z0-9._]+", "-", text).strip("-.")[:limit].rstrip("-.")
    return s or "session"


def session_slug(session_id: str) -> str:
    """A session id as it goes into a file name: whole (ids are 30-44 characters), so two never share one."""
    return slug(session_id, SESSION_ID_CHARS)


def prune(
    directory: Path, keep_days: int, keep: int, now: float | None = None, spare: Path | None = None
) -> list[Path]:
    """Delete our own recordings older than `keep_days` days, then all but the newest `keep` (0 = no limit).

    Only files named as breaker-tui names them are touched; `spare` (the one being written) never is.
    """
    now = time.time() if now is None else now
    try:
        files = [
            p
            for p in directory.iterdir()
            if OWN_NAME.match(p.name) and p.is_file() and not p.is_symlink() and p != spare
        ]
    except OSError:
        return []
    mtimes: dict[Path, float] = {}
    for p in files:
        with contextlib.suppress(OSError):
            mtimes[p] = p.stat().st_mtime
    ordered = sorted(mtimes, key=lambda p: mtimes[p], reverse=True)
    room = keep - (spare is not None) if keep > 0 else None  # how many others may stay
    doomed = []
    for i, p in enumerate(ordered):
        old = keep_days > 0 and now - mtimes[p] > keep_days * 86400
        if old or (room is not None and i >= room):
            doomed.append(p)
    removed = []
    for p in doomed:
        with contextlib.suppress(OSError):
            p.unlink()
            removed.append(p)
        integrity.drop_entry(p)
    return removed


def session_recording(
    w: WrapperSettings, meta: dict[str, Any], on_error: Callable[[str], None] | None, label: str
) -> Recorder:
    """A session's recording in `[wrapper] recordings_dir` (or the default folder), which is pruned as the
    config says once the new file exists. Every harness opens its recording here, so `recordings_keep`
    and `recordings_keep_days` hold for every agent (an ACP session named its own file and never pruned).
    """
    where = Path(w.recordings_dir) if w.recordings_dir else None
    rec = Recorder(None, meta, on_error, label=label, directory=where)
    prune(rec.path.parent, w.recordings_keep_days, w.recordings_keep, spare=rec.path)
    return rec


class Recorder:
    """One file per session; a line per record, written through at once. Write errors are reported, never raised."""

    def __init__(
        self,
        path: Path | None = None,
        meta: dict[str, Any] | None = None,
        on_error: Callable[[str], None] | None = None,
        label: str = "session",
        directory: Path | None = None,
    ) -> None:
        self.named = path is None  # we chose the name, so we may rename it once the session id is known
        if path is None:
            path = self._fresh_name(directory or recordings_dir(), label)
        self.path = path
        self.on_error = on_error
        self.error: str | None = None
        self.tampered: str | None = None
        """Why the file at `path` is no longer the one written (deleted, replaced, written by another), or None."""
        self.lines = 0
        self.calls = 0
        self.denials = 0
        self.trips = 0
        self.alarms: list[str] = []  # what each alarm note said (a call ran that the monitor refused)
        self.rid = secrets.token_hex(8)
        self.written = 0  # bytes this recorder wrote
        self.dropped = 0  # bytes of child output not recorded (over the caps)
        self._budget = CHILD_BUDGET_BYTES
        self._prev = integrity.SEED
        self._lock = threading.Lock()  # a record's digest and its write are one step (the pty reader is a thread)
        self._fd: int | None = None
        self._ident: tuple[int, int] | None = None
        try:
            path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
            # never through a symlink planted at the path; a name we chose must be a new file
            flags = os.O_WRONLY | os.O_CREAT | os.O_APPEND | os.O_CLOEXEC | os.O_NOFOLLOW | (os.O_EXCL * self.named)
            self._fd = os.open(path, flags, 0o600)
            live.hold(self._fd)  # until closed, readers know the missing end marker means "still being written"
            st = os.fstat(self._fd)
            self._ident = (st.st_dev, st.st_ino)
            self.written = st.st_size  # appending to an existing file (a path given by the caller)
        except OSError as e:
            self.error = f"cannot record to {path}: {e.strerror or e}"
        self.write("meta", {"format": FORMAT, "version": VERSION, "rid": self.rid, **(meta or {})})
        if self._fd is not None:
            self._file(closed=False)

    @staticmethod
    def _fresh_name(directory: Path, label: str) -> Path:
        stamp = time.strftime("%Y%m%d-%H%M%S")
        path = directory / f"{stamp}-{slug(label)}.jsonl"
        n = 2
        while path.exists():
            path = directory / f"{stamp}-{slug(label)}-{n}.jsonl"
            n += 1
        return path

    @property
    def digest(self) -> str:
        """The chain's digest so far (after `close`, the final one the index and the exit line show)."""
        return self._prev.hex()

    def _file(self, closed: bool) -> None:
        entry = integrity.Entry(
            integrity.real(self.path),
            self.rid,
            closed,
            self.lines if closed else None,
            self.digest if closed else None,
            self.tampered,
        )
        problem = integrity.file_entry(entry)
        if problem is not None and self.on_error is not None:
            with contextlib.suppress(Exception):
                self.on_error(problem)

    def _keep_digest(self) -> None:
        """The final digest, also where the agent cannot write (`--digest-to`); a failure is said at once."""
        for problem in keep.ship(self.path, self.rid, self.digest, self.lines):
            if self.on_error is not None:
                with contextlib.suppress(Exception):
                    self.on_error(problem)

    def name_for(self, session_id: str) -> None:
        """Put the session id into the file name (only when we chose the name)."""
        if not self.named or self._fd is None or not session_id:
            return
        new = self.path.with_name(f"{self.path.stem}-{session_slug(session_id)}.jsonl")
        if new.exists():
            return
        with contextlib.suppress(OSError):
            os.rename(self.path, new)
            integrity.drop_entry(self.path)
            self.path = new
            self._file(closed=False)
        self.named = False

    def write(self, kind: str, body: dict[str, Any]) -> None:
        """Append one record: `kind` is in (from the bridge), out (to it), child (output), note, meta."""
        if self._fd is None:
            return
        if kind == "child":
            capped = self._capped(body)
            if capped is None:
                return
            body = capped
        try:
            line = json.dumps({"at": round(time.time(), 4), "k": kind, **body}, ensure_ascii=False)
        except (ValueError, TypeError, RecursionError) as e:
            line = json.dumps(
                {
                    "at": round(time.time(), 4),
                    "k": "note",
                    "what": "unrecordable",
                    "kind": kind,
                    "text": f"a {kind} record could not be written: {type(e).__name__}",
                }
            )
        self._count(kind, body)
        self._append(line.encode("utf-8", "surrogatepass"))

    def _capped(self, body: dict[str, Any]) -> dict[str, Any] | None:
        """Child output within the caps: a long piece is cut (and says so), past the budget nothing is kept."""
        text = body.get("text")
        if not isinstance(text, str):
            return body
        size = len(text.encode("utf-8", "surrogatepass"))
        if self._budget <= 0:
            self.dropped += size
            return None
        cut = len(text) > CHILD_RECORD_CHARS
        if cut:
            text = text[:CHILD_RECORD_CHARS]
        kept = len(text.encode("utf-8", "surrogatepass"))
        self._budget -= kept
        self.dropped += size - kept
        if self._budget <= 0:  # this piece spent the budget: say so once, in the recording itself
            self._budget = 0
            note = (
                f"child output over {CHILD_BUDGET_BYTES >> 20} MiB in this recording: "
                "later output is not recorded (the total dropped is in the end record)"
            )
            self.write("note", {"what": "output-capped", "text": note})
        if cut:
            text += f"\n[… {size - kept:,} more bytes of this output not recorded]"
        return {**body, "text": text}

    def _count(self, kind: str, body: dict[str, Any]) -> None:
        if kind == "note" and body.get("what") == "alarm":  # a call ran against the monitor's answer
            self.alarms.append(str(body.get("text", ""))[:300])
        if kind != "out":
            return
        t = body.get("t")
        if t == "verdict" and not body.get("timeout"):
            self.calls += 1
            self.denials += body.get("kind") == "deny"
        elif t == "verdict":
            self.denials += 1
        elif t == "trip":
            self.trips += 1

    def _append(self, obj: bytes) -> None:
        """Seal one serialised record into the chain and write it whole."""
        with self._lock:
            if self._fd is None:
                return
            sealed, digest = integrity.seal(self._prev, obj)
            view = memoryview(sealed + b"\n")
            try:
                while view:
                    n = os.write(self._fd, view)
                    view = view[n:]
                    self.written += n
                self.lines += 1
                self._prev = digest
            except OSError as e:
                self._fail(f"recording stopped at line {self.lines + 1} ({self.path}): {e.strerror or e}")

    def _fail(self, text: str) -> None:
        """The first failure ends the recording: it stays without its end marker, so readers know."""
        if self.error is None:
            self.error = text
            if self.on_error is not None:
                with contextlib.suppress(Exception):
                    self.on_error(text)
        if self._fd is not None:
            with contextlib.suppress(OSError):
                os.close(self._fd)
            self._fd = None

    def check(self) -> str | None:
        """Whether the file at `path` is still the one being written; why not, or None.

        The descriptor's inode is compared with the path's (deleted: no link left, or another file at the
        path: replaced), and the size with what was written (another writer appended or truncated).
        """
        if self._fd is None or self._ident is None:
            return None
        try:
            own = os.fstat(self._fd)
        except OSError as e:
            return f"the recording cannot be checked: {e.strerror or e}"
        if own.st_nlink == 0:
            another = os.path.lexists(self.path)
            return f"the recording was {'replaced by another file' if another else 'deleted'} during the session"
        try:
            there = os.stat(self.path)
        except OSError:
            return "the recording was moved away or deleted during the session"
        if (there.st_dev, there.st_ino) != self._ident:
            return "the recording was replaced by another file during the session"
        if own.st_size != self.written:
            how = "cut short" if own.st_size < self.written else "appended to by another writer"
            return f"the recording was {how} during the session ({own.st_size:,} bytes, {self.written:,} written)"
        return None

    def summary(self) -> str:
        """One line for the person at exit: what the session did, and whether the record is whole."""
        trips = f"{self.trips} trip" + ("" if self.trips == 1 else "s")
        text = self._alarmed(f"{self.calls} tool calls, {self.denials} denied, {trips}")
        return text + (f"; recording INCOMPLETE: {self.error}" if self.error else "")

    def _alarmed(self, summary: str) -> str:
        """The summary led by the first alarm: a denied count does not hold once a refused call ran."""
        if not self.alarms:
            return summary
        more = f" (and {len(self.alarms) - 1} more)" if len(self.alarms) > 1 else ""
        return f"ALARM: {self.alarms[0]}{more}; {summary}"

    def describe(self, summary: str) -> str:
        """`recording: PATH — summary` for the exit line, or what happened to it when the file is not ours."""
        summary = self._alarmed(summary)
        if self.tampered:
            return (
                f"recording NOT KEPT: {self.tampered}; {self.path} is not this session's record — {summary}"
                f" (what was written ends on digest {self.digest[:16]})"
            )
        tail = f"; {self.error}" if self.error else ""
        return f"recording: {self.path} — {summary}{tail} (digest {self.digest[:16]})"

    def close(self) -> None:
        """Check the file is still ours, write the end marker, file the final digest and close.

        After a failure there is no marker (the file is incomplete); after tampering there is one, saying so,
        but the index and the exit line say the file at the path is not the session's record.
        """
        if self._fd is None:
            return
        self.tampered = self.check()
        if self.tampered is not None and self.on_error is not None:
            with contextlib.suppress(Exception):
                self.on_error(self.tampered)
        end: dict[str, Any] = {"at": round(time.time(), 4), "k": "end", "complete": True, "records": self.lines}
        if self.dropped:
            end["dropped_output_bytes"] = self.dropped
        if self.tampered:
            end["tampered"] = self.tampered
        self._append(json.dumps(end).encode())
        if self._fd is not None:
            try:
                os.fsync(self._fd)
            except OSError as e:
                if e.errno not in (22, 95):  # EINVAL/EOPNOTSUPP: this file cannot be synced, nothing was lost
                    self._fail(f"recording could not be saved ({self.path}): {e.strerror or e}")
        if self._fd is not None:
            self._file(closed=True)
            self._keep_digest()
            with contextlib.suppress(OSError):
                os.close(self._fd)
            self._fd = None
