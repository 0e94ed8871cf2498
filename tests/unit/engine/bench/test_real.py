"""The real-results replay benchmark (`engine.bench.real`): it reads a folder of traces, replays them under
both modes and prints the per-call figures with the load (numbers are printed, never asserted).
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from engine.bench import real
from engine.bench.core import main

LOOPS = Path(__file__).resolve().parents[3] / "data" / "loops"


def _two_traces(tmp_path: Path) -> Path:
    for p in sorted(LOOPS.glob("*.jsonl"))[:2]:
        shutil.copy(p, tmp_path / p.name)
    return tmp_path


def test_replay_prints_both_modes_and_the_load(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--real", str(_two_traces(tmp_path)), "--rounds", "1"]) == 0
    out = capsys.readouterr().out
    assert "2 traces" in out and "load" in out
    assert "seed rules" in out and "default rules" in out and "x" in out


def test_measure_counts_the_calls(tmp_path: Path) -> None:
    traces = real.read_traces(_two_traces(tmp_path))
    r = real.measure(traces, 1)
    assert r["calls"] == real.count_calls(traces) > 0
    assert r["seed_cpu_us_per_call"] > 0 and r["default_cpu_us_per_call"] > 0


def test_an_empty_folder_is_reported(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert real.report(tmp_path, 1) == 2
    assert "no .jsonl traces" in capsys.readouterr().out
