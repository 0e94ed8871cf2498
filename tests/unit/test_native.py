"""The compiled engine is used only when built from the current sources; plain Python is always a fallback."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from engine.nativebuild import is_current
from tests.conftest import ROOT

PROBE = "import engine, engine.shell, engine.breaker; print(engine.BUILD); print(engine.shell.__file__)"


def probe(cwd: Path, **env: str) -> tuple[str, str]:
    base = {k: v for k, v in os.environ.items() if k != "BREAKER_TUI_PURE"}
    out = subprocess.run(
        [sys.executable, "-c", PROBE], cwd=cwd, env={**base, **env}, capture_output=True, text=True, timeout=60
    )
    assert out.returncode == 0, out.stderr
    build, path = out.stdout.strip().splitlines()
    return build, path


needs_build = pytest.mark.skipif(not is_current(), reason="no current compiled build (`make setup` builds it)")


def test_pure_switch_runs_the_python_sources() -> None:
    build, path = probe(ROOT, BREAKER_TUI_PURE="1")
    assert build.startswith("python (BREAKER_TUI_PURE")
    assert path.endswith("engine/shell.py")


@needs_build
def test_a_current_build_is_used() -> None:
    build, path = probe(ROOT)
    assert build == "compiled (mypyc)"
    assert path.endswith(".so") and "breaker-native" in path


@needs_build
def test_a_build_from_other_sources_is_never_loaded(tmp_path: Path) -> None:
    shutil.copytree(ROOT / "engine", tmp_path / "engine", ignore=shutil.ignore_patterns("__pycache__"))
    src = tmp_path / "engine" / "shell.py"
    src.write_text(src.read_text() + "\n# edited after the build\n")
    build, path = probe(tmp_path)
    assert "stale" in build and "nativebuild" in build
    assert path == str(src)


@needs_build
def test_an_incomplete_build_is_never_loaded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from engine import native

    shutil.copytree(native.native_dir(), tmp_path / "native")
    next((tmp_path / "native" / "engine").glob("shell.*")).unlink()
    monkeypatch.setattr(native, "native_dir", lambda: tmp_path / "native")
    monkeypatch.delenv("BREAKER_TUI_PURE", raising=False)
    path: list[str] = []
    assert native.activate(path).startswith("python (the compiled build lacks shell")
    assert path == []
