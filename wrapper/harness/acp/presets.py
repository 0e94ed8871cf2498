"""Every ACP agent breaker-tui knows, each one declaration: adding an agent is one `Preset` in `PRESETS`.

A preset says what makes the agent speak ACP and ask before tool calls (so the monitor can refuse a
repeat before it runs), where `setup-agent` puts its pinned copy, the names it is typed and found under,
its modes that never ask, how the person's own settings answer its asks, and how to point it at a model
endpoint (the demo and the tests, with the mock model). Everything else is derived from it: which copy
runs (`resolve.py`), `setup-agent` and `doctor` (`install.py`), `breaker-tui agents`, the Makefile's
`agents` target (`setup-agent --all`), the mode warnings (`shown.py`) and the docs' agents page.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from wrapper.harness.acp.agent_homes import (
    claude_ask,
    claude_defaults,
    claude_home,
    codex_defaults,
    codex_home,
    gemini_defaults,
    gemini_home,
    kilo_ask,
    kilo_defaults,
    kilo_home,
    opencode_ask,
    opencode_defaults,
    opencode_home,
    qwen_defaults,
    qwen_home,
)
from wrapper.harness.acp.own import (
    OwnReader,
    OwnSettings,
    claude_settings,
    codex_settings,
    gemini_settings,
    kilo_settings,
    opencode_settings,
    qwen_settings,
)
from wrapper.mock.codex_models import add_model_catalog
from wrapper.paths import data_dir

MockSetup = Callable[[str, Path, str], dict[str, str]]  # (base URL, private home, model) -> env to add
AskSetup = Callable[[dict[str, str]], dict[str, str]]  # the agent's env -> the env that makes it ask


@dataclass(frozen=True, kw_only=True)
class Preset:
    """One known ACP agent: every fact breaker-tui needs about it."""

    name: str
    package: str  # the npm package `setup-agent` installs
    version: str  # pinned
    size_mb: int  # measured install size
    bin: str  # path of the launcher inside the install directory
    asks: str  # how it is made to ask before tool calls (for `agents` and the docs)
    cannot: str  # what the monitor cannot do with it, and why
    args: tuple[str, ...] = ()  # after the launcher: what makes it speak ACP on stdio
    acp_flags: tuple[str, ...] = ()  # other arguments a person may write that already mean "speak ACP"
    node_script: bool = False  # run the launcher with the bundled node (no usable shebang)
    on_path: tuple[str, ...] = ()  # the executables its ACP server is found under on PATH (default: its name)
    aliases: tuple[str, ...] = ()  # other names a person may type for it
    mode: str | None = None  # `session/set_mode` sent after `session/new` (how Claude is made to ask)
    silent_modes: tuple[str, ...] = ()  # its modes in which calls that ask under `mode` run unasked
    ask_args: tuple[str, ...] = ()  # added to the command line when `[acp] make_ask` is on
    ask_setup: AskSetup | None = None  # what makes it ask, in its environment (agent_homes.py)
    own: OwnReader | None = None  # reads the person's own settings that answer its asks (own.py)
    mock_setup: MockSetup | None = None  # points it at a model endpoint, in a private home (agent_homes.py)
    # a demo's private home given the agent's own default settings, which answer its asks as a person's own
    # agent would, and what makes it show its work over ACP (agent_homes.py); None: the mock home as it is
    demo_defaults: Callable[[Path], None] | None = None
    drops_cancelled_prompt: bool = False  # a cancelled turn's prompt leaves its history: a follow-up quotes it

    @property
    def path_names(self) -> tuple[str, ...]:
        """The executables looked up on the person's PATH, the preset's own launcher first."""
        return self.on_path or (self.name,)

    @property
    def typed(self) -> tuple[str, ...]:
        """Every name (basename of argv[0]) that means this agent."""
        return tuple(dict.fromkeys((self.name, *self.aliases, *self.path_names)))

    @property
    def acp_spellings(self) -> tuple[str, ...]:
        """Arguments that already say "speak ACP" (the person's own spelling wins over `args`)."""
        return (*self.args, *self.acp_flags)

    def install_dir(self) -> Path:
        """Where `setup-agent` installs it."""
        return data_dir() / "agents" / self.name

    def launcher(self) -> Path:
        """The installed launcher."""
        return self.install_dir() / self.bin


def codex_mock_home(base_url: str, home: Path, model: str) -> dict[str, str]:
    """Codex's mock home with the mock model in its model catalog (see `wrapper.mock.codex_models`)."""
    env = codex_home(base_url, home, model)
    add_model_catalog(Path(env["CODEX_HOME"]), model)
    return env


PRESETS: dict[str, Preset] = {
    p.name: p
    for p in (
        Preset(
            name="opencode",
            package="opencode-ai",
            version="1.18.33",
            size_mb=354,
            bin="node_modules/.bin/opencode",
            args=("acp",),
            asks='`permission` in OPENCODE_CONFIG_CONTENT: bash, edit and webfetch "ask", answered with your own'
            ' `permission` (only your "ask" reaches you); reads run unasked',
            cannot="reads never ask: a loop of them is stopped by cancelling the turn (one follow-up tells the model"
            " why)",
            ask_setup=opencode_ask,
            own=lambda env, cwd, argv: opencode_settings(env, cwd),
            mock_setup=opencode_home,
            demo_defaults=opencode_defaults,
        ),
        Preset(
            name="claude",
            package="@agentclientprotocol/claude-agent-acp",
            version="0.101.0",
            size_mb=402,
            bin="node_modules/@agentclientprotocol/claude-agent-acp/dist/index.js",
            node_script=True,
            on_path=("claude-agent-acp", "claude-code-acp"),  # `claude` is its terminal UI, never an ACP server
            aliases=("claude-code", "claude-agent-acp"),
            mode="default",
            silent_modes=("acceptEdits", "auto", "bypassPermissions", "dontAsk"),
            asks="`session/set_mode default` after `session/new` (Bash asks unless read-only, Write/Edit ask, Read"
            " never), answered with your own permission mode and rules",
            cannot="read-only Bash commands and Read never ask: a loop of them is stopped by cancelling the turn",
            ask_setup=claude_ask,
            own=lambda env, cwd, argv: claude_settings(env, cwd),
            mock_setup=claude_home,
            demo_defaults=claude_defaults,
        ),
        Preset(
            name="codex",
            package="@zed-industries/codex-acp",
            version="0.16.0",
            size_mb=223,
            bin="node_modules/.bin/codex-acp",
            on_path=("codex-acp",),
            asks='`-c approval_policy="untrusted"` on its command line (its sandbox setting stays yours), answered'
            " with your own approval_policy",
            cannot="commands on its safe list run unasked (judged after they ran)",
            ask_args=("-c", 'approval_policy="untrusted"'),
            own=lambda env, cwd, argv: codex_settings(env, argv),
            mock_setup=codex_mock_home,
            demo_defaults=codex_defaults,
        ),
        Preset(
            name="gemini",
            package="@google/gemini-cli",
            version="0.61.0",
            size_mb=100,
            bin="node_modules/.bin/gemini",
            args=("--acp",),
            acp_flags=("--experimental-acp",),
            mode="default",
            silent_modes=("autoEdit", "yolo"),
            asks="`session/set_mode default` after `session/new` (shell that is not read-only, write_file and"
            " web_fetch ask; read_file never), answered with your own approval mode (`--approval-mode`, `--yolo`,"
            " `general.defaultApprovalMode`)",
            cannot="its permission requests carry only a title (the command text), so fingerprints use that text;"
            " its shell output reaches ACP only with `tools.shell.enableInteractiveShell: false` in your settings",
            own=gemini_settings,
            mock_setup=gemini_home,
            demo_defaults=gemini_defaults,
            drops_cancelled_prompt=True,
        ),
        Preset(
            name="qwen",
            package="@qwen-code/qwen-code",
            version="0.24.4",
            size_mb=152,
            bin="node_modules/.bin/qwen",
            args=("--acp",),
            acp_flags=("--experimental-acp",),
            aliases=("qwen-code",),
            mode="default",
            silent_modes=("auto-edit", "yolo"),
            asks="`session/set_mode default` after `session/new` (it starts in `auto`, where a model classifier "
            "approves calls unasked): shell commands and edits ask, reads never",
            cannot="read_file, grep and glob never ask (a loop of them is stopped by cancelling the turn, after it "
            "ran); after a refusal it ends the turn, so the model does not read the denial in that turn",
            own=qwen_settings,
            mock_setup=qwen_home,
            demo_defaults=qwen_defaults,
        ),
        Preset(
            name="kilo",
            package="@kilocode/cli",
            version="7.7.7",
            size_mb=292,
            bin="node_modules/.bin/kilo",
            args=("acp",),
            aliases=("kilocode",),
            asks='`permission` in KILO_CONFIG_CONTENT: bash, edit and webfetch "ask" (as for opencode); reads run'
            " unasked",
            cannot="reads run unasked (stopped by cancelling the turn); after a refusal it ends the turn, as opencode"
            " does",
            ask_setup=kilo_ask,
            own=lambda env, cwd, argv: kilo_settings(env, cwd),
            mock_setup=kilo_home,
            demo_defaults=kilo_defaults,
        ),
    )
}


def installed(p: Preset) -> bool:
    """Whether `setup-agent` installed this agent."""
    return p.launcher().exists()


def ask_env(p: Preset, env: dict[str, str]) -> dict[str, str]:
    """The agent's environment with what makes it ask before tool calls."""
    return p.ask_setup(dict(env)) if p.ask_setup is not None else dict(env)


def own_settings(p: Preset, env: dict[str, str], cwd: str, argv: list[str]) -> OwnSettings | None:
    """The person's own settings for the agent (None: every ask of the agent goes to the person)."""
    return p.own(env, cwd, argv) if p.own is not None else None


def mock_env(p: Preset, base_url: str, home: Path, model: str = "mock-model") -> dict[str, str]:
    """Environment that points the agent at the mock model at `base_url`, with private state under `home`."""
    home.mkdir(parents=True, exist_ok=True)
    env: dict[str, str] = {"HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config")}
    env["XDG_DATA_HOME"] = str(home / ".local/share")
    env["XDG_STATE_HOME"] = str(home / ".local/state")
    env["XDG_CACHE_HOME"] = str(home / ".cache")
    if p.mock_setup is not None:
        env.update(p.mock_setup(base_url, home, model))
    return env
