"""The engine passes every shared conformance vector, through the runner users run."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from engine.seed import conformance
from tests.conftest import ROOT, SHARED

VECTORS = SHARED / "conformance"


@pytest.mark.slow
@pytest.mark.skipif(not VECTORS.is_dir(), reason="../shared/conformance is not beside the checkout")
def test_every_vector_file_passes() -> None:
    files = sorted(VECTORS.glob("*.jsonl"))
    assert len(files) >= 11
    for f in files:
        passed, failures = conformance.run_file(f)
        assert passed > 0, f.name
        assert not failures, f"{f.name}: {failures[:2]}"


@pytest.mark.skipif(not VECTORS.is_dir(), reason="../shared/conformance is not beside the checkout")
def test_runner_cli_reports_counts_and_exit_status(tmp_path: Path) -> None:
    # two files are enough for the command line; every vector passes above (and in `make test`'s run)
    good = tmp_path / "good"
    good.mkdir()
    for name in ("url_norm.jsonl", "local_host.jsonl"):
        shutil.copy(VECTORS / name, good / name)
    ok = subprocess.run(
        [sys.executable, "-m", "engine.seed.conformance", str(good)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert ok.returncode == 0, ok.stdout + ok.stderr
    assert "url_norm.jsonl" in ok.stdout and "all vectors pass" in ok.stdout
    # a broken vector makes the runner fail and show the mismatch
    rec = json.loads((VECTORS / "local_host.jsonl").read_text().splitlines()[0])
    rec["expect"] = not rec["expect"]
    (tmp_path / "broken").mkdir()
    (tmp_path / "broken" / "broken.jsonl").write_text(json.dumps(rec) + "\n")
    bad = subprocess.run(
        [sys.executable, "-m", "engine.seed.conformance", str(tmp_path / "broken")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert bad.returncode == 1
    assert rec["id"] in bad.stdout and "1 failed" in bad.stdout


def test_runner_rejects_an_empty_directory(tmp_path) -> None:  # type: ignore[no-untyped-def]
    assert conformance.main([str(tmp_path)]) == 2


def test_json_equality_is_strict_about_booleans() -> None:
    assert conformance.same({"a": [1, 2.0]}, {"a": [1.0, 2]})
    assert not conformance.same(True, 1)
    assert not conformance.same([1, 2], [2, 1])
