"""An offline world: the mock model, a private home for the agent, and a workspace (each harness lays its own out)."""

from __future__ import annotations

import shutil
from dataclasses import dataclass, field
from pathlib import Path

from wrapper.mock.server import MockModel


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
