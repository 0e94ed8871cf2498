"""The bridge plugin itself (real Node, a fake dsh context): its only settings come from the overlay.

A missing or invalid timeout, or a hand-off file that is gone, must make it deny every tool call
(fail closed) instead of guessing; a good hand-off file is deleted the moment it is read.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from wrapper.harness.dsh.launch import write_handoff
from wrapper.paths import bridge_file
from wrapper.toolchain import node

PROBE = Path(__file__).parent / "js" / "bridge_probe.mjs"
GOOD = {"verdictTimeoutMs": 50, "approvalTimeoutMs": 0, "resultTimeoutMs": 50, "maxLineBytes": 65536, "maxTokens": 0}


def _probe(config: dict[str, Any]) -> dict[str, Any]:
    if not node().exists():
        pytest.skip("the bundled Node is not installed")
    out = subprocess.run(
        [str(node()), str(PROBE), str(bridge_file()), json.dumps(config)],
        capture_output=True,
        text=True,
        timeout=30,
        env={"PATH": "/usr/bin:/bin", "BREAKER_SOCKET": "/nowhere", "BREAKER_TOKEN": "old"},
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
def test_a_missing_or_bad_setting_denies_every_call(tmp_path: Path, change: dict[str, Any], named: str) -> None:
    cfg = {**GOOD, **change, "handoff": str(write_handoff(tmp_path, tmp_path / "s.sock", "tok"))}
    cfg = {k: v for k, v in cfg.items() if v is not None}
    r = _probe(cfg)
    assert (
        r["verdict"]["kind"] == "deny" and named in r["verdict"]["reason"] and "fail closed" in r["verdict"]["reason"]
    )
    assert r["handoffLeft"] is False


def test_a_missing_handoff_file_denies_every_call(tmp_path: Path) -> None:
    r = _probe({**GOOD, "handoff": str(tmp_path / "gone.json")})
    assert r["verdict"]["kind"] == "deny" and "hand-off" in r["verdict"]["reason"]


def test_a_good_handoff_is_deleted_on_reading(tmp_path: Path) -> None:
    handoff = write_handoff(tmp_path, tmp_path / "no.sock", "tok")
    r = _probe({**GOOD, "handoff": str(handoff)})
    assert r["handoffLeft"] is False and not handoff.exists()
    # nobody listens on the socket: the call waits for no one and fails closed
    assert r["verdict"]["kind"] == "deny" and "fail closed" in r["verdict"]["reason"]
