"""A recording rewritten after its session, with its index entry rewritten or deleted, does not pass `scan`.

The chain has no key, so a same-user process can drop the denied calls, re-seal the chain and rewrite
the index entry: `scan` then said VERIFIED; with the entry deleted it said UNVERIFIED and exited 0. Now
UNVERIFIED exits 5, and a digest kept at close where the agent cannot write (`--digest-to FILE`)
outranks the index (`scan --digests FILE`).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.unit.wrapper.records.test_record_integrity import _scan, _session
from wrapper.records import integrity, keep, scan


@pytest.fixture
def kept(tmp_path: Path) -> Iterator[Path]:
    """Digests of the recordings closed in this test go to a file outside the state folder."""
    target = tmp_path / "elsewhere" / "digests.log"
    target.parent.mkdir()
    assert keep.check_target(str(target)) is None
    keep.configure([str(target)])
    yield target
    keep.configure([])


def _forge(path: Path, index: bool) -> None:
    """What the probe's forger does: drop the denied verdicts, re-seal the chain, rewrite or delete the entry."""
    records = [json.loads(line) for line in path.read_bytes().splitlines()]
    meta = records[0]
    kept = [r for r in records if not (r.get("k") == "out" and r.get("kind") == "deny")]
    prev, lines = integrity.SEED, list[bytes]()
    for r in kept:
        r.pop("h", None)
        if r.get("k") == "end":
            r["records"] = len(lines)
        line, prev = integrity.seal(prev, json.dumps(r).encode())
        lines.append(line)
    path.write_bytes(b"\n".join(lines) + b"\n")
    if index:
        entry = integrity.Entry(integrity.real(path), meta["rid"], True, len(lines), prev.hex())
        assert integrity.file_entry(entry) is None
    else:
        integrity.drop_entry(path)


def test_the_final_digest_is_kept_at_close_and_vouches_for_the_untouched_recording(
    tmp_path: Path, kept: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    r = _session(tmp_path / "r.jsonl")
    r.close()
    line = kept.read_text()
    assert f"rid={r.rid} records={r.lines} digest={r.digest}" in line and str(r.path) in line
    integrity.drop_entry(r.path)  # no index entry: the kept digest vouches all the same
    code, err = _scan(r.path, capsys, "--digests", str(kept))
    assert code == scan.EXIT_FOUND and "VERIFIED" in err and "kept in" in err, err


@pytest.mark.parametrize("index", [True, False], ids=["index-rewritten", "index-deleted"])
def test_a_recording_rewritten_after_its_session_fails_scan(
    tmp_path: Path, kept: Path, capsys: pytest.CaptureFixture[str], index: bool
) -> None:
    r = _session(tmp_path / "r.jsonl")
    r.close()
    _forge(r.path, index)
    code, err = _scan(r.path, capsys)
    if index:  # the limit without a kept digest: the index was rewritten with the file
        assert code == scan.EXIT_FOUND and "integrity: VERIFIED" in err, err
    else:
        assert code == scan.EXIT_UNVERIFIED and "nothing vouches for this recording" in err, err
    code, err = _scan(r.path, capsys, "--digests", str(kept))
    assert code == scan.EXIT_TAMPERED and "FORGED" in err and "kept in" in err, err


def test_a_digest_target_that_cannot_be_written_is_refused_before_the_session(tmp_path: Path) -> None:
    why = keep.check_target(str(tmp_path / "no-such-dir" / "d.log"))
    assert why is not None and "cannot append" in why


def test_a_second_digest_appended_for_the_same_recording_is_forgery(
    tmp_path: Path, kept: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A log the agent cannot rewrite may still take its lines (syslog): a later digest cannot win."""
    r = _session(tmp_path / "r.jsonl")
    r.close()
    _forge(r.path, index=True)
    forged = json.loads(r.path.read_bytes().splitlines()[-1])["h"]
    with kept.open("a") as f:
        f.write(keep.line_for(r.path, r.rid, forged, len(r.path.read_bytes().splitlines())) + "\n")
    code, err = _scan(r.path, capsys, "--digests", str(kept))
    assert code == scan.EXIT_TAMPERED and "more than one digest" in err, err
