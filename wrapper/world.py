"""An offline world for dsh: the mock model, a private DSH_HOME with a `dev` profile, a workspace."""

from __future__ import annotations

import os
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from wrapper.mockllm import MockModel
from wrapper.profiles import mock_env, write_dev_profile
from wrapper.scenarios import SCENARIO_ENV


@dataclass
class World:
    """Everything a demo or a test needs to run a real dsh against the mock model."""

    mock: MockModel
    root: Path
    home: Path
    workspace: Path
    env: dict[str, str] = field(default_factory=dict)
    own_root: bool = False

    def close(self) -> None:
        """Stop the mock and remove the temporary directory (when we made it)."""
        self.mock.stop()
        if self.own_root:
            shutil.rmtree(self.root, ignore_errors=True)


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
