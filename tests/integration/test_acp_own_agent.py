"""The agent a person already has (opencode, Claude Code, Codex, Gemini CLI): installed with `npm install -g
--prefix`, run by path and from PATH, with their own permission settings, against the mock model.

What it proves: their copy runs (not the pinned one); their allow-all settings run legitimate work
without a single question while the 5th cosmetic repeat is still refused before it runs; the model's
next request holds the breaker's reason; and "go on" after the refusal does not let the repeat run.
"""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from engine import events as ev
from tests.integration.acp_helpers import AcpRun, acp_run
from tests.integration.conftest import made_once
from wrapper.items import ApprovalItem
from wrapper.mock.world import World
from wrapper.toolchain import node, npm_cli

pytestmark = [pytest.mark.integration, pytest.mark.timeout(600)]
PACKAGES = {
    "opencode": "opencode-ai@1.18.33",
    "claude": "@agentclientprotocol/claude-agent-acp@0.101.0",
    "codex": "@zed-industries/codex-acp@0.16.0",
    "gemini": "@google/gemini-cli@0.61.0",
}
LAUNCHER = {"opencode": "opencode", "claude": "claude-agent-acp", "codex": "codex-acp", "gemini": "gemini"}
# what the person types after the launcher: opencode's ACP subcommand; Gemini's allow-all is a flag (it
# ignores `yolo` in its settings file)
TYPED = {"opencode": ["acp"], "claude": [], "codex": [], "gemini": ["--yolo"]}
ON_PATH = {"opencode": "opencode", "claude": "claude", "codex": "codex-acp", "gemini": "gemini"}


@pytest.fixture(scope="session")
def prefix(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A person's global npm prefix with the four agents, installed as they would (`npm install -g --prefix`).

    Installed once per test run, for every worker (the tests only run what it holds).
    """

    def install(where: Path) -> None:
        npm = [str(node()), str(npm_cli()), "install", "-g", "--prefix", str(where), "--no-audit", "--no-fund"]
        p = subprocess.run(
            [*npm, "--prefer-offline", *PACKAGES.values()],
            capture_output=True,
            text=True,
            timeout=900,
        )
        if p.returncode != 0:
            pytest.skip(f"npm could not install the agents (offline?): {p.stderr[-300:]}")

    return made_once(tmp_path_factory, "npm-prefix", install)


def allow_all(agent: str) -> Callable[[World], None]:
    """The person's own settings: every command and edit allowed without asking."""

    def write(world: World) -> None:
        if agent == "opencode":
            cfg = world.home / ".config" / "opencode"
            cfg.mkdir(parents=True, exist_ok=True)
            (cfg / "opencode.json").write_text(json.dumps({"permission": {"bash": "allow", "edit": "allow"}}))
        elif agent == "codex":
            f = world.home / ".codex" / "config.toml"
            f.write_text(f.read_text().replace('approval_policy = "untrusted"', 'approval_policy = "never"'))
        elif agent == "gemini":
            pass  # its --yolo, typed on the command line (TYPED)
        else:
            f = world.home / ".claude" / "settings.json"
            settings = json.loads(f.read_text()) if f.exists() else {}
            settings["permissions"] = {"defaultMode": "bypassPermissions"}
            f.write_text(json.dumps(settings))

    return write


def requests_after_refusal(run: AcpRun) -> list[str]:
    log = run.world.root / "model-requests.jsonl"
    bodies = [line for line in log.read_text().splitlines() if line.strip()]
    return [b for b in bodies if "REPEAT_TOOL_BLOCKED" in b]


def by_person(run: AcpRun) -> list[ApprovalItem]:
    return [i for i in run.items if isinstance(i, ApprovalItem) and i.answer is not None and i.by == "person"]


# Every agent from PATH: the names each preset is found under are its own, and the person's copy runs with
# their settings. By path, Codex only (under 1 s of CPU to start, the others 2-8 s): a full path to a launcher
# is resolved as given, with the ACP argument added once, in tests/unit/wrapper/harness/acp/test_acp_resolve.py,
# and the copy and the settings it runs are the ones the PATH run of each agent runs.
OWN = [
    *(pytest.param(agent, "PATH", id=f"PATH-{agent}") for agent in ("opencode", "claude", "codex", "gemini")),
    pytest.param("codex", "path", id="path-codex"),
]


@pytest.mark.parametrize(("agent", "how"), OWN)
async def test_the_persons_own_agent_and_settings_with_the_repeat_refused(
    agent: str, how: str, prefix: Path, tmp_path: Path
) -> None:
    exe = str(prefix / "bin" / LAUNCHER[agent])
    if how == "path":
        command = [exe, *TYPED[agent]]
        env = {"PATH": os.environ.get("PATH", "")}
    else:
        command = [ON_PATH[agent], *TYPED[agent]]
        env = {"PATH": f"{prefix / 'bin'}{os.pathsep}{os.environ.get('PATH', '')}"}
    write = allow_all(agent)
    async with acp_run(agent, "stubborn-loop", tmp_path, command=command, env=env, before=write) as run:
        assert exe in run.session.argv, f"not the person's copy: {run.session.argv}"
        assert run.session.argv.count("acp") <= 1, run.session.argv
        await run.turn("Read notes.txt.", timeout=300)
        kinds = [v.verdict.kind for v in run.verdicts()]
        assert kinds[:5] == ["allow"] * 4 + ["deny"], kinds
        assert run.questions == [], "their allow-all settings still asked"
        assert by_person(run) == []
        if agent == "gemini":  # --yolo answers the asks its preset makes it send: the policy, citing the flag
            answered = [i for i in run.items if isinstance(i, ApprovalItem) and i.answer is not None]
            assert len(answered) >= 4, answered
            assert all(a.by == "policy" and "your --yolo = yolo" in a.why for a in answered[:4]), answered[:4]
        ran = (run.world.workspace / "calls.log").read_text().splitlines()
        assert len(ran) == 4, "a refused repeat ran"
        assert requests_after_refusal(run), "the model was never told why"
        assert any("REPEAT_TOOL_BLOCKED" in f for f in run.followups())
        # the person says "go on": the loop does not get a fresh window
        await run.turn("Please go on.", timeout=300)
        ran = (run.world.workspace / "calls.log").read_text().splitlines()
        assert len(ran) == 4, f"'go on' let {len(ran) - 4} more repeats run"
        assert len(run.events(ev.TurnEnd)) == 2
