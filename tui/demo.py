"""`breaker-tui demo`: a real dsh, the built-in mock model and a scripted loop, under the monitor."""

from __future__ import annotations

import asyncio
import sys

from wrapper.provision import ProvisionError, find_dsh, setup_dsh
from wrapper.scenarios import SCENARIOS
from wrapper.settings import Settings
from wrapper.world import make_world

DEMO_ARGV = ["dsh", "--profile", "dev"]


def ensure_dsh() -> bool:
    """Install dsh on first use, printing progress; False (with the reason on stderr) when that fails."""
    if find_dsh() is not None:
        return True
    print("breaker-tui demo: dsh is not installed yet; setting it up (one time, needs the npm registry) ...")
    try:
        setup_dsh(lambda s: print("  " + s, flush=True))
    except ProvisionError as e:
        print(f"breaker-tui demo: {e}", file=sys.stderr)
        return False
    return True


def run_demo(scenario: str, settings: Settings, headless: bool = False, theme: str | None = None) -> int:
    """Run one scenario; returns the exit status."""
    if not ensure_dsh():
        return 3
    world = make_world(scenario)
    prompt = SCENARIOS[scenario][1]
    try:
        if headless:
            from wrapper.headless import run

            return asyncio.run(run(DEMO_ARGV, settings, [prompt], env=world.env, cwd=str(world.workspace)))
        from tui.run import run_app

        return run_app(
            DEMO_ARGV,
            settings,
            theme=theme,
            env=world.env,
            cwd=str(world.workspace),
            first_prompt=prompt,
            title=f"demo: {scenario}",
        )
    finally:
        world.close()
