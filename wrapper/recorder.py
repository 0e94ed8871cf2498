"""Appends every message in and every decision out to a per-session JSON-lines file (0600).

A recording must never claim more than happened: the first write that fails is reported at once
(through `on_error`) and ends the recording, and a complete recording ends with an `end` record,
so a file cut short (full disk, killed monitor) is recognisably incomplete to every reader.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from wrapper.paths import recordings_dir

FORMAT = "breaker-tui-recording"
VERSION = 2  # 2: the file ends with an `end` record when it is complete
OWN_NAME = re.compile(r"^(session-)?\d{8}-\d{6}[-.].*\.jsonl$")


def slug(text: str, limit: int = 40) -> str:
    """A file-name-safe label: letters, digits, dot, dash; never empty."""
    s = re.sub(r"[^A-Za-z0-9.]+", "-", text).strip("-.")[:limit]
    return s or "session"


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
    return removed


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
        self.lines = 0
        self.calls = 0
        self.denials = 0
        self.trips = 0
        self._fd: int | None = None
        try:
            path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
            self._fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND | os.O_CLOEXEC, 0o600)
        except OSError as e:
            self.error = f"cannot record to {path}: {e.strerror or e}"
        self.write("meta", {"format": FORMAT, "version": VERSION, **(meta or {})})

    @staticmethod
    def _fresh_name(directory: Path, label: str) -> Path:
        stamp = time.strftime("%Y%m%d-%H%M%S")
        path = directory / f"{stamp}-{slug(label)}.jsonl"
        n = 2
        while path.exists():
            path = directory / f"{stamp}-{slug(label)}-{n}.jsonl"
            n += 1
        return path

    def name_for(self, session_id: str) -> None:
        """Put the session id into the file name (only when we chose the name)."""
        if not self.named or self._fd is None or not session_id:
            return
        new = self.path.with_name(f"{self.path.stem}-{slug(session_id, 24)}.jsonl")
        if new.exists():
            return
        with contextlib.suppress(OSError):
            os.rename(self.path, new)
            self.path = new
        self.named = False

    def write(self, kind: str, body: dict[str, Any]) -> None:
        """Append one record: `kind` is in (from the bridge), out (to it), child (output), note, meta."""
        if self._fd is None:
            return
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
        self._append((line + "\n").encode("utf-8", "surrogatepass"))

    def _count(self, kind: str, body: dict[str, Any]) -> None:
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

    def _append(self, data: bytes) -> None:
        assert self._fd is not None
        view = memoryview(data)
        try:
            while view:
                n = os.write(self._fd, view)
                view = view[n:]
            self.lines += 1
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

    def summary(self) -> str:
        """One line for the person at exit: what the session did, and whether the record is whole."""
        trips = f"{self.trips} trip" + ("" if self.trips == 1 else "s")
        text = f"{self.calls} tool calls, {self.denials} denied, {trips}"
        return text + (f"; recording INCOMPLETE: {self.error}" if self.error else "")

    def close(self) -> None:
        """Write the end marker and close (after a failure there is no marker: the file is incomplete)."""
        if self._fd is None:
            return
        end = {"at": round(time.time(), 4), "k": "end", "complete": True, "records": self.lines}
        self._append((json.dumps(end) + "\n").encode())
        if self._fd is not None:
            try:
                os.fsync(self._fd)
            except OSError as e:
                if e.errno not in (22, 95):  # EINVAL/EOPNOTSUPP: this file cannot be synced, nothing was lost
                    self._fail(f"recording could not be saved ({self.path}): {e.strerror or e}")
        if self._fd is not None:
            with contextlib.suppress(OSError):
                os.close(self._fd)
            self._fd = None
