"""Records that cannot lie silently: the recorder's check at close, the hash chain, the digest index, `scan`.

Each tamper is what an agent running as the same user can do to its own session's recording:
delete it, replace it, append to it, edit a line, cut it short, forge it from scratch or in
the older format. The recorder must say so at close instead of naming the file as the record, and `scan`
must tell each from a complete recording, with its own exit status (4).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from wrapper.harness.registry import replayer_for
from wrapper.records import integrity, scan
from wrapper.records.recorder import Recorder
from wrapper.records.sources import load

SID = "s1"


def _session(path: Path, calls: int = 6) -> Recorder:
    """A recording as a dsh session writes it: a loop of identical reads, the 5th and 6th denied live."""
    r = Recorder(path, {"argv": ["dsh"], "config": {}})
    r.write("in", {"t": "ready", "sessionId": SID, "provider": "p", "model": "m"})
    r.write("in", {"t": "event", "sessionId": SID, "event": {"type": "turn/start", "data": {"turn": 1}}})
    for i in range(calls):
        args = {"command": "cat notes.txt"}
        r.write(
            "in",
            {"t": "verdict_request", "id": f"v{i}", "sessionId": SID, "callId": f"c{i}", "name": "bash", "args": args},
        )
        r.write("out", {"t": "verdict", "id": f"v{i}", "kind": "deny" if i >= 4 else "allow"})
    return r


def _scan(path: Path, capsys: pytest.CaptureFixture[str], *extra: str) -> tuple[int, str]:
    code = scan.main([str(path), *extra], replayer_for)
    return code, capsys.readouterr().err


def test_a_whole_recording_is_verified_and_scans_as_before(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    r = _session(tmp_path / "r.jsonl")
    r.close()
    assert r.tampered is None and "(digest " in r.describe("1 turn(s)")
    code, err = _scan(r.path, capsys)
    assert code == scan.EXIT_FOUND, err
    assert "integrity: VERIFIED" in err and r.digest[:16] in err
    code, err = _scan(r.path, capsys, "--json")
    line = next(ln for ln in err.splitlines() if '"integrity"' in ln)
    assert json.loads(line.removeprefix("# "))["integrity"]["status"] == "verified"


def test_the_recorder_sees_its_file_deleted_and_the_exit_line_does_not_name_it(tmp_path: Path) -> None:
    errors: list[str] = []
    r = _session(tmp_path / "r.jsonl")
    r.on_error = errors.append
    r.path.unlink()
    r.close()
    assert r.tampered == "the recording was deleted during the session"
    assert errors == [r.tampered], "said at once, loudly"
    line = r.describe("1 turn(s), 2 loop finding(s)")
    assert line.startswith("recording NOT KEPT: the recording was deleted") and "is not this session's record" in line
    assert not line.startswith("recording: ")


@pytest.mark.parametrize(
    ("tamper", "expected"),
    [
        ("replace", "the recording was replaced by another file during the session"),
        ("append", "the recording was appended to by another writer during the session"),
        ("truncate", "the recording was cut short during the session"),
    ],
)
def test_the_recorder_sees_its_file_replaced_or_written_by_another(tmp_path: Path, tamper: str, expected: str) -> None:
    r = _session(tmp_path / "r.jsonl")
    if tamper == "replace":
        r.path.unlink()
        r.path.write_text('{"at": 1, "k": "meta", "format": "breaker-tui-recording", "version": 2}\n')
    elif tamper == "append":
        with r.path.open("a") as f:
            f.write('{"at": 1, "k": "in", "t": "event"}\n')
    else:
        os.truncate(r.path, 100)
    r.close()
    assert r.tampered is not None and r.tampered.startswith(expected)
    assert "NOT KEPT" in r.describe("")


def _lines(p: Path) -> list[bytes]:
    return p.read_bytes().splitlines(keepends=True)


def _edit(p: Path) -> None:
    lines = _lines(p)
    lines[-2] = lines[-2].replace(b'"kind": "deny"', b'"kind": "allow"')  # the last denial, made to read "allow"
    p.write_bytes(b"".join(lines))


def _cut(p: Path) -> None:
    p.write_bytes(b"".join(_lines(p)[:6]))  # the denials and the end marker gone


def _forge(p: Path) -> None:
    """A clean session written from scratch with a valid chain (the algorithm is public), keeping the real id."""
    meta = json.loads(_lines(p)[0])
    meta.pop("h")
    prev, out = integrity.SEED, b""
    for rec in (meta, {"at": 2, "k": "in", "t": "ready", "sessionId": SID}, {"at": 3, "k": "end", "complete": True}):
        line, prev = integrity.seal(prev, json.dumps(rec).encode())
        out += line + b"\n"
    p.write_bytes(out)


def _old_format(p: Path) -> None:
    recs = [
        {"at": 1, "k": "meta", "format": "breaker-tui-recording", "version": 2},
        {"at": 2, "k": "end", "complete": True},
    ]
    p.write_text("".join(json.dumps(r) + "\n" for r in recs))


@pytest.mark.parametrize(
    ("tamper", "status", "needle"),
    [
        (_edit, "EDITED", "the digest chain breaks here"),
        (_cut, "EDITED", "cut short after it was closed"),
        (_forge, "FORGED", "ends on another digest"),
        (_old_format, "FORGED", "this file has no chain"),
    ],
)
def test_scan_tells_an_edited_cut_or_forged_recording_with_its_own_exit_status(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], tamper: object, status: str, needle: str
) -> None:
    r = _session(tmp_path / "r.jsonl")
    r.close()
    tamper(r.path)  # type: ignore[operator]
    code, err = _scan(r.path, capsys)
    assert code == scan.EXIT_TAMPERED == 4, err
    assert f"the recording is {status}" in err and needle in err
    assert "not a faithful record" in err


def test_a_recording_whose_monitor_died_is_incomplete_not_forged(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    r = _session(tmp_path / "r.jsonl")
    assert r._fd is not None
    os.close(r._fd)  # killed: no end marker, no close filed
    r._fd = None
    code, err = _scan(r.path, capsys)
    assert code == scan.EXIT_BAD, err
    check = load(r.path).integrity
    assert check is not None and check.status == "incomplete" and check.records == 15


def test_older_recordings_still_read_and_are_marked_unverified(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    p = tmp_path / "old.jsonl"
    recs = [
        {"at": 1, "k": "meta", "format": "breaker-tui-recording", "version": 2, "config": {}},
        *(
            {
                "at": 2,
                "k": "in",
                "t": "verdict_request",
                "id": f"v{i}",
                "sessionId": SID,
                "callId": f"c{i}",
                "name": "bash",
                "args": {"command": "cat notes.txt"},
            }
            for i in range(5)
        ),
        {"at": 3, "k": "end", "complete": True, "records": 6},
    ]
    p.write_text("".join(json.dumps(r) + "\n" for r in recs))
    code, err = _scan(p, capsys)
    # the 5th read is still denied in the replay, but nothing vouches for the file: scan does not pass it
    assert code == scan.EXIT_UNVERIFIED, err
    assert "integrity: UNVERIFIED: an older recording format (version 2)" in err


def test_a_copied_recording_with_a_whole_chain_is_unverified(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    r = _session(tmp_path / "r.jsonl")
    r.close()
    copy = tmp_path / "elsewhere.jsonl"
    copy.write_bytes(r.path.read_bytes())
    r.path.unlink()
    integrity.drop_entry(r.path)  # the index entry is gone too (another machine's recording)
    code, err = _scan(copy, capsys)
    # exit 0/1 read as "this is the session's record": a file nothing vouches for exits 5 instead
    assert code == scan.EXIT_UNVERIFIED and "UNVERIFIED" in err and "compare the digest" in err
