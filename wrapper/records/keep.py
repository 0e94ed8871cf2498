"""Keeping a recording's final digest where the agent cannot write, and reading it back for `scan`.

The hash chain has no key: a process of the same user that can write the state folder can rewrite a
closed recording, re-seal the chain and rewrite (or delete) its index entry. What it cannot rewrite is
a copy of the final digest kept out of its reach. `--digest-to FILE` appends one line per recording
at close to FILE (a file of another user, a mounted log, a FIFO a logger reads), `--digest-to syslog`
sends it to the system log; `scan --digests FILE` then checks a recording against those lines.
"""

from __future__ import annotations

import os
import re
import time
from dataclasses import dataclass
from pathlib import Path

SYSLOG = "syslog"
_targets: list[str] = []  # where this process sends the digests of the recordings it closes
_LINE = re.compile(
    r"breaker-tui recording rid=(?P<rid>[0-9a-f]+) records=(?P<records>\d+) digest=(?P<digest>[0-9a-f]+)"
)


@dataclass(frozen=True)
class Kept:
    """One recording's final digest as it was kept at close."""

    rid: str
    records: int
    digest: str
    contradicted: bool = False  # a later line gave this recording another digest (someone else wrote it)


def line_for(path: Path, rid: str, digest: str, records: int) -> str:
    """The kept line: readable by a person, parsed by `read_kept` (the path last: it may hold spaces)."""
    stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    return f"{stamp} breaker-tui recording rid={rid} records={records} digest={digest} path={path}"


def check_target(target: str) -> str | None:
    """Why `target` cannot take digests (said at start, before the session runs), or None."""
    if target == SYSLOG:
        try:
            import syslog  # noqa: F401  (POSIX only)
        except ImportError:
            return "this system has no syslog; give a FILE"
        return None
    try:
        fd = os.open(target, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
    except OSError as e:
        return f"{target}: cannot append to it: {e.strerror or e}"
    os.close(fd)
    return None


def configure(targets: list[str]) -> None:
    """Send the digests of the recordings this process closes to `targets` (FILE paths or `syslog`)."""
    _targets[:] = targets


def ship(path: Path, rid: str, digest: str, records: int) -> list[str]:
    """Append the final digest to every target; returns what failed (empty when all took it)."""
    line = line_for(path, rid, digest, records)
    failed: list[str] = []
    for target in _targets:
        try:
            if target == SYSLOG:
                _to_syslog(line)
            else:
                _append(Path(target), line)
        except OSError as e:
            failed.append(f"the digest could not be kept in {target}: {e.strerror or e}")
    return failed


def _append(target: Path, line: str) -> None:
    fd = os.open(target, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
    try:
        os.write(fd, (line + "\n").encode("utf-8", "surrogateescape"))  # one write: lines never interleave
    finally:
        os.close(fd)


def _to_syslog(line: str) -> None:
    import syslog

    syslog.openlog("breaker-tui", 0, syslog.LOG_USER)
    syslog.syslog(syslog.LOG_NOTICE, line)


def read_kept(source: Path) -> dict[str, Kept]:
    """Every kept line of `source` by recording id; other lines are skipped.

    The first line of an id is the recorder's (it writes one, at close); a same-user process can
    append to a log it cannot rewrite, so a later line with another digest marks the id contradicted.
    Raises OSError when `source` cannot be read.
    """
    out: dict[str, Kept] = {}
    with source.open(encoding="utf-8", errors="replace") as f:
        for text in f:
            m = _LINE.search(text)
            if not m:
                continue
            now, first = Kept(m["rid"], int(m["records"]), m["digest"]), out.get(m["rid"])
            if first is None:
                out[now.rid] = now
            elif (first.digest, first.records) != (now.digest, now.records):
                out[now.rid] = Kept(first.rid, first.records, first.digest, contradicted=True)
    return out
