"""Whether a recording is the one breaker-tui wrote: its hash chain, read against the digest index.

`sources` walks the chain while it reads (`wrapper.records.integrity` says how a record is sealed); this module turns
what the walk found, and what the recorder filed in the index, into one verdict `scan` and `replay` report:

* verified: the chain is whole, the file ends with its end marker, and it ends on the final digest the
  recorder filed for this path;
* unverified: nothing contradicts it, but nothing vouches for it either (an older format without a chain,
  or a whole chain with no index entry: made on another machine, or its entry was removed);
* live: a whole chain without an end marker that a live monitor or hook server still writes (it holds the
  file's lock, `records.live`): what is there is what was written so far, and nothing vouches for it yet;
* incomplete: a whole chain without an end marker where the recorder never filed a close (the monitor was
  killed or the disk filled up): what is there is what was written;
* edited: the chain breaks at a line (a record changed, inserted or removed), or the file was closed and
  is now cut short;
* forged: the chain may be whole but it is not the one filed for this path or this recording id (written
  from scratch, or an older format put where a chained recording was).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Literal

from wrapper.records import integrity
from wrapper.records.keep import Kept

Status = Literal["verified", "unverified", "live", "incomplete", "edited", "forged"]
LIES: frozenset[str] = frozenset({"edited", "forged"})
UNVOUCHED: frozenset[str] = frozenset({"unverified", "live"})  # nothing contradicts it, nothing vouches for it


@dataclass(frozen=True)
class Integrity:
    """One recording's verdict: the status, why, the line it concerns, and the digest the chain reached."""

    status: Status
    detail: str
    line: int | None = None
    digest: str | None = None
    records: int = 0

    @property
    def lies(self) -> bool:
        """Whether the file is not what breaker-tui wrote (edited or forged)."""
        return self.status in LIES

    @property
    def unvouched(self) -> bool:
        """Whether nothing vouches for the file (no index entry, no kept digest): `scan` does not pass it."""
        return self.status in UNVOUCHED

    def to_dict(self) -> dict[str, Any]:
        """The JSON form (`scan --json` prints it on stderr)."""
        return {
            "status": self.status,
            "detail": self.detail,
            "line": self.line,
            "digest": self.digest,
            "records": self.records,
        }

    def text(self) -> str:
        """One line for a person."""
        where = f" at line {self.line}" if self.line else ""
        digest = f" (digest {self.digest[:16]}, {self.records} records)" if self.digest and self.records else ""
        return f"{self.status.upper()}{where}: {self.detail}{digest}"


def judge(
    path: Path,
    meta: dict[str, Any],
    broken: int | None,
    broken_tail: bool,
    chained: int,
    digest: bytes,
    last: dict[str, Any] | None,
    incomplete: str | None,
) -> Integrity:
    """The verdict on a recording from its chain walk: where it broke, how far it went, how it ended."""
    version = meta.get("version")
    rid = meta.get("rid") if isinstance(meta.get("rid"), str) else None
    by_path, by_rid = integrity.lookup(path, rid)
    if not isinstance(version, int) or isinstance(version, bool) or version < 3:
        if by_path is not None:
            return Integrity(
                "forged",
                f"breaker-tui wrote a chained recording (id {by_path.rid}) at this path, "
                f"and this file has no chain (format version {version!r})",
            )
        return Integrity("unverified", f"an older recording format (version {version!r}) without a digest chain")
    hexd = digest.hex()
    if broken is not None and not broken_tail:
        return Integrity("edited", "the digest chain breaks here: a record was changed, inserted or removed", broken)
    if by_path is not None and by_path.rid != rid:
        return Integrity(
            "forged",
            f"the recording breaker-tui filed at this path has id {by_path.rid}, this file claims {rid!r}"
            + (f"; at close the recorder saw: {by_path.tampered}" if by_path.tampered else ""),
            None,
            hexd,
            chained,
        )
    entry = by_path or by_rid
    ended = last is not None and last.get("k") == "end" and broken is None
    if not ended:
        if entry is not None and entry.closed:
            return Integrity(
                "edited",
                f"cut short after it was closed: the recorder wrote {entry.records} records, {chained} are left",
                (chained + 1),
                hexd,
                chained,
            )
        why = incomplete.split(": ", 1)[-1] if incomplete else "the recording has no end marker"
        return Integrity("incomplete", f"{why}; the {chained} records before are intact", chained + 1, hexd, chained)
    if entry is None:
        return Integrity(
            "unverified",
            "the chain is whole, but this machine's index holds no digest for it (made elsewhere, or its entry was "
            "removed): compare the digest with the one on the session's exit line",
            None,
            hexd,
            chained,
        )
    if not entry.closed:
        return Integrity(
            "forged",
            "the file claims to be complete, but the recorder never closed it (its end was written by someone else)",
            None,
            hexd,
            chained,
        )
    if entry.digest != hexd or entry.records != chained:
        return Integrity(
            "forged",
            f"the chain is whole but ends on another digest than the recorder filed ({str(entry.digest)[:16]}, "
            f"{entry.records} records)" + (f"; at close the recorder saw: {entry.tampered}" if entry.tampered else ""),
            None,
            hexd,
            chained,
        )
    return Integrity(
        "verified", "the digest chain is whole and ends on the digest the recorder filed", None, hexd, chained
    )


def against_kept(check: Integrity, kept: Kept | None, where: str) -> Integrity:
    """The verdict checked against a final digest kept out of the agent's reach (`--digest-to`).

    The kept copy outranks the index, which a same-user process can rewrite together with the file:
    a whole chain that ends on the kept digest is verified even without an index entry, and one that
    ends anywhere else is forged, whatever the index says. A chain that is edited or incomplete
    stays so: the kept digest only speaks about where a whole chain ends.
    """
    if kept is None or check.status not in ("verified", "unverified") or check.digest is None:
        return check
    if kept.contradicted:
        return replace(
            check,
            status="forged",
            detail=f"{where} holds more than one digest for this recording: one was added after the session",
        )
    if check.digest == kept.digest and check.records == kept.records:
        return replace(
            check, status="verified", detail=f"the digest chain is whole and ends on the digest kept in {where}"
        )
    return replace(
        check,
        status="forged",
        detail=f"the chain is whole but ends on another digest than the one kept in {where} at close "
        f"({kept.digest[:16]}, {kept.records} records): the file was rewritten after the session",
    )
