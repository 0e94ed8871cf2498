"""`breaker-tui eval` reads a corpus's own layout: `skip` labels and a `traces/` folder.

A labelled corpus keeps the sessions its labeller could not decide on (`"expected": "skip"`) and may
keep its traces in a `traces/` folder beside `labels.jsonl` and the native files; both are read
without error, and only the decided traces are scored.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from wrapper.records.evaluate import evaluate, main
from wrapper.records.trace_io import open_trace


def _trace(meta: dict[str, object], calls: int) -> str:
    call = {"t": "call", "tool": "bash", "args": {"command": "cd fastjson/"}, "output": "no such dir", "exit": 1}
    return "".join(json.dumps(e) + "\n" for e in [{"t": "meta", **meta}, *[call] * calls])


def test_skip_labels_are_read_and_not_scored(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "a-loop.jsonl").write_text(_trace({"expected": "loop"}, 8), encoding="utf-8")
    (tmp_path / "b-undecided.jsonl").write_text(_trace({"expected": "skip"}, 8), encoding="utf-8")
    assert main([str(tmp_path), "--mode", "default"]) == 0
    assert "1 labelled skip, not scored" in capsys.readouterr().out
    t = evaluate(tmp_path, ("default",))["default"]
    assert (t.table()["cases"], t.table()["skipped"], t.skipped) == (1, 1, ["b-undecided.jsonl"])
    # a skip trace is still read: a broken one is reported like any other
    (tmp_path / "c-broken.jsonl").write_text('{"t": "meta", "expected": "skip"}\n{"t": "call"}\n', encoding="utf-8")
    assert main([str(tmp_path)]) == 2
    assert "c-broken.jsonl" in capsys.readouterr().err


def test_a_corpus_folder_with_a_traces_folder(tmp_path: Path) -> None:
    (tmp_path / "traces").mkdir()
    (tmp_path / "labels.jsonl").write_text('{"id": "x"}\n', encoding="utf-8")  # not a trace: not read
    (tmp_path / "traces" / "one.jsonl").write_text(_trace({"expected": "loop"}, 8), encoding="utf-8")
    assert evaluate(tmp_path, ("default",))["default"].table()["loops"] == 1


def test_a_skip_trace_opens_unlabelled(tmp_path: Path) -> None:
    p = tmp_path / "undecided.jsonl"
    p.write_text(_trace({"expected": "skip", "name": "n"}, 2), encoding="utf-8")
    with open_trace(p) as t:
        assert t.skipped and t.meta is not None and t.meta.expected is None and t.meta.name == "n"
        assert len(list(t.events)) == 2


def test_each_row_names_its_file_first(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A row named the trace by its meta name (`loops/paging-forward/real-047-…`): an `XX` row could not be
    found by its file (`legit-063-paging-forward.jsonl`).
    """
    meta: dict[str, object] = {"expected": "loop", "name": "loops/cd-fails/real-001-somewhere"}
    (tmp_path / "loop-001-cd.jsonl").write_text(_trace(meta, 8), encoding="utf-8")
    assert main([str(tmp_path), "--mode", "default"]) == 0
    (row,) = [line for line in capsys.readouterr().out.splitlines() if "loop-001" in line]
    assert row.split()[-2:] == ["loop-001-cd.jsonl", "(loops/cd-fails/real-001-somewhere)"], row


def test_a_row_whose_meta_name_is_its_file_name_says_it_once(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "loop-002-cd.jsonl").write_text(_trace({"expected": "loop", "name": "loop-002-cd"}, 8), "utf-8")
    assert main([str(tmp_path), "--mode", "default"]) == 0
    (row,) = [line for line in capsys.readouterr().out.splitlines() if "loop-002" in line]
    assert row.count("loop-002-cd") == 1, row
