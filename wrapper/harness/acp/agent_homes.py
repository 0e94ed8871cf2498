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


def _kilo_config(env: dict[str, str]) -> dict[str, object]:
    """The inline config in `KILO_CONFIG_CONTENT` (a broken or non-object one counts as empty)."""
    try:
        cfg = json.loads(env.get("KILO_CONFIG_CONTENT") or "{}")
    except ValueError:
        cfg = {}
    return cfg if isinstance(cfg, dict) else {}


def kilo_ask(env: dict[str, str]) -> dict[str, str]:
    """Kilo Code (an opencode fork): bash, edit and webfetch ask, as the opencode preset does.

    A `permission` the person set in `KILO_CONFIG_CONTENT` is kept; their own kilo.json still applies
    underneath, since the inline config only adds to it.
    """
    out = dict(env)
    cfg = _kilo_config(out)
    cfg.setdefault("permission", {"bash": "ask", "edit": "ask", "webfetch": "ask"})
    out["KILO_CONFIG_CONTENT"] = json.dumps(cfg)
    for k in ("KILO_DISABLE_AUTOUPDATE", "KILO_DISABLE_SHARE"):
        out.setdefault(k, "1")
    return out


def opencode_style_config(base_url: str, model: str) -> dict[str, object]:
    """The mock as an `@ai-sdk/openai-compatible` provider, in the config shape opencode and its fork Kilo share."""
    return {
        "provider": {
            "mock": {
                "npm": "@ai-sdk/openai-compatible",
                "name": "Mock",
                "options": {"baseURL": f"{base_url}/v1", "apiKey": "mock-key"},
                "models": {model: {"name": model, "reasoning": True, "tool_call": True}},
            }
        },
        "model": f"mock/{model}",
        "autoupdate": False,
        "share": "disabled",
    }


def kilo_home(base_url: str, home: Path, model: str) -> dict[str, str]:
    """Kilo Code: the mock as an `@ai-sdk/openai-compatible` provider (bundled), no model list fetch."""
    env = {"KILO_CONFIG_CONTENT": json.dumps(opencode_style_config(base_url, model))}
    for k in (
        "KILO_DISABLE_MODELS_FETCH",
        "KILO_DISABLE_AUTOUPDATE",
        "KILO_DISABLE_SHARE",
        "KILO_DISABLE_LSP_DOWNLOAD",
    ):
        env[k] = "1"
    return env
