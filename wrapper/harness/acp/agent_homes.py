"""Each agent's private home and ask settings: what points it at a model endpoint and what makes it ask.

A `Preset` names its functions here (`mock_setup`, `ask_setup`), so adding an agent adds functions and
never edits another agent's. A home function gets the endpoint's base URL (`http://127.0.0.1:PORT`, no
`/v1`), the agent's private home (HOME points there) and the model name, writes the agent's settings files
under the home, and returns the environment variables to add; the homes are used only by the demo and the
tests (a person's own agent keeps its own login and settings). An ask function gets the agent's
environment and returns it with what makes the agent ask before tool calls.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

_ASK = {"bash": "ask", "edit": "ask", "webfetch": "ask"}  # opencode's and Kilo's `permission` that asks


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

    A `permission` the person set in `KILO_CONFIG_CONTENT` is replaced there (it would let a repeat run
    unasked), after `own.kilo_settings` has read it: it answers these asks as Kilo would have. The rest of
    the inline config is kept, and their own kilo.json applies underneath.
    """
    out = dict(env)
    cfg = _kilo_config(out)
    cfg["permission"] = dict(_ASK)
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
    """Kilo Code: the mock as an `@ai-sdk/openai-compatible` provider (bundled), no model list fetch, and the
    offline person's own settings asking before commands, edits and fetches (as opencode's home has them).
    """
    env = {"KILO_CONFIG_CONTENT": json.dumps(opencode_style_config(base_url, model))}
    own = home / ".config" / "kilo"
    own.mkdir(parents=True, exist_ok=True)
    (own / "kilo.json").write_text(json.dumps({"permission": _ASK}))
    for k in (
        "KILO_DISABLE_MODELS_FETCH",
        "KILO_DISABLE_AUTOUPDATE",
        "KILO_DISABLE_SHARE",
        "KILO_DISABLE_LSP_DOWNLOAD",
    ):
        env[k] = "1"
    return env


def opencode_ask(env: dict[str, str]) -> dict[str, str]:
    """opencode: bash, edit and webfetch always ask (the person's own `permission`, read first by
    `own.py`, answers these asks).
    """
    out = dict(env)
    try:
        cfg = json.loads(out.get("OPENCODE_CONFIG_CONTENT") or "{}")
    except ValueError:
        cfg = {}
    if not isinstance(cfg, dict):
        cfg = {}
    cfg["permission"] = dict(_ASK)
    out["OPENCODE_CONFIG_CONTENT"] = json.dumps(cfg)
    for k in ("OPENCODE_DISABLE_AUTOUPDATE", "OPENCODE_DISABLE_SHARE"):
        out.setdefault(k, "1")
    return out


def claude_ask(env: dict[str, str]) -> dict[str, str]:
    """Claude Code asks through its mode (`Preset.mode`): here only no update check and no telemetry."""
    out = dict(env)
    for k in ("DISABLE_AUTOUPDATER", "DISABLE_TELEMETRY"):
        out.setdefault(k, "1")
    return out


def opencode_home(base_url: str, home: Path, model: str) -> dict[str, str]:
    """opencode: the mock as a provider inline, and the offline person's own settings asking before commands,
    edits and fetches (a test may rewrite them).
    """
    cfg = {"$schema": "https://opencode.ai/config.json", **opencode_style_config(base_url, model)}
    env = {"OPENCODE_CONFIG_CONTENT": json.dumps(cfg)}
    own = home / ".config" / "opencode"
    own.mkdir(parents=True, exist_ok=True)
    (own / "opencode.json").write_text(json.dumps({"permission": _ASK}))
    for k in (
        "OPENCODE_DISABLE_MODELS_FETCH",
        "OPENCODE_DISABLE_AUTOUPDATE",
        "OPENCODE_DISABLE_SHARE",
        "OPENCODE_DISABLE_LSP_DOWNLOAD",
    ):
        env[k] = "1"
    return env


def claude_home(base_url: str, home: Path, model: str) -> dict[str, str]:
    """Claude Code: the offline person's own settings in its default mode, which asks before commands and edits."""
    cdir = home / ".claude"
    cdir.mkdir(parents=True, exist_ok=True)
    settings = {"skipWebFetchPreflight": True, "permissions": {"defaultMode": "default"}}
    (cdir / "settings.json").write_text(json.dumps(settings))
    env = {
        "ANTHROPIC_BASE_URL": base_url,
        "ANTHROPIC_API_KEY": "mock-key",
        "ANTHROPIC_MODEL": model,
        "CLAUDE_CONFIG_DIR": str(cdir),
        "DISABLE_TELEMETRY": "1",
        "DISABLE_ERROR_REPORTING": "1",
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        "DISABLE_AUTOUPDATER": "1",
    }
    if os.geteuid() == 0:
        env["IS_SANDBOX"] = "1"  # Claude Code refuses to start as root otherwise
    return env


def codex_home(base_url: str, home: Path, model: str) -> dict[str, str]:
    """Codex: a `responses` provider for the mock in `$CODEX_HOME/config.toml`, asking (`untrusted`)."""
    cdir = home / ".codex"
    cdir.mkdir(parents=True, exist_ok=True)
    (cdir / "config.toml").write_text(
        f'model = "{model}"\nmodel_provider = "mock"\napproval_policy = "untrusted"\n'
        'sandbox_mode = "danger-full-access"\ncheck_for_update_on_startup = false\n\n'
        f'[model_providers.mock]\nname = "mock"\nbase_url = "{base_url}/v1"\nenv_key = "MOCK_API_KEY"\n'
        'wire_api = "responses"\n\n[analytics]\nenabled = false\n'
    )
    return {"CODEX_HOME": str(cdir), "MOCK_API_KEY": "mock-key"}


def gemini_home(base_url: str, home: Path, model: str) -> dict[str, str]:
    """Gemini CLI: an API key sign-in against the mock's base URL, no statistics, telemetry or update check."""
    gdir = home / ".gemini"
    gdir.mkdir(parents=True, exist_ok=True)
    settings = {
        "privacy": {"usageStatisticsEnabled": False},
        "telemetry": {"enabled": False},
        "general": {"disableAutoUpdate": True},
        "security": {"auth": {"selectedType": "gemini-api-key"}},
    }
    (gdir / "settings.json").write_text(json.dumps(settings))
    return {"GOOGLE_GEMINI_BASE_URL": base_url, "GEMINI_API_KEY": "mock-key"}


# A demo's home holds the agent's own defaults, not the asking settings above (which the tests use to
# stand for a careful person): breaker-tui still makes the agent ask, so that it can refuse a repeat before
# it runs, and the person's settings, here the agent's defaults, answer those asks "allow". Only the
# breaker's own asks then reach the person, as a person's own agent would run.


def opencode_defaults(home: Path) -> None:
    """opencode's own settings without a `permission`: its default runs tools without asking."""
    (home / ".config" / "opencode" / "opencode.json").write_text("{}")


def claude_defaults(home: Path) -> None:
    """Claude Code's settings without a permission mode: the adapter's default does not ask."""
    f = home / ".claude" / "settings.json"
    settings = json.loads(f.read_text())
    settings.pop("permissions", None)
    f.write_text(json.dumps(settings))


def gemini_defaults(home: Path) -> None:
    """Gemini CLI's settings with its shell on pipes, so its commands' output reaches ACP and the rules that
    read results; its approval mode stays its default, which asks (so the person answers its asks).
    """
    f = home / ".gemini" / "settings.json"
    settings = json.loads(f.read_text())
    settings.setdefault("tools", {})["shell"] = {"enableInteractiveShell": False}
    f.write_text(json.dumps(settings))


def codex_defaults(home: Path) -> None:
    """Codex's config with its default approval policy (`on-request`: it runs what its sandbox allows)."""
    f = home / ".codex" / "config.toml"
    f.write_text(f.read_text().replace('approval_policy = "untrusted"', 'approval_policy = "on-request"'))


def kilo_defaults(home: Path) -> None:
    """Kilo's settings for an unattended demo: its shell runs without asking (`permission.bash = "allow"`).

    Kilo's own default asks before every shell command not on its read-only list (a `curl` asks), which a
    person who wants Kilo to work alone turns off this way; edits and fetches are Kilo's default, allowed.
    """
    (home / ".config" / "kilo" / "kilo.json").write_text(json.dumps({"permission": {"bash": "allow"}}))


def qwen_defaults(home: Path) -> None:
    """Qwen Code's settings for an unattended demo: `tools.approvalMode = "yolo"`.

    Qwen's default mode, `auto`, has a model classifier approve or refuse each call; breaker-tui cannot
    repeat it, so under it every ask of Qwen's would reach the person. `yolo` is what Qwen itself runs
    unattended with (`qwen review` starts its child so); breaker-tui still sets its session to `default`,
    so Qwen still asks and the repeat check still runs before each call.
    """
    f = home / ".qwen" / "settings.json"
    settings = json.loads(f.read_text())
    settings.setdefault("tools", {})["approvalMode"] = "yolo"
    f.write_text(json.dumps(settings))
