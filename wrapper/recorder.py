"""Appends every message in and every decision out to a per-session JSON-lines file (0600)."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

from wrapper.paths import recordings_dir

FORMAT = "breaker-tui-recording"
VERSION = 1


class Recorder:
    """One file per session; a line per record, flushed as written. Write errors are reported, never raised."""

    def __init__(self, path: Path | None = None, meta: dict[str, Any] | None = None) -> None:
        if path is None:
            d = recordings_dir()
            stamp = time.strftime("%Y%m%d-%H%M%S")
            path = d / f"session-{stamp}-{os.getpid()}.jsonl"
        self.path = path
        self.error: str | None = None
        self.lines = 0
        self._fh = None
        try:
            path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
            self._fh = os.fdopen(fd, "a", encoding="utf-8")
        except OSError as e:
            self.error = f"cannot record to {path}: {e.strerror or e}"
        self.write("meta", {"format": FORMAT, "version": VERSION, **(meta or {})})

    def write(self, kind: str, body: dict[str, Any]) -> None:
        """Append one record: `kind` is in (from the bridge), out (to it), child (output), note, meta."""
        if self._fh is None:
            return
        try:
            self._fh.write(json.dumps({"at": round(time.time(), 4), "k": kind, **body}, ensure_ascii=False) + "\n")
            self._fh.flush()
            self.lines += 1
        except (OSError, ValueError, TypeError) as e:
            if self.error is None:
                self.error = f"recording stopped ({self.path}): {getattr(e, 'strerror', None) or e}"

    def close(self) -> None:
        """Flush and close."""
        if self._fh is not None:
            try:
                self._fh.close()
            except OSError as e:
                self.error = self.error or f"closing the recording failed: {e}"
            self._fh = None
