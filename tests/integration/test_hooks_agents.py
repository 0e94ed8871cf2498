"""The real Claude Code, Codex CLI and Gemini CLI, each in its own non-interactive mode, guarded by breaker's hooks.

Each CLI is the pinned npm package installed into a cache folder; it talks to the project's mock model
(Anthropic, Responses, Gemini APIs) in a private HOME that holds the person's own config. The scenario
re-runs one shell call six times with cosmetic changes: `hooks install` exits 0, `hooks uninstall` gives
the person's config back byte for byte, and once installed again exactly 4 of the 6 calls run and the model
gets the refusal naming the repeat as the refused call's result.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import tomllib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from wrapper.hooks.watching import AskLink
from wrapper.mock.server import MockModel

pytestmark = [pytest.mark.integration, pytest.mark.slow, pytest.mark.timeout(600)]

BIN = Path(sys.executable).parent
CACHE = Path(os.environ.get("BREAKER_TUI_NPM_CACHE") or Path.home() / ".cache" / "breaker-tui-tests" / "npm")
NET_ERRORS = ("ENOTFOUND", "EAI_AGAIN", "ETIMEDOUT", "ECONNREFUSED", "ECONNRESET", "ENETUNREACH", "network")


@dataclass(frozen=True)
class Cli:
    package: str
    version: str
    binary: str


CLIS = {
    "claude": Cli("@anthropic-ai/claude-code", "2.1.332", "claude"),
    "codex": Cli("@openai/codex", "0.171.0", "codex"),
    "gemini": Cli("@google/gemini-cli", "0.61.0", "gemini"),
}


def installed_cli(agent: str) -> Path:
    """The pinned CLI, installed from npm into the cache once; a skip only when npm cannot be reached."""
    c = CLIS[agent]
    where = CACHE / f"{agent}-{c.version}"
    exe = where / "node_modules" / ".bin" / c.binary
    if exe.exists():
        return exe
    npm = shutil.which("npm")
    if npm is None:
        pytest.skip("npm is not installed, so the pinned agent CLIs cannot be fetched")
    where.mkdir(parents=True, exist_ok=True)
    p = subprocess.run(
        [npm, "install", "--no-audit", "--no-fund", "--prefix", str(where), f"{c.package}@{c.version}"],
        capture_output=True,
        text=True,
        timeout=500,
        check=False,
    )
    if p.returncode != 0 and any(e in p.stderr for e in NET_ERRORS):
        pytest.skip(f"npm cannot reach the registry to fetch {c.package}@{c.version}: {p.stderr.strip()[-300:]}")
    assert p.returncode == 0 and exe.exists(), p.stderr[-2000:]
    return exe


@dataclass
class World:
    tmp: Path
    home: Path
    ws: Path
    env: dict[str, str]
    model: MockModel

    def breaker(self, *args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [str(BIN / "breaker-tui"), *args], env=self.env, cwd=self.ws, capture_output=True, text=True, check=False
        )

    def agent(self, argv: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
        """The agent's own CLI, non-interactive, in the workspace (a whole scripted session of six calls)."""
        return subprocess.run(
            argv,
            env=env,
            cwd=self.ws,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=400,
            check=False,
        )

    def ran(self) -> int:
        log = self.ws / "calls.log"
        return len(log.read_text().splitlines()) if log.exists() else 0

    def model_got(self) -> str:
        return json.dumps([r["body"] for r in self.model.requests])


@pytest.fixture
def world(tmp_path: Path) -> Iterator[World]:
    short = Path(tempfile.mkdtemp(prefix="bkw-", dir="/tmp"))  # the server's socket path must stay short
    home, ws = tmp_path / "home", tmp_path / "ws"
    home.mkdir()
    ws.mkdir()
    (ws / "notes.txt").write_text("the notes\n")
    m = MockModel("tool-loop")
    m.workspace = str(ws)
    m.start()
    (tmp_path / "no-config.toml").write_text("")  # a named config must exist: empty is all defaults
    env = {
        **os.environ,
        "HOME": str(home),
        "PATH": f"{BIN}:{os.environ.get('PATH', '')}",
        "BREAKER_TUI_STATE_DIR": str(tmp_path / "state"),
        "BREAKER_TUI_RUN_DIR": str(short / "run"),
        "BREAKER_TUI_CONFIG": str(tmp_path / "no-config.toml"),
    }
    w = World(tmp_path, home, ws, env, m)
    try:
        yield w
    finally:
        m.stop()
        pid = short / "run" / "serve.pid"
        if pid.exists():
            os.kill(int(pid.read_text()), signal.SIGTERM)
            deadline = time.monotonic() + 30
            while pid.exists() and time.monotonic() < deadline:
                time.sleep(0.05)
        shutil.rmtree(short, ignore_errors=True)


def install_twice_round(w: World, agent: str, config: Path) -> None:
    """Install, uninstall (the person's bytes back), install again."""
    person = config.read_bytes()
    p = w.breaker("hooks", "install", agent)
    assert p.returncode == 0, p.stderr
    p = w.breaker("hooks", "uninstall", agent)
    assert p.returncode == 0, p.stderr
    assert config.read_bytes() == person
    p = w.breaker("hooks", "install", agent)
    assert p.returncode == 0, p.stderr


def assert_four_ran_and_the_model_was_told(w: World, refusal_prefix: str) -> None:
    assert w.ran() == 4
    got = w.model_got()
    assert refusal_prefix in got and "REPEAT_TOOL_BLOCKED" in got and "rule repeat:" in got


GEMINI_PERSON = {
    "security": {"auth": {"selectedType": "gemini-api-key"}},
    "general": {"enableAutoUpdate": False},
    "privacy": {"usageStatisticsEnabled": False},
    "telemetry": {"enabled": False},
}


def test_gemini_cli_with_the_persons_comments_and_own_hook(world: World) -> None:
    """Gemini reads its settings with comments: install keeps them (and the person's own hook, which runs)."""
    gemini = installed_cli("gemini")
    cfg = world.home / ".gemini" / "settings.json"
    cfg.parent.mkdir()
    own = world.tmp / "own-hook.log"
    mine = {"matcher": ".*", "hooks": [{"name": "mine", "type": "command", "command": f"echo mine >> {own}"}]}
    person = json.dumps({**GEMINI_PERSON, "hooks": {"BeforeTool": [mine]}}, indent=2) + "\n"
    cfg.write_text("// the person's own settings\n" + person.replace('\n  "hooks"', '\n  /* mine */\n  "hooks"'))
    install_twice_round(world, "gemini", cfg)
    assert "// the person's own settings" in cfg.read_text() and "/* mine */" in cfg.read_text()
    env = {
        **world.env,
        "GOOGLE_GEMINI_BASE_URL": f"http://127.0.0.1:{world.model.port}",
        "GEMINI_API_KEY": "mock-key",
        "GEMINI_CLI_TRUST_WORKSPACE": "true",
    }
    p = world.agent([str(gemini), "-p", "Read notes.txt.", "--yolo", "-o", "json"], env)
    assert_four_ran_and_the_model_was_told(world, "Tool execution blocked")
    assert "this result was not recorded" not in p.stderr
    assert len(own.read_text().splitlines()) == 6, p.stderr[-2000:]  # the person's hook saw every call


def claude_env(world: World) -> dict[str, str]:
    """Claude Code against the mock model, offline."""
    return {
        **world.env,
        "ANTHROPIC_BASE_URL": f"http://127.0.0.1:{world.model.port}",
        "ANTHROPIC_API_KEY": "mock-key",
        "ANTHROPIC_MODEL": "mock-model",
        "DISABLE_TELEMETRY": "1",
        "DISABLE_ERROR_REPORTING": "1",
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        "DISABLE_AUTOUPDATER": "1",
        "IS_SANDBOX": "1",  # claude refuses to skip permissions as root otherwise (the tests may run as root)
    }


def test_claude_code_and_the_persons_own_hook_still_runs(world: World) -> None:
    claude = installed_cli("claude")
    cfg_dir = world.home / ".claude"
    cfg_dir.mkdir()
    own = world.tmp / "own-hook.log"
    mine = {"matcher": "*", "hooks": [{"type": "command", "command": f"echo mine >> {own}"}]}
    (cfg_dir / "settings.json").write_text(json.dumps({"hooks": {"PreToolUse": [mine]}}, indent=2) + "\n")
    world.env["CLAUDE_CONFIG_DIR"] = str(cfg_dir)
    install_twice_round(world, "claude", cfg_dir / "settings.json")
    env = claude_env(world)
    p = world.agent([str(claude), "-p", "Read notes.txt.", "--allowedTools", "Bash", "--output-format", "json"], env)
    assert_four_ran_and_the_model_was_told(world, "hook error")
    assert len(own.read_text().splitlines()) == 6, p.stdout[-2000:]  # the person's hook saw every call


CODEX_CONFIG = """model = "mock-model"
model_provider = "mock"
approval_policy = "never"
sandbox_mode = "danger-full-access"
check_for_update_on_startup = false

[model_providers.mock]
name = "mock"
base_url = "http://127.0.0.1:{port}/v1"
env_key = "MOCK_API_KEY"
wire_api = "responses"

[analytics]
enabled = false
"""


def codex_world(world: World) -> tuple[Path, Path]:
    """The pinned Codex first on PATH (install asks it for its trust hashes) and its home holding the person's
    config, in `world`: the Codex binary and that config file.
    """
    codex = installed_cli("codex")
    home = world.home / ".codex"
    home.mkdir()
    cfg = home / "config.toml"
    cfg.write_text(CODEX_CONFIG.format(port=world.model.port))
    world.env["CODEX_HOME"] = str(home)
    world.env["PATH"] = f"{codex.parent}:{world.env['PATH']}"
    return codex, cfg


def test_codex_cli_trusted_by_install(world: World) -> None:
    codex, cfg = codex_world(world)
    install_twice_round(world, "codex", cfg)
    s = world.breaker("hooks", "status", "codex")
    assert "codex: installed" in s.stdout and "\n  trusted (Codex says)" in s.stdout, s.stdout + s.stderr
    p = world.agent(
        [str(codex), "exec", "--skip-git-repo-check", "--json", "Read notes.txt."],
        {**world.env, "MOCK_API_KEY": "mock-key"},
    )
    assert_four_ran_and_the_model_was_told(world, "Command blocked by PreToolUse hook")
    assert p.returncode == 0, p.stderr[-2000:]


def test_codex_project_hooks_are_trusted_where_codex_reads_trust_and_they_refuse_the_loop(world: World) -> None:
    """`--project` writes the hooks into the folder's `.codex/config.toml`; Codex ignores trust a project gives
    itself, so install writes it into the person's own config, and takes it out again with the hooks.
    """
    codex, cfg = codex_world(world)
    person = cfg.read_text()
    p = world.breaker("hooks", "install", "codex", "--project")
    assert p.returncode == 1 and f"Trust {world.ws} in Codex" in p.stderr, p.stderr  # Codex skips the folder's config
    assert world.breaker("hooks", "uninstall", "codex", "--project").returncode == 0
    person += f'\n[projects."{world.ws}"]\ntrust_level = "trusted"\n'  # the person trusts the folder in Codex
    cfg.write_text(person)
    p = world.breaker("hooks", "install", "codex", "--project")
    assert p.returncode == 0, p.stderr
    s = world.breaker("hooks", "status", "codex", "--project")
    assert "\n  trusted (Codex says)" in s.stdout, s.stdout + s.stderr
    p = world.agent(
        [str(codex), "exec", "--skip-git-repo-check", "--json", "Read notes.txt."],
        {**world.env, "MOCK_API_KEY": "mock-key"},
    )
    assert_four_ran_and_the_model_was_told(world, "Command blocked by PreToolUse hook")
    p = world.breaker("hooks", "uninstall", "codex", "--project")
    assert p.returncode == 0, p.stderr
    assert cfg.read_text() == person and not (world.ws / ".codex" / "config.toml").exists()


@pytest.mark.parametrize("agent", ["claude", "gemini"])  # Codex shows it in its own screen; `codex exec` prints none
def test_a_call_breaker_could_not_check_is_said_in_the_agents_own_output(world: World, agent: str) -> None:
    """No verdict (here a config the server refuses) lets the call run, and the person must see that: the
    stderr of a hook that lets a call run reaches no one in Claude, so the hook says it as a `systemMessage`.
    """
    bad = world.tmp / "bad.toml"
    bad.write_text("[engine\n")
    world.env["BREAKER_TUI_CONFIG"] = str(bad)
    argv, env = guarded(world, agent, "Read notes.txt.")
    if agent == "claude":  # its stream shows what the person sees: the hooks' messages among them
        argv = [*argv[: argv.index("--output-format")], "--output-format", "stream-json", "--verbose"]
    p = world.agent(argv, env)
    assert world.ran() == 6
    said = p.stdout + p.stderr
    assert said.count("runs unchecked") >= 6 and "bad config" in said, said[-3000:]


def codex_writes(world: World, codex: Path, key_path: str, value: object) -> None:
    """Codex itself writes a value into its config (`codex app-server`'s `config/value/write`, as its UI does)."""
    p = subprocess.Popen(
        [str(codex), "app-server"],
        env=world.env,
        cwd=world.ws,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    assert p.stdin is not None and p.stdout is not None
    write = {"keyPath": key_path, "value": value, "mergeStrategy": "upsert"}
    for msg in (
        {"id": 1, "method": "initialize", "params": {"clientInfo": {"name": "test", "version": "1"}}},
        {"method": "initialized"},
        {"id": 2, "method": "config/value/write", "params": write},
    ):
        p.stdin.write(json.dumps(msg) + "\n")
    p.stdin.flush()
    try:
        said = next(m for m in map(json.loads, p.stdout) if m.get("id") == 2)
    finally:
        p.kill()
        p.wait(60)
    assert said.get("result", {}).get("status") == "ok", said


def test_what_codex_writes_into_its_config_after_install_survives_reinstall_and_uninstall(world: World) -> None:
    """Codex edits its config with toml_edit, which puts new tables before the file's last comment (breaker's end
    marker): the folder trust and the UI state it writes are the person's, and stay when breaker's hooks go.
    """
    codex, cfg = codex_world(world)
    assert world.breaker("hooks", "install", "codex").returncode == 0
    codex_writes(world, codex, "tui", {"screen_reader_detection_done": True})
    codex_writes(world, codex, "projects", {str(world.ws): {"trust_level": "trusted"}})
    codex_said = tomllib.loads(cfg.read_text())
    p = world.breaker("hooks", "install", "codex", "--fail-closed")  # a reinstall over Codex's writes
    assert p.returncode == 0, p.stderr
    s = world.breaker("hooks", "status", "codex")
    assert "\n  trusted (Codex says)" in s.stdout, s.stdout + s.stderr
    p = world.breaker("hooks", "uninstall", "codex")
    assert p.returncode == 0, p.stderr
    left = tomllib.loads(cfg.read_text())
    assert "hooks" not in left
    assert left == {k: v for k, v in codex_said.items() if k != "hooks"}
    assert left["tui"]["screen_reader_detection_done"] is True
    assert left["projects"][str(world.ws)]["trust_level"] == "trusted"


def test_fail_closed_with_no_server_refuses_every_claude_call(world: World) -> None:
    claude = installed_cli("claude")
    cfg_dir = world.home / ".claude"
    world.env["CLAUDE_CONFIG_DIR"] = str(cfg_dir)
    p = world.breaker("hooks", "install", "claude", "--fail-closed")
    assert p.returncode == 0, p.stderr
    world.env["BREAKER_TUI_RUN_DIR"] = str(world.tmp / ("x" * 120))  # no socket can live there: no server at all
    env = claude_env(world)
    world.agent([str(claude), "-p", "Read notes.txt.", "--allowedTools", "Bash", "--output-format", "json"], env)
    assert world.ran() == 0
    assert "installed fail-closed" in world.model_got()


def gemini_env(world: World) -> dict[str, str]:
    """Gemini CLI against the mock model, its workspace trusted."""
    return {
        **world.env,
        "GOOGLE_GEMINI_BASE_URL": f"http://127.0.0.1:{world.model.port}",
        "GEMINI_API_KEY": "mock-key",
        "GEMINI_CLI_TRUST_WORKSPACE": "true",
    }


class Watcher:
    """What `breaker-tui watch` does with asks, in a thread: connected to the server, answering each ask `say`."""

    def __init__(self, sock: str, say: str) -> None:
        self.sock, self.say = sock, say
        self.answered: list[dict[str, object]] = []
        self.connected = threading.Event()
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_until_complete, args=(self._run(),), daemon=True)

    async def _run(self) -> None:
        link = AskLink(self.sock)
        await link.open()
        try:
            async for asks in link.updates():
                self.connected.set()
                for a in asks:
                    if a["id"] not in {b["id"] for b in self.answered}:
                        self.answered.append(a)
                        await link.answer(str(a["id"]), self.say)
        except asyncio.CancelledError:
            pass
        finally:
            link.close()

    def start(self) -> None:
        self.thread.start()
        assert self.connected.wait(60), "the watch never got the server's list of asks"

    def stop(self) -> None:
        self.loop.call_soon_threadsafe(lambda: [t.cancel() for t in asyncio.all_tasks(self.loop)])
        self.thread.join(60)


def served(world: World) -> subprocess.Popen[bytes]:
    """`breaker-tui serve` started before the agent (a watch needs a server to connect to)."""
    proc = subprocess.Popen([str(BIN / "breaker-tui"), "serve"], env=world.env, stderr=subprocess.PIPE)
    assert proc.stderr is not None
    seen = b""
    while b"listening on" not in seen:
        line = proc.stderr.readline()
        assert line, f"serve exited before listening: {seen.decode()}"
        seen += line
    return proc


def hook_verdicts(world: World, agent: str) -> tuple[list[str], list[str]]:
    """The verdicts the hooks gave in the session's recording, and how each ask was answered."""
    (rec,) = (world.tmp / "state" / "recordings").glob(f"*hook-{agent}*.jsonl")
    records = [json.loads(line) for line in rec.read_text().splitlines()]
    verdicts = [str(r["kind"]) for r in records if r.get("t") == "verdict"]
    return verdicts, [str(r["outcome"]) for r in records if r.get("t") == "approval_response"]


def guarded(world: World, agent: str, prompt: str) -> tuple[list[str], dict[str, str]]:
    """The agent's person config written, breaker's hooks installed: its command line and environment."""
    exe = str(installed_cli(agent))
    if agent == "gemini":
        (world.home / ".gemini").mkdir()
        (world.home / ".gemini" / "settings.json").write_text(json.dumps(GEMINI_PERSON))
        argv, env = [exe, "-p", prompt, "--yolo", "-o", "json"], gemini_env(world)
    elif agent == "claude":
        world.env["CLAUDE_CONFIG_DIR"] = str(world.home / ".claude")
        argv, env = [exe, "-p", prompt, "--allowedTools", "Bash", "--output-format", "json"], claude_env(world)
    else:
        (world.home / ".codex").mkdir()
        (world.home / ".codex" / "config.toml").write_text(CODEX_CONFIG.format(port=world.model.port))
        world.env["CODEX_HOME"] = str(world.home / ".codex")
        world.env["PATH"] = f"{Path(exe).parent}:{world.env['PATH']}"  # install asks this codex for its trust
        argv, env = [exe, "exec", "--skip-git-repo-check", "--json", prompt], {**world.env, "MOCK_API_KEY": "mock-key"}
    p = world.breaker("hooks", "install", agent)
    assert p.returncode == 0, p.stderr
    return argv, {**env, **{k: v for k, v in world.env.items() if k in ("CLAUDE_CONFIG_DIR", "CODEX_HOME", "PATH")}}


REFUSED = {"gemini": "Tool execution blocked", "claude": "hook error", "codex": "Command blocked by PreToolUse hook"}


@pytest.mark.parametrize("say", ["allow-once", "deny"])
@pytest.mark.parametrize("agent", ["gemini", "codex", "claude"])
def test_asks_reach_watch_and_its_answer_is_the_verdict(world: World, agent: str, say: str) -> None:
    world.model.stop()
    world.model = MockModel("dev-server-loop")  # polls a local health URL seven times: the 5th on are asked
    world.model.workspace = str(world.ws)
    world.model.start()
    argv, env = guarded(world, agent, "Wait for the dev server.")
    server = served(world)
    watcher = Watcher(str(Path(world.env["BREAKER_TUI_RUN_DIR"]) / "serve.sock"), say)
    watcher.start()
    try:
        p = world.agent(argv, env)  # gemini -p would hang for good on an `ask` answer: it returns
    finally:
        watcher.stop()
        server.terminate()
        server.wait(60)
    assert p.returncode == 0, p.stderr[-2000:]
    verdicts, answers = hook_verdicts(world, agent)
    assert verdicts[:4] == ["allow"] * 4 and verdicts[4] == "ask"
    assert answers[0] == ("allowed-once" if say == "allow-once" else "rejected")
    assert {str(a["agent"]) for a in watcher.answered} == {agent} and "18999/health" in str(watcher.answered[0])
    got = world.model_got()
    if say == "deny":
        assert "declined it in breaker-tui watch" in got and REFUSED[agent] in got
    else:
        assert "code-6" in got and REFUSED[agent] not in got  # every poll ran, the asked ones too
