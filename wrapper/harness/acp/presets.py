"""What breaker-tui knows about each ACP agent: its package, its command line, how to make it ask.

A preset says what makes the agent speak ACP and ask before tool calls (so the monitor can refuse a
repeat before it runs), where `setup-agent` puts its pinned copy, and how to point the agent at a model
endpoint (used by the demo and the tests with the mock model). Which copy runs is `resolve.py`'s.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from wrapper.harness.acp.agent_homes import kilo_ask, kilo_home, opencode_style_config, qwen_home
from wrapper.paths import data_dir

MockSetup = Callable[[str, Path, str], dict[str, str]]  # (base URL, private home, model) -> env to add
AskSetup = Callable[[dict[str, str]], dict[str, str]]  # the agent's env -> the env that makes it ask


@dataclass(frozen=True)
class Preset:
    """One known ACP agent."""

    name: str
    package: str
    version: str
    size_mb: int  # measured install size
    bin: str  # path of the launcher inside the install directory
    args: tuple[str, ...]  # after the launcher: what makes it speak ACP on stdio
    node_script: bool  # run the launcher with the bundled node (no usable shebang)
    mode: str | None  # `session/set_mode` sent after `session/new` (how Claude is made to ask)
    asks: str  # how it is made to ask before tool calls (for `agents` and the README)
    cannot: str  # what the monitor cannot do with it, and why
    aliases: tuple[str, ...] = field(default_factory=tuple)
    ask_args: tuple[str, ...] = ()  # added to the command line when `[acp] make_ask` is on
    # Agents added after the first four say here what the first four's branches in `mock_env` say in code:
    mock_setup: MockSetup | None = None  # points the agent at a model endpoint (agent_homes.py)
    ask_setup: AskSetup | None = None  # what `ask_env` adds to make it ask (agent_homes.py)
    drops_cancelled_prompt: bool = False  # a cancelled turn's prompt leaves its history: a follow-up quotes it

    def install_dir(self) -> Path:
        """Where `setup-agent` installs it."""
        return data_dir() / "agents" / self.name

    def launcher(self) -> Path:
        """The installed launcher."""
        return self.install_dir() / self.bin


PRESETS: dict[str, Preset] = {
    p.name: p
    for p in (
        Preset(
            "opencode",
            "opencode-ai",
            "1.18.33",
            354,
            "node_modules/.bin/opencode",
            ("acp",),
            False,
            None,
            '`permission` in OPENCODE_CONFIG_CONTENT: bash, edit and webfetch "ask", answered with your own'
            ' `permission` (only your "ask" reaches you); reads run unasked',
            "reads never ask: a loop of them is stopped by cancelling the turn (one follow-up tells the model why)",
        ),
        Preset(
            "claude",
            "@agentclientprotocol/claude-agent-acp",
            "0.101.0",
            402,
            "node_modules/@agentclientprotocol/claude-agent-acp/dist/index.js",
            (),
            True,
            "default",
            "`session/set_mode default` after `session/new` (Bash asks unless read-only, Write/Edit ask, Read never),"
            " answered with your own permission mode and rules",
            "read-only Bash commands and Read never ask: a loop of them is stopped by cancelling the turn",
            ("claude-code", "claude-agent-acp"),
        ),
        Preset(
            "codex",
            "@zed-industries/codex-acp",
            "0.16.0",
            223,
            "node_modules/.bin/codex-acp",
            (),
            False,
            None,
            '`-c approval_policy="untrusted"` on its command line (its sandbox setting stays yours), answered with'
            " your own approval_policy",
            "commands on its safe list run unasked (judged after they ran)",
            ask_args=("-c", 'approval_policy="untrusted"'),
        ),
        Preset(
            "gemini",
            "@google/gemini-cli",
            "0.61.0",
            100,
            "node_modules/.bin/gemini",
            ("--acp",),
            False,
            "default",
            "`session/set_mode default` after `session/new` (shell that is not read-only, write_file and web_fetch"
            " ask; read_file never), answered with your own approval mode (`--approval-mode`, `--yolo`,"
            " `general.defaultApprovalMode`)",
            "its permission requests carry only a title (the command text), so fingerprints use that text; its"
            " shell output reaches ACP only with `tools.shell.enableInteractiveShell: false` in your settings",
            drops_cancelled_prompt=True,
        ),
        Preset(
            "qwen",
            "@qwen-code/qwen-code",
            "0.24.4",
            152,
            "node_modules/.bin/qwen",
            ("--acp",),
            False,
            "default",
            "`session/set_mode default` after `session/new` (it starts in `auto`, where a model classifier "
            "approves calls unasked): shell commands and edits ask, reads never",
            "read_file, grep and glob never ask (a loop of them is stopped by cancelling the turn, after it ran); "
            "after a refusal it ends the turn, so the model does not read the denial in that turn",
            ("qwen-code",),
            mock_setup=qwen_home,
        ),
        Preset(
            "kilo",
            "@kilocode/cli",
            "7.7.7",
            292,
            "node_modules/.bin/kilo",
            ("acp",),
            False,
            None,
            '`permission` in KILO_CONFIG_CONTENT: bash, edit and webfetch "ask" (as for opencode); reads run unasked',
            "reads run unasked (stopped by cancelling the turn); after a refusal it ends the turn, as opencode does",
            ("kilocode",),
            mock_setup=kilo_home,
            ask_setup=kilo_ask,
        ),
    )
}


def installed(p: Preset) -> bool:
    """Whether `setup-agent` installed this agent."""
    return p.launcher().exists()


def ask_env(p: Preset, env: dict[str, str]) -> dict[str, str]:
    """The agent's environment with what makes it ask before tool calls."""
    out = dict(env)
    if p.name == "opencode":
        try:
            cfg = json.loads(out.get("OPENCODE_CONFIG_CONTENT") or "{}")
        except ValueError:
            cfg = {}
        if not isinstance(cfg, dict):
            cfg = {}
        # always ask (the person's own `permission` was read first, `own.py`, and answers these asks)
        cfg["permission"] = {"bash": "ask", "edit": "ask", "webfetch": "ask"}
        out["OPENCODE_CONFIG_CONTENT"] = json.dumps(cfg)
        for k in ("OPENCODE_DISABLE_AUTOUPDATE", "OPENCODE_DISABLE_SHARE"):
            out.setdefault(k, "1")
    elif p.name == "claude":
        for k in ("DISABLE_AUTOUPDATER", "DISABLE_TELEMETRY"):
            out.setdefault(k, "1")
    if p.ask_setup is not None:
        out = p.ask_setup(out)
    return out


def mock_env(p: Preset, base_url: str, home: Path, model: str = "mock-model") -> dict[str, str]:
    """Environment that points the agent at the mock model at `base_url`, with private state under `home`."""
    home.mkdir(parents=True, exist_ok=True)
    env: dict[str, str] = {"HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config")}
    env["XDG_DATA_HOME"] = str(home / ".local/share")
    env["XDG_STATE_HOME"] = str(home / ".local/state")
    env["XDG_CACHE_HOME"] = str(home / ".cache")
    if p.name == "opencode":
        cfg = {"$schema": "https://opencode.ai/config.json", **opencode_style_config(base_url, model)}
        env["OPENCODE_CONFIG_CONTENT"] = json.dumps(cfg)
        # the offline person's own settings: ask before commands, edits and fetches (a test may rewrite them)
        own = home / ".config" / "opencode"
        own.mkdir(parents=True, exist_ok=True)
        (own / "opencode.json").write_text(
            json.dumps({"permission": {"bash": "ask", "edit": "ask", "webfetch": "ask"}})
        )
        for k in (
            "OPENCODE_DISABLE_MODELS_FETCH",
            "OPENCODE_DISABLE_AUTOUPDATE",
            "OPENCODE_DISABLE_SHARE",
            "OPENCODE_DISABLE_LSP_DOWNLOAD",
        ):
            env[k] = "1"
    elif p.name == "claude":
        cdir = home / ".claude"
        cdir.mkdir(parents=True, exist_ok=True)
        # the offline person's own settings: Claude Code's default mode, which asks before commands and edits
        settings = {"skipWebFetchPreflight": True, "permissions": {"defaultMode": "default"}}
        (cdir / "settings.json").write_text(json.dumps(settings))
        env.update(
            {
                "ANTHROPIC_BASE_URL": base_url,
                "ANTHROPIC_API_KEY": "mock-key",
                "ANTHROPIC_MODEL": model,
                "CLAUDE_CONFIG_DIR": str(cdir),
                "DISABLE_TELEMETRY": "1",
                "DISABLE_ERROR_REPORTING": "1",
                "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
                "DISABLE_AUTOUPDATER": "1",
            }
        )
        if os.geteuid() == 0:
            env["IS_SANDBOX"] = "1"  # Claude Code refuses to start as root otherwise
    elif p.name == "codex":
        cdir = home / ".codex"
        cdir.mkdir(parents=True, exist_ok=True)
        (cdir / "config.toml").write_text(
            f'model = "{model}"\nmodel_provider = "mock"\napproval_policy = "untrusted"\n'
            'sandbox_mode = "danger-full-access"\ncheck_for_update_on_startup = false\n\n'
            f'[model_providers.mock]\nname = "mock"\nbase_url = "{base_url}/v1"\nenv_key = "MOCK_API_KEY"\n'
            'wire_api = "responses"\n\n[analytics]\nenabled = false\n'
        )
        env.update({"CODEX_HOME": str(cdir), "MOCK_API_KEY": "mock-key"})
    elif p.name == "gemini":
        gdir = home / ".gemini"
        gdir.mkdir(parents=True, exist_ok=True)
        settings = {
            "privacy": {"usageStatisticsEnabled": False},
            "telemetry": {"enabled": False},
            "general": {"disableAutoUpdate": True},
            "security": {"auth": {"selectedType": "gemini-api-key"}},
        }
        (gdir / "settings.json").write_text(json.dumps(settings))
        env.update({"GOOGLE_GEMINI_BASE_URL": base_url, "GEMINI_API_KEY": "mock-key"})
    if p.mock_setup is not None:
        env.update(p.mock_setup(base_url, home, model))
    return env
