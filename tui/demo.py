"""`breaker-tui demo`: a real dsh, the built-in mock model and a scripted loop, under the monitor."""

from __future__ import annotations

import asyncio
import sys
from typing import TYPE_CHECKING, NamedTuple

from wrapper.mock.scenarios import SCENARIOS
from wrapper.settings import Settings
from wrapper.toolchain import ProvisionError

if TYPE_CHECKING:
    from wrapper.harness.declaration import Harness


class Plain(NamedTuple):
    """`demo --no-tui`'s output options, as the main command takes them (`--json`, `--quiet`)."""

    as_json_lines: bool = False
    quiet: bool = False


PLAIN = Plain()


def _dsh() -> Harness:
    """dsh's declaration, looked up when a demo runs (`demo --list` stays clear of the harnesses)."""
    from wrapper.harness.registry import harness

    return harness("dsh")


def installed_agents() -> list[str]:
    """The ACP agents `--agent` can run here (installed by `setup-agent` or found on PATH)."""
    from wrapper.harness.registry import installed_agents as ready

    return ready()


def scenario_list() -> str:
    """`demo --list`: each scenario, what it shows, its prompt, and which kind of agent it needs."""
    from wrapper.mock.scenarios import NEEDS_ACP, NEEDS_DSH

    rows = []
    for name, (_, prompt, desc) in SCENARIOS.items():
        mark = " [needs --agent]" if name in NEEDS_ACP else " [dsh only]" if name in NEEDS_DSH else ""
        rows.append(f"{name:22} {desc}{mark}   (prompt: {prompt!r})")
    ready = installed_agents()
    if ready:
        example = f"demo plan-and-edit --agent {ready[0]}"
        rows.append(f"\nwith an ACP agent instead of dsh: --agent {' | '.join(ready)}  (e.g. {example})")
    else:
        rows.append("\n[needs --agent]: install one first, e.g. breaker-tui setup-agent claude")
    return "\n".join(rows)


def demo_problem(scenario: str, agent: str | None) -> str:
    """Why `scenario` cannot run as asked (with what to run instead), or ""."""
    from wrapper.harness.registry import known_agents
    from wrapper.mock.scenarios import NEEDS_ACP, NEEDS_DSH

    if agent is not None and agent not in known_agents():
        return f"unknown agent {agent!r}; the known ones: {', '.join(known_agents())} (see `breaker-tui agents`)"
    if agent is None and scenario in NEEDS_ACP:
        ready = installed_agents()
        how = (
            f"run it with one: breaker-tui demo {scenario} --agent {ready[0]}"
            if ready
            else "install one first (breaker-tui setup-agent claude), then add --agent claude"
        )
        return f"{scenario} needs {NEEDS_ACP[scenario]}; {how}"
    if agent is not None and scenario in NEEDS_DSH:
        return f"{scenario} needs {NEEDS_DSH[scenario]}; run it without --agent"
    return ""


def ensure_dsh() -> bool:
    """Install dsh on first use, printing progress; False (with the reason on stderr) when that fails."""
    if _dsh().find() is not None:
        return True
    print("breaker-tui demo: dsh is not installed yet; setting it up (one time, needs the npm registry) ...")
    try:
        _dsh().setup(lambda s: print("  " + s, flush=True), False)
    except ProvisionError as e:
        print(f"breaker-tui demo: {e}", file=sys.stderr)
        return False
    return True


def run_demo(
    scenario: str,
    settings: Settings,
    headless: bool = False,
    theme: str | None = None,
    agent: str | None = None,
    plain: Plain = PLAIN,
) -> int:
    """Run one scenario with dsh, or with an installed ACP agent (`agent`); returns the exit status."""
    argv = list(_dsh().demo_argv)
    if agent is not None:
        from wrapper.harness.registry import agent_world

        if agent not in installed_agents():
            print(f"breaker-tui demo: {agent} is not installed: run `breaker-tui setup-agent {agent}`", file=sys.stderr)
            return 3
        world = agent_world(agent, scenario)
        argv = [agent]
    elif not ensure_dsh():
        return 3
    else:
        world = _dsh().demo_world(scenario)
    prompt = SCENARIOS[scenario][1]
    try:
        if headless:
            from wrapper.headless import run

            json_lines, quiet = plain
            cwd = str(world.workspace)
            return asyncio.run(run(argv, settings, [prompt], json_lines, env=world.env, cwd=cwd, quiet=quiet))
        from tui.run import run_app

        return run_app(
            argv,
            settings,
            theme=theme,
            env=world.env,
            cwd=str(world.workspace),
            first_prompt=prompt,
            title=f"demo: {scenario}" + (f" · {agent}" if agent else ""),
        )
    finally:
        world.close()
