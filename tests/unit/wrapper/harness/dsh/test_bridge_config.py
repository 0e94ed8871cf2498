"""The bridge plugin itself (real Node, a fake dsh context): its only settings come from the overlay.

A missing or invalid timeout, or a channel descriptor that is not open, must make it deny every
tool call (fail closed) instead of guessing.
"""

from __future__ import annotations

import fcntl
import json
import os
import socket
import subprocess
from pathlib import Path
from typing import Any

import pytest

from wrapper.paths import bridge_file
from wrapper.toolchain import node

PROBE = Path(__file__).resolve().parents[3] / "js" / "bridge_probe.mjs"
GOOD = {"verdictTimeoutMs": 50, "approvalTimeoutMs": 0, "resultTimeoutMs": 50, "maxLineBytes": 65536, "maxTokens": 0}


def _probe(config: dict[str, Any], pass_fds: tuple[int, ...] = ()) -> dict[str, Any]:
    if not node().exists():
        pytest.skip("the bundled Node is not installed")
    out = subprocess.run(
        [str(node()), str(PROBE), str(bridge_file()), json.dumps(config)],
        capture_output=True,
        text=True,
        timeout=30,
        env={"PATH": "/usr/bin:/bin"},
        pass_fds=pass_fds,
    )
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]


@pytest.mark.parametrize(
    ("change", "named"),
    [
        ({"verdictTimeoutMs": None}, "verdictTimeoutMs"),
        ({"verdictTimeoutMs": 0}, "verdictTimeoutMs"),
        ({"resultTimeoutMs": "5"}, "resultTimeoutMs"),
        ({"approvalTimeoutMs": 5}, "approvalTimeoutMs"),
        ({"maxLineBytes": -1}, "maxLineBytes"),
    ],
)
def test_a_missing_or_bad_setting_denies_every_call(change: dict[str, Any], named: str) -> None:
    cfg = {k: v for k, v in {**GOOD, **change}.items() if v is not None}
    r = _probe(cfg)
    assert (
        r["verdict"]["kind"] == "deny" and named in r["verdict"]["reason"] and "fail closed" in r["verdict"]["reason"]
    )


def test_a_channel_descriptor_that_is_not_open_denies_every_call() -> None:
    r = _probe({**GOOD, "fd": 77})
    assert r["verdict"]["kind"] == "deny" and "inherited channel" in r["verdict"]["reason"], r
    assert r["env"] == [], "the bridge reads nothing from the environment"


def test_a_channel_a_tool_would_inherit_denies_every_call() -> None:
    """Passed as fd 17 or above with 16 closed, Node leaves the channel inheritable: the bridge refuses it."""
    a, b = socket.socketpair()
    high = fcntl.fcntl(b.fileno(), fcntl.F_DUPFD_CLOEXEC, 17)  # the lowest free number from 17 up
    try:
        r = _probe({**GOOD, "fd": high}, pass_fds=(high,))
    finally:
        for s in (a, b):
            s.close()
        os.close(high)
    assert r["verdict"]["kind"] == "deny", r
    assert "not close-on-exec" in r["verdict"]["reason"] and "fail closed" in r["verdict"]["reason"], r


def test_the_bridge_registers_its_guard_and_tripwires() -> None:
    r = _probe({**GOOD, "fd": 77})
    assert r["guard"] is True, "tools.guard() is the bridge's last word"
    assert "internal/listener" in r["events"] and "internal/service" in r["events"]


def test_a_runner_failure_the_monitor_is_told_of_is_not_written_to_dshs_output_too() -> None:
    """dsh stopped while its runner starts fails the runner ("the agents service is not available"): the monitor,
    told over the channel, says whether the person asked for the stop. The same line in dsh's own output opened
    the output pane with the profile blamed, whatever the monitor said.
    """
    if not node().exists():
        pytest.skip("the bundled Node is not installed")
    a, b = socket.socketpair()
    fd = b.fileno()
    # the channel as breaker-tui passes it, as fd 3 (Node marks it close-on-exec); bash moves it there
    moved = f'exec 3<&{fd} {fd}<&- && exec "$@"'
    probe = [str(node()), str(PROBE), str(bridge_file()), json.dumps({**GOOD, "fd": 3, "runner": True})]
    try:
        out = subprocess.run(
            ["/bin/bash", "-c", moved, "bash", *probe],
            capture_output=True,
            text=True,
            timeout=30,
            env={"PATH": "/usr/bin:/bin"},
            pass_fds=(fd,),
        )
        b.close()
        told = a.makefile().read()  # everything the bridge sent, to its end
    finally:
        a.close()
    assert out.returncode == 0, out.stderr
    assert '"runner_error"' in told and "agents service" in told, told
    assert "runner failed" not in out.stderr, out.stderr
