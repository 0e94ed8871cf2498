"""An offline world for an ACP agent: the mock model, a private home for the agent, a workspace."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from wrapper.harness.acp.presets import PRESETS, mock_env
from wrapper.mock.server import MockModel
from wrapper.mock.world import World


def make_acp_world(agent: str, scenario: str, root: Path | None = None, defaults: bool = False) -> World:
    """Start the mock model and point `agent` (a preset name) at it, with its state under `root`.

    The home holds settings that ask before commands and edits (a careful person's, for the tests), or with
    `defaults` the agent's own defaults (`Preset.demo_defaults`, for the demo).
    """
    preset = PRESETS[agent]
    own = root is None
    base = Path(tempfile.mkdtemp(prefix=f"breaker-{agent}-")) if root is None else root
    home = base / "agent-home"
    ws = base / "workspace"
    ws.mkdir(parents=True, exist_ok=True)
    (ws / "notes.txt").write_text("The release is on Friday. Tests must pass first.\n")
    mock = MockModel(scenario, log_path=base / "model-requests.jsonl")
    mock.workspace = str(ws)
    mock.start()
    env = {**os.environ, **mock_env(preset, mock.base_url, home)}
    if defaults and preset.demo_defaults is not None:
        preset.demo_defaults(home)
    return World(mock, base, home, ws, env, own)
