"""Shared fixtures: hermetic config and state directories for every test."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, settings

# Import the packages under test first, before any test module: pytest's importlib mode may put the
# checkout on sys.path while importing a test module, and a package imported after that would come from
# the checkout instead of the installed (compiled) wheel that `make test` means to test.
import engine.breaker  # noqa: F401
import wrapper.settings  # noqa: F401

# Property tests judge what the code does, not how fast a loaded machine runs it: no per-example
# deadline and no "too slow" health check (both failed now and then under CI's parallel load). Under CI
# the examples are derived from each test's name, so a red run is the code's, and reruns the same.
settings.register_profile("load", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("ci", parent=settings.get_profile("load"), derandomize=True)
settings.load_profile("ci" if os.environ.get("CI") else "load")

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared"
TESTS = Path(__file__).resolve().parent

# Tests in these folders carry the marker, so `make check` (`-m "not integration and not tui and not slow"`)
# skips them.
MARKED_FOLDERS = {"integration": "integration", "tui": "tui"}


# A `slow` test's own pytest timeout, unless it names one: a corpus pass or a fuzzer that takes 20 s on a
# quiet machine took 60-100 s at a load of 16 on 2 cores, past the 120 s default once the load is higher.
SLOW_TIMEOUT_S = 600


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark every test under tests/integration and tests/tui by its folder, and every property test `slow`.

    A Hypothesis test runs its body for hundreds of examples: it belongs with the fuzzers in `make test`,
    whoever writes the next one, so the marker comes from `@given` rather than from a line each author adds.
    """
    for item in items:
        parts = item.path.resolve().relative_to(TESTS).parts if item.path.is_relative_to(TESTS) else ()
        marker = MARKED_FOLDERS.get(parts[0]) if parts else None
        if marker is not None:
            item.add_marker(marker)
        if getattr(getattr(item, "obj", None), "is_hypothesis_test", False):
            item.add_marker("slow")
        if item.get_closest_marker("slow") and not item.get_closest_marker("timeout"):
            item.add_marker(pytest.mark.timeout(SLOW_TIMEOUT_S))


@pytest.fixture(autouse=True)
def _hermetic(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """No test reads the developer's own config or writes to their state directory."""
    home = tmp_path_factory.mktemp("home")
    (home / "no-config.toml").write_text("")  # a named config must exist: an empty one is all defaults
    monkeypatch.setenv("BREAKER_TUI_CONFIG", str(home / "no-config.toml"))
    monkeypatch.setenv("BREAKER_TUI_STATE_DIR", str(home / "state"))


# A wait's own number says how soon its condition comes on a quiet machine. On a loaded one (CI, or a laptop
# building something beside the tests) a stall of tens of seconds happens, so no wait gives up sooner than
# this: a condition that comes true ends the wait at once, so the floor costs time only when a test fails.
WAIT_FLOOR_S = 60.0


def wait_limit(timeout: float) -> float:
    """The seconds a wait asked to last `timeout` seconds really waits before it fails."""
    return max(timeout, WAIT_FLOOR_S)


async def wait_until(pred: Any, timeout: float = 30, what: str = "condition") -> None:
    """Poll a condition with a hard timeout (every wait in the tests has one, of at least `WAIT_FLOOR_S`)."""
    import asyncio

    loop = asyncio.get_running_loop()
    limit = wait_limit(timeout)
    deadline = loop.time() + limit
    while not pred():
        if loop.time() > deadline:
            raise AssertionError(f"timed out after {limit:.0f}s waiting for {what}")
        await asyncio.sleep(0.02)
