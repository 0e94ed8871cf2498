"""The instruction-count benchmark (`engine.bench.instructions`): its measured loop runs, callgrind's count is
read from its report, and without valgrind it says why it measured nothing (numbers are printed, never asserted).
"""

from __future__ import annotations

import shutil

import pytest

from engine.bench import instructions


def test_the_measured_loop_runs_in_both_modes() -> None:
    for mode in instructions.MODES:
        instructions.run_checks(mode, 12)


def test_the_count_is_read_from_callgrinds_report() -> None:
    report = "==123== Events    : Ir\n==123== Collected : 140467667\n==123==\n==123== I   refs:      140,467,667\n"
    assert instructions.collected(report) == 140467667
    assert instructions.collected("valgrind: no such tool") is None


def test_without_valgrind_it_says_why(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(shutil, "which", lambda _name: None)
    assert instructions.main(["--calls", "30"]) == 2
    assert "valgrind is not installed" in capsys.readouterr().out
