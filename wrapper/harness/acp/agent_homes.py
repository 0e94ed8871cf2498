"""Private homes for the agents added after the first four: what points each at a model endpoint.

`presets.mock_env` lays out the first four agents itself; each agent added later brings its own function
here, named by its `Preset.mock_setup`, so adding an agent never edits another agent's branch. A function
gets the endpoint's base URL (`http://127.0.0.1:PORT`, no `/v1`), the agent's private home (HOME points
there) and the model name, writes the agent's settings files under the home, and returns the environment
variables to add. Nothing here is used outside the demo and the tests: a person's own agent keeps its own
login and settings.
"""

from __future__ import annotations

import json
from pathlib import Path


def qwen_home(base_url: str, home: Path, model: str) -> dict[str, str]:
    """Qwen Code: an OpenAI-compatible provider from the environment, no telemetry, no update check.

    `security.auth.selectedType = "openai"` makes it use `OPENAI_*` without its sign-in screen.
    """
    qdir = home / ".qwen"
    qdir.mkdir(parents=True, exist_ok=True)
    settings = {
        "security": {"auth": {"selectedType": "openai"}},
        "privacy": {"usageStatisticsEnabled": False},
        "telemetry": {"enabled": False},
        "general": {"disableAutoUpdate": True},
    }
    (qdir / "settings.json").write_text(json.dumps(settings))
    return {"OPENAI_BASE_URL": f"{base_url}/v1", "OPENAI_API_KEY": "mock-key", "OPENAI_MODEL": model}
