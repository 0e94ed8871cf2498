"""The hash chain a recording carries and the digest index that anchors it: what lets `scan` tell a lie.

The agent runs as the same user as the monitor, so it can delete, truncate, edit or replace the recording
while the session runs. It cannot be prevented; it can be made visible:

* every record ends with `"h"`, the running digest: BLAKE2b-128 of the previous record's digest and this
  record's bytes without its `"h"` (the first record starts from `SEED`). An edited, inserted or dropped
  line breaks the chain at that line; a file cut short keeps a valid chain but has no end marker.
* the recorder keeps a small index entry per recording in the state directory (0600 files in a 0700
  directory), keyed by the recording's real path: its random id, and once closed its record count and
  final digest. A file rewritten from scratch with a valid chain (the algorithm is public) does not end
  on the digest the index holds, so `scan` calls it forged; one that was closed but now lacks its end
  is cut short after the fact.

A same-user agent can also rewrite the index; the final digest is therefore printed on the exit line
too, where the agent cannot reach it, and `scan` prints the digest it computed to compare with.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from wrapper.paths import state_dir

SEED = hashlib.blake2b(b"breaker-tui-recording/3", digest_size=16).digest()
DIGEST_HEX = 32
# a chained line ends with  ,"h":"<32 hex>"}  : the record's JSON object with its digest as the last key
_HEAD = b',"h":"'
SUFFIX_LEN = len(_HEAD) + DIGEST_HEX + 2
INDEX_FILES_SCANNED = 20_000  # a lookup by recording id reads at most this many index entries


def link(prev: bytes, body: bytes) -> bytes:
    """The digest of one record: `prev` (the previous digest) chained with the record's bytes."""
    return hashlib.blake2b(prev + body, digest_size=16).digest()


def seal(prev: bytes, body: bytes) -> tuple[bytes, bytes]:
    """(the line to write, its digest) for a record serialised as the JSON object `body`."""
    digest = link(prev, body)
    return body[:-1] + _HEAD + digest.hex().encode() + b'"}', digest


_HEX_AT = -SUFFIX_LEN + len(_HEAD)  # where the digest's hex starts, from the line's end


def unseal(prev: bytes, line: bytes) -> bytes | None:
    """The digest of a written line if its `"h"` matches the chain from `prev`, else None.

    Called for every line `scan` reads, so it is one hash call on one joined buffer (as `link` hashes).
    """
    if len(line) <= SUFFIX_LEN or line[-SUFFIX_LEN:_HEX_AT] != _HEAD or line[-2:] != b'"}':
        return None
    digest = hashlib.blake2b(prev + line[:-SUFFIX_LEN] + b"}", digest_size=16).digest()
    return digest if digest.hex().encode() == line[_HEX_AT:-2] else None


# -- the index ------------------------------------------------------------------------------------


def index_dir() -> Path:
    """Where the digests of this user's recordings are kept."""
    return state_dir() / "recording-index"


def real(path: Path) -> str:
    """The key a recording is filed under: its absolute path with symlinks resolved."""
    return os.path.realpath(os.path.abspath(path))


def _entry_file(path: Path) -> Path:
    key = hashlib.blake2b(real(path).encode("utf-8", "surrogatepass"), digest_size=16).hexdigest()
    return index_dir() / f"{key}.json"


@dataclass(frozen=True)
class Entry:
    """What the recorder filed about one recording."""

    path: str
    rid: str
    closed: bool = False
    records: int | None = None
    digest: str | None = None
    tampered: str | None = None

    @staticmethod
    def parse(obj: Any) -> Entry | None:
        """An entry from its JSON, or None when it is not one (a damaged index file is ignored)."""
        if not isinstance(obj, dict) or not isinstance(obj.get("path"), str) or not isinstance(obj.get("rid"), str):
            return None
        records, digest, tampered = obj.get("records"), obj.get("digest"), obj.get("tampered")
        return Entry(
            obj["path"],
            obj["rid"],
            obj.get("closed") is True,
            records if isinstance(records, int) and not isinstance(records, bool) else None,
            digest if isinstance(digest, str) else None,
            tampered if isinstance(tampered, str) else None,
        )


def file_entry(entry: Entry) -> str | None:
    """Write (or replace) the index entry of `entry.path`; the error text when it cannot be written."""
    target = _entry_file(Path(entry.path))
    tmp = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    try:
        target.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC | os.O_NOFOLLOW, 0o600)
        try:
            os.write(fd, json.dumps(entry.__dict__).encode())
        finally:
            os.close(fd)
        os.replace(tmp, target)
        return None
    except OSError as e:
        with contextlib.suppress(OSError):
            tmp.unlink()
        return f"cannot keep the recording's digest in {target.parent}: {e.strerror or e}"


def drop_entry(path: Path) -> None:
    """Forget the entry of `path` (the recording was pruned or renamed)."""
    with contextlib.suppress(OSError):
        _entry_file(path).unlink()


def _read_entry(f: Path) -> Entry | None:
    try:
        with f.open("rb") as fh:
            return Entry.parse(json.loads(fh.read(1 << 16)))
    except (OSError, ValueError, RecursionError):
        return None


def lookup(path: Path, rid: str | None) -> tuple[Entry | None, Entry | None]:
    """(the entry filed under this path, the entry of this recording id wherever it was filed)."""
    by_path = _read_entry(_entry_file(path))
    if by_path is not None and by_path.path != real(path):
        by_path = None  # a hash collision or a planted file: not this path's entry
    if rid is None or (by_path is not None and by_path.rid == rid):
        return by_path, by_path
    by_rid = None
    with contextlib.suppress(OSError):
        for n, f in enumerate(index_dir().iterdir()):
            if n >= INDEX_FILES_SCANNED:
                break
            e = _read_entry(f) if f.suffix == ".json" else None
            if e is not None and e.rid == rid:
                by_rid = e
                break
    return by_path, by_rid
