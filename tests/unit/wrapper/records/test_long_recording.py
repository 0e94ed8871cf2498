"""Long sessions stay usable: recordings stream, and child output cannot grow them unbounded.

Before, `records.sources` loaded every record into a list (250 MB took 1.9 GB and `scan` refused anything
past 256 MiB) and the replay player replayed the whole file before its first frame. A 100,000-event
recording (the shape of the probe's fake dsh) is scanned in a child process, so the peak is the real
resident size, and must stay under a bound a list of its records alone would exceed; the player must hold
its first frame having counted only a small part of it. How fast the scan goes is a benchmark's question,
not a test's: `python -m wrapper.bench.recording` prints the pace of a million events (seconds, CPU per
record, and the scan's CPU over `json.loads` of the same lines), and `make bench` runs it.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from wrapper.bench.recording import measure, write_recording
from wrapper.harness.registry import replayer_for
from wrapper.records import recorder
from wrapper.records.recorder import Recorder
from wrapper.records.replay import Player
from wrapper.records.sources import load
from wrapper.settings import Settings

PEAK_MIB = 110  # the interpreter and its imports take ~45 MiB; the records as a list took ~250 MiB here


@pytest.mark.slow
def test_a_100k_event_recording_scans_in_bounded_memory_and_replays_at_once(tmp_path: Path) -> None:
    path = tmp_path / "long.jsonl"
    records = write_recording(path, events=100_000, calls=1_000)
    assert records > 100_000 and path.stat().st_size > 25 << 20
    scan = measure("scan", path)
    assert scan["code"] == 1, scan  # the planted loop is still found
    assert "VERIFIED" in scan["integrity"], scan
    assert scan["rss_mib"] < PEAK_MIB, scan
    loaded = load(path)
    player = Player(loaded, Settings(), replayer_for)
    assert player.forward(1), "the first frame"
    assert loaded._done is None, "no pass read the whole file before the first frame"
    assert not player.complete and player.indexed <= Player.INDEX_AT_START < records // 10


def test_child_output_is_capped_per_record_and_per_recording(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(recorder, "CHILD_BUDGET_BYTES", 1 << 20)  # the same code path, a budget a test can afford
    r = Recorder(tmp_path / "r.jsonl", {})
    r.write("child", {"text": "x" * 100_000})  # one piece longer than a record takes
    for _ in range(60):  # 60 MB of stderr, as the probe's flood sent
        r.write("child", {"text": "y" * 60_000})
    r.close()
    size = r.path.stat().st_size
    assert size < (1 << 20) + 200_000, size
    recs = [json.loads(line) for line in r.path.read_text().splitlines()]
    first = recs[1]["text"]
    assert (
        first.startswith("x" * recorder.CHILD_RECORD_CHARS) and "34,464 more bytes of this output not recorded" in first
    )
    notes = [x for x in recs if x.get("what") == "output-capped"]
    assert len(notes) == 1 and "later output is not recorded" in notes[0]["text"]
    kept = [x for x in recs if x.get("k") == "child"]
    assert 1 < len(kept) < 20, "output past the budget is not recorded"
    dropped = 100_000 + 60 * 60_000 - (recorder.CHILD_RECORD_CHARS + 60_000 * (len(kept) - 1))
    assert recs[-1]["k"] == "end" and recs[-1]["dropped_output_bytes"] == dropped
    check = load(r.path).integrity
    assert check is not None and check.status == "verified"


def test_the_memory_figure_is_the_scan_s_own_not_its_parent_s(tmp_path: Path) -> None:
    """Linux keeps `ru_maxrss` across exec: a scan started by a big test worker must not report the worker's."""
    ballast = bytearray(256 << 20)
    for i in range(0, len(ballast), 4096):  # touched, so the parent really holds it
        ballast[i] = 1
    path = tmp_path / "short.jsonl"
    write_recording(path, events=2_000, calls=20)
    assert measure("scan", path)["rss_mib"] < PEAK_MIB
    del ballast
