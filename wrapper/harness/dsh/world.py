"""An offline world for dsh: the mock model, a private DSH_HOME with a `dev` profile, a workspace."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from wrapper.harness.dsh.profiles import mock_env, write_dev_profile
from wrapper.mock.scenarios import SCENARIO_ENV
from wrapper.mock.server import MockModel
from wrapper.mock.world import World


def make_world(scenario: str, root: Path | None = None, idle_ms: int = 20000) -> World:
    """Start the mock model on 127.0.0.1 and lay out DSH_HOME and a workspace under `root`."""
    own = root is None
    base = Path(tempfile.mkdtemp(prefix="breaker-demo-")) if root is None else root
    home = base / "dsh-home"
    ws = base / "workspace"
    ws.mkdir(parents=True, exist_ok=True)
    (ws / "notes.txt").write_text("The release is on Friday. Tests must pass first.\n")
    mock = MockModel(scenario, log_path=base / "model-requests.jsonl").start()
    write_dev_profile(home, "dev", mock=True, idle_ms=idle_ms)
    env = {**os.environ, **mock_env(home, mock.base_url), **SCENARIO_ENV.get(scenario, {})}
    return World(mock, base, home, ws, env, own)
