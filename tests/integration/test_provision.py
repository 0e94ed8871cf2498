"""dsh provisioning: idempotent when present, a clear error when the registry cannot be reached."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT
from wrapper.harness.dsh.provision import DSH_VERSION

pytestmark = pytest.mark.integration


def test_setup_dsh_is_idempotent_and_doctor_is_happy() -> None:
    p = subprocess.run(
        [sys.executable, "-m", "tui", "setup-dsh"], cwd=ROOT, capture_output=True, text=True, timeout=300
    )
    assert p.returncode == 0, p.stderr
    assert "already installed" in p.stdout and f"dsh {DSH_VERSION} works" in p.stdout
    d = subprocess.run([sys.executable, "-m", "tui", "doctor"], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert d.returncode == 0 and "MISSING" not in d.stdout


def test_unreachable_registry_gives_a_clear_error(tmp_path: Path) -> None:
    env = {
        "PATH": "/usr/bin:/bin",
        "HOME": str(tmp_path),
        "BREAKER_TUI_DATA_DIR": str(tmp_path / "data"),
        "npm_config_registry": "http://127.0.0.1:9/",
        "npm_config_fetch_retries": "0",
        "npm_config_cache": str(tmp_path / "npm-cache"),
        "PYTHONPATH": str(ROOT),
    }
    p = subprocess.run(
        [sys.executable, "-m", "tui", "setup-dsh"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=300
    )
    assert p.returncode == 3
    assert (
        "installing pnpm failed" in p.stderr
        and "The npm registry (http://127.0.0.1:9/) could not be reached" in p.stderr
    )
