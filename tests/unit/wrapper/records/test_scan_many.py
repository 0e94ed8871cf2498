"""`scan DIR...`: many files judged in parallel worker processes, one summary row each, one exit status."""

from __future__ import annotations

import io
import json
import multiprocessing
import shutil
from pathlib import Path

import pytest

from tests.conftest import ROOT
from tui.cli import main
from wrapper.records.parallel import Progress, run_all

HAND = ROOT / "tests" / "unit" / "data" / "formats"
REAL = ROOT / "tests" / "data" / "real"


@pytest.fixture
def run_dir(tmp_path: Path) -> Path:
    """A benchmark run as a team has it: sessions of several formats, a loop among them, and other files."""
    d = tmp_path / "run"
    (d / "a").mkdir(parents=True)
    shutil.copy(HAND / "mini-text-retry.traj.json", d / "a" / "retry.traj.json")  # a loop
    shutil.copy(REAL / "formats" / "codex.rollout.crud.jsonl", d / "rollout-1.jsonl")
    shutil.copy(REAL / "real-000-msa-ds-chat_dev-pydicom__pydicom-1694.jsonl", d / "a" / "trace.jsonl")
    (d / "config.json").write_text('{\n  "model": "gpt"\n}\n')  # not a session: skipped
    (d / "notes.txt").write_text("not even looked at")
    return d


def test_a_directory_is_a_table_and_a_loop_exits_1(run_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["scan", str(run_dir)]) == 1
    out = capsys.readouterr().out.splitlines()
    assert out[0].split() == ["file", "format", "calls", "denied", "trips", "verdict"]
    rows = {ln.split()[0].rsplit("/", 1)[-1]: ln.split() for ln in out[1:-1]}
    assert rows["retry.traj.json"][1:6] == ["mini-swe-agent", "8", "3", "0", "loop"]
    assert rows["trace.jsonl"][1] == "trace" and rows["trace.jsonl"][5] == "clean"
    assert rows["rollout-1.jsonl"][1:3] == ["codex", "4"]
    assert "config.json" not in rows
    assert out[-1] == "3 file(s): 1 loop, 0 steered, 2 clean, 0 unreadable, 1 skipped (not a session)"


def test_json_is_one_object_per_file_and_a_summary(run_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["scan", str(run_dir), "--json"]) == 1
    objs = [json.loads(ln) for ln in capsys.readouterr().out.splitlines()]
    files, summary = objs[:-1], objs[-1]
    assert [o["kind"] for o in files] == ["file"] * 3
    assert [Path(o["file"]).name for o in files] == [
        "retry.traj.json",
        "trace.jsonl",
        "rollout-1.jsonl",
    ]  # sorted paths
    loop = files[0]
    assert (loop["verdict"], loop["denied"], loop["steers"]) == ("loop", 3, 2) and loop["first"].startswith(
        "failure (line"
    )
    assert summary == {
        "kind": "summary",
        "files": 4,
        "loop": 1,
        "steered": 0,
        "clean": 2,
        "unreadable": 0,
        "skipped": 1,
        "calls": 72,
    }


def test_an_unreadable_file_exits_2_and_is_named(run_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = run_dir / "broken.jsonl"
    bad.write_text('{"t": "user", "text": "hi"}\n{"t": "call"}\n')
    clean = REAL / "real-001-msa-ds-chat_dev-pvlib__pvlib-python-1606.jsonl"
    assert main(["scan", str(clean), str(bad)]) == 2  # several files: the table, and the bad one on stderr
    cap = capsys.readouterr()
    assert f"{bad}:2: a `call` needs `tool`" in cap.err and "Traceback" not in cap.err
    assert "unreadable" in cap.out and "1 file(s)" not in cap.out
    named = run_dir / "config.json"  # named on the command line, a file must be a session
    assert main(["scan", str(named), str(clean)]) == 2
    assert "no format scan knows" in capsys.readouterr().err


def test_results_come_back_in_order_and_no_worker_is_left(tmp_path: Path) -> None:
    # a builtin: the workers can import it however the test module was imported (the compiled run uses
    # pytest's importlib mode, where a function of this module cannot be pickled by reference)
    items = [-5, 1, -4, 2, -3, 0]
    assert run_all(abs, items, "x", workers=2) == [5, 1, 4, 2, 3, 0]
    assert multiprocessing.active_children() == []


class _Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_the_progress_line_is_drawn_only_on_a_terminal() -> None:
    tty, pipe = _Tty(), io.StringIO()
    for stream in (tty, pipe):
        p = Progress("scanning", 2, stream)
        p.step()
        p.step()
        p.close()
    assert "\rscanning 1/2" in tty.getvalue() and "\rscanning 2/2" in tty.getvalue()
    assert tty.getvalue().endswith("\r\x1b[K")
    assert pipe.getvalue() == ""


@pytest.mark.slow  # the red-team corpus evaluated twice, once in worker processes
def test_eval_runs_its_files_in_parallel_with_the_same_answer(tmp_path: Path) -> None:
    from wrapper.records.evaluate import evaluate

    redteam = ROOT / "tests" / "data" / "redteam"
    alone = {m: [c.to_dict() for c in r.cases] for m, r in evaluate(redteam, workers=1).items()}
    pooled = {m: [c.to_dict() for c in r.cases] for m, r in evaluate(redteam, workers=2).items()}
    assert pooled == alone and len(pooled["default"]) == 69
    assert multiprocessing.active_children() == []
    bad = tmp_path / "labelled"
    bad.mkdir()
    (bad / "a.jsonl").write_text('{"t": "meta", "expected": "loop"}\n{"t": "call"}\n')
    (bad / "b.jsonl").write_text('{"t": "meta", "expected": "no_loop"}\n')
    with pytest.raises(ValueError, match=r"a\.jsonl: line 2: a `call` needs `tool`"):
        evaluate(bad, workers=2)


def test_long_names_in_one_folder_stay_told_apart(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Names longer than the room a row has are cut in the middle: files of one folder differ at their start
    (`work-000-…`, `work-002-…`) or at their end (`…-run-1`, `…-run-2`), and both stay.
    """
    tail = "-cosmetic-edits-then-the-same-test-fails-the-same-way-5-rounds-and-again"
    names = [f"work-00{i}{tail}.jsonl" for i in range(3)] + [f"work-run{tail}-{i}.jsonl" for i in range(3)]
    for n in names:
        shutil.copy(REAL / "real-000-msa-ds-chat_dev-pydicom__pydicom-1694.jsonl", tmp_path / n)
    monkeypatch.setenv("COLUMNS", "100")
    assert main(["scan", str(tmp_path)]) == 0
    shown = [ln.split()[0] for ln in capsys.readouterr().out.splitlines()[1:-1]]
    assert len(shown) == 6 and len(set(shown)) == 6, shown
    assert all(len(s) <= 100 - 46 for s in shown) and any("…" in s for s in shown)
    assert all(s.endswith(".jsonl") for s in shown), "the end is kept"
