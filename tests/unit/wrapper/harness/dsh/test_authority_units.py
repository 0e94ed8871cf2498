"""The pure parts of the breaker's authority: the verdict ledger, the run directory's owner and lock,
the patch-layer watch, the pinned-dsh manifest and the containment of leftovers (real /proc, real
processes, no dsh).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import wait_limit
from wrapper.harness.dsh.layers import PatchLayers
from wrapper.harness.dsh.pinned import resolve_dsh, verify, write_manifest
from wrapper.harness.dsh.vetting import Ledger
from wrapper.process import proc
from wrapper.process.contain import Containment
from wrapper.process.rundir import OWNER_FILE, RunDir, clean_stale

# -- no verdict, no run ------------------------------------------------------------------------


def test_a_result_for_a_call_without_a_verdict_is_an_alarm() -> None:
    led = Ledger()
    led.verdict("c1", "allow")
    assert led.ran("c1", "bash", "ok") is None
    why = led.ran("c2", "bash", "the notes")
    assert why is not None and "without a verdict" in why and led.alarm == why


def test_a_call_the_bridge_refused_on_its_own_is_no_alarm() -> None:
    led = Ledger()  # the monitor never answered (the bridge timed out and denied): nothing ran
    assert led.ran("c1", "bash", "Error: breaker-tui: no verdict from the monitor within 1 s", is_error=True) is None
    assert led.alarm is None


def test_a_denied_call_that_produced_a_real_result_is_an_alarm() -> None:
    led = Ledger()
    led.verdict("c5", "deny", "REPEAT_TOOL_BLOCKED: bash repeats an action")
    assert led.ran("c5", "bash", "Error: REPEAT_TOOL_BLOCKED: bash repeats an action", is_error=True) is None
    led.verdict("c6", "deny", "REPEAT_TOOL_BLOCKED: bash repeats an action")
    why = led.ran("c6", "bash", "the notes", is_error=False)  # what the hand-off hijack produced
    assert why is not None and "denied" in why


def test_an_ask_runs_only_once_approved() -> None:
    led = Ledger()
    led.verdict("a1", "ask", "local repeat")
    led.answered("a1", True)
    assert led.ran("a1", "bash", "ok") is None
    led.verdict("a2", "ask", "local repeat")
    assert led.ran("a2", "bash", "ok") is not None


# -- the run directory -------------------------------------------------------------------------


def test_a_live_run_directory_is_never_taken_for_stale_whatever_its_owner_file_says(tmp_path: Path) -> None:
    d = RunDir(tmp_path)
    pid, start = (d.path / OWNER_FILE).read_text().split()
    assert int(pid) == os.getpid() and int(start) == proc.start_time(os.getpid())
    (d.path / OWNER_FILE).write_text("999999999 1\n")  # what the agent's tool wrote
    assert clean_stale(tmp_path) == [] and d.path.is_dir(), "the lock says it is alive"
    d.remove()


def test_a_dead_or_reused_owner_pid_is_stale(tmp_path: Path) -> None:
    dead = tmp_path / "breaker-tui-dead"
    dead.mkdir()
    (dead / OWNER_FILE).write_text(f"{os.getpid()} 1\n")  # our pid, but not our start time: a reused pid
    assert clean_stale(tmp_path) == [dead]


def test_a_missing_run_directory_is_made_again_and_a_tmp_symlink_is_replaced(tmp_path: Path) -> None:
    d = RunDir(tmp_path)
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "keep").write_text("x")
    shutil.rmtree(d.tmp)
    d.tmp.symlink_to(outside)  # the tool swapped the child's TMPDIR for a link out of the run dir
    t = d.fresh_tmp()
    assert not t.is_symlink() and t.is_dir() and (outside / "keep").exists(), "the link removed, not followed"
    shutil.rmtree(d.path)  # the next start removed it
    assert d.ensure() is True and d.path.is_dir() and (d.path / OWNER_FILE).exists()
    assert d.fresh_tmp().is_dir()
    assert clean_stale(tmp_path) == [], "made again, and locked again"
    d.remove()


# -- the patch layers --------------------------------------------------------------------------


def test_a_patch_layer_written_during_the_session_is_reported_once(tmp_path: Path) -> None:
    layers = PatchLayers(tmp_path, "dev")
    (tmp_path / "profiles" / "dev").mkdir(parents=True)
    layers.snapshot()
    assert layers.changes() == []
    (tmp_path / "cordis.patch.yml").write_text("- insert: []\n")
    got = layers.changes()
    assert [(c.path.name, c.how) for c in got] == [("cordis.patch.yml", "created")]
    assert layers.changes() == []
    (tmp_path / "profiles" / "dev" / "cordis.patch.yml").write_text("x")
    assert [c.how for c in layers.changes()] == ["created"]


# -- which dsh ---------------------------------------------------------------------------------


def _fake_install(root: Path) -> Path:
    lib = root / "dsh" / "node_modules" / "@deepseek-ai" / "dsh" / "lib"
    lib.mkdir(parents=True)
    (lib / "bin.js").write_text("#!/usr/bin/env node\n")
    (lib.parent / "package.json").write_text("{}")
    (root / "dsh" / "package.json").write_text("{}")
    return root / "dsh"


def test_the_pinned_dsh_is_used_and_a_path_dsh_is_only_reported(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    install = _fake_install(tmp_path / "data")
    monkeypatch.setenv("BREAKER_TUI_DATA_DIR", str(tmp_path / "data"))
    planted = tmp_path / "bin"
    planted.mkdir()
    (planted / "dsh").write_text("#!/bin/sh\nexit 0\n")
    (planted / "dsh").chmod(0o755)
    env = {"PATH": str(planted)}
    c = resolve_dsh(env)
    assert c is not None and c.pinned and c.path == install / "node_modules/@deepseek-ai/dsh/lib/bin.js"
    assert any("a different dsh is on PATH" in n and str(planted / "dsh") in n for n in c.notes)
    opted = resolve_dsh({**env, "BREAKER_TUI_DSH": str(planted / "dsh")})
    assert opted is not None and not opted.pinned and opted.path == planted / "dsh"


def test_the_manifest_names_a_changed_launcher(tmp_path: Path) -> None:
    root = _fake_install(tmp_path)
    assert verify(root)[0].startswith("no manifest")
    write_manifest(root)
    assert verify(root) == [] and verify(root, full=True) == []
    (root / "node_modules/@deepseek-ai/dsh/lib/bin.js").write_text("// planted\n")
    (root / "node_modules/@deepseek-ai/dsh/lib/extra.js").write_text("")
    # the launch check covers every file now (sizes and mtimes), so it names the added file too
    changed = ["changed: node_modules/@deepseek-ai/dsh/lib/bin.js", "added: node_modules/@deepseek-ai/dsh/lib/extra.js"]
    assert verify(root) == changed
    assert verify(root, full=True) == changed
    assert json.loads((root / "breaker-manifest.json").read_text())["files"]


# -- containment -------------------------------------------------------------------------------


def test_the_sweep_ends_a_setsid_grandchild_after_its_parent_exited() -> None:
    c = Containment.create("unit-test-run")
    if not c.subreaper and c.leaf is None:
        pytest.skip("neither a subreaper nor a cgroup leaf on this system")
    tag = f"sleep 601.{os.getpid() % 100000:05d}"
    parent = subprocess.Popen(
        ["sh", "-c", f"setsid {tag} >/dev/null 2>&1 </dev/null & echo started"],
        stdout=subprocess.PIPE,
        env={**os.environ, "BREAKER_TUI_RUN": "unit-test-run"},
        preexec_fn=c.preexec,
    )
    c.launched(parent.pid)
    assert parent.stdout is not None and parent.stdout.readline().strip() == b"started"
    parent.wait(10)

    def left() -> list[int]:
        return [s.pid for s in proc.all_stats() if proc.cmdline(s.pid) == tag and s.state != "Z"]

    wait_until_sync(lambda: bool(left()), "the grandchild")
    killed = c.close()
    assert any(tag in cmd for _, cmd in killed), killed
    wait_until_sync(lambda: not left(), "the grandchild to be gone")


def wait_until_sync(pred: Callable[[], bool], what: str, timeout: float = 10) -> None:
    deadline = time.monotonic() + wait_limit(timeout)
    while not pred():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.02)


# -- weakening is loud -----------------------------------------------------------------------


def test_a_config_that_switches_the_breaker_off_is_named_key_by_key() -> None:
    from wrapper.settings import from_mapping
    from wrapper.weakening import weakened

    s = from_mapping(
        {"wrapper": {"record": False}, "thinking": {"enabled": False}, "repeat": {"limits": {"cmd": "off"}}}, "c.toml"
    )
    got = weakened(s)
    assert any("c.toml: wrapper.record = False" in w for w in got)
    assert any("thinking.enabled" in w for w in got) and any("repeat.limits.cmd" in w for w in got)
    assert weakened(from_mapping({"wrapper": {"record": True}}, "d.toml")) == []


def test_acp_keys_that_let_refused_or_unjudged_calls_run_are_named_and_timeouts_are_not() -> None:
    """`[acp] deny = "observe"` ran every refused ACP call while the status said ENFORCING (left open last stop)."""
    from wrapper.settings import from_mapping
    from wrapper.weakening import weakened

    got = weakened(from_mapping({"acp": {"deny": "observe", "make_ask": False, "unasked": "observe"}}, "a.toml"))
    assert any("a.toml: acp.deny = 'observe'" in w for w in got), got
    assert any("acp.make_ask = False" in w for w in got) and any("acp.unasked" in w for w in got)
    assert weakened(from_mapping({"acp": {"unasked": "cancel", "deny": "reject"}}, "b.toml")) == []
    # a longer wait before failing closed or declining is no weakening
    stricter = {"wrapper": {"approval_timeout_s": 30, "verdict_timeout_s": 60, "result_timeout_s": 9}}
    assert weakened(from_mapping(stricter, "c.toml")) == []


def test_the_config_profile_and_dsh_are_compared_with_the_last_session(tmp_path: Path) -> None:
    from wrapper.startup import changes

    cfg = tmp_path / "config.toml"
    cfg.write_text("[wrapper]\n")
    files = {"config": cfg, "dsh profile patch layer": tmp_path / "cordis.patch.yml"}
    assert changes(files, tmp_path / "state") == [], "the first session has nothing to compare with"
    assert changes(files, tmp_path / "state") == []
    cfg.write_text("[wrapper]\nrecord = false\n")
    (tmp_path / "cordis.patch.yml").write_text("- insert: []\n")
    got = changes(files, tmp_path / "state")
    assert f"config {cfg} was changed since the last session" in got
    assert any("patch layer" in g and "created" in g for g in got)


def test_dsh_s_own_empty_patch_layer_template_is_no_change(tmp_path: Path) -> None:
    """dsh writes `profiles/<p>/cordis.patch.yml` with comments and `[]` on first use: no alarm for that."""
    from wrapper.harness.dsh.layers import PatchLayers

    layers = PatchLayers(tmp_path, "headless")
    layers.snapshot()
    prof = tmp_path / "profiles" / "headless"
    prof.mkdir(parents=True)
    (prof / "cordis.patch.yml").write_text("# Your patch layer for this dsh profile\n[]\n")
    assert layers.changes() == []
    (prof / "cordis.patch.yml").write_text("- insert:\n    - id: hostile\n      path: ./hostile.mjs\n")
    assert [c.how for c in layers.changes()] == ["changed"]


# -- a fork on its way to exec is no leak ------------------------------------------------------------

_HOLDERS = r"""
import os, subprocess, sys
fd = int(sys.argv[1])
kid = "import os, sys; fd = int(sys.argv[1]); os.set_inheritable(fd, sys.argv[2] == 'keep'); "
kid += "print('ready', flush=True); sys.stdin.read()"
kids = [subprocess.Popen([sys.executable, "-c", kid, str(fd), how], pass_fds=(fd,), stdin=subprocess.PIPE,
        stdout=subprocess.PIPE, text=True) for how in ("keep", "cloexec")]
for k in kids:
    assert k.stdout.readline().strip() == "ready"
print(" ".join(str(k.pid) for k in kids), flush=True)
sys.stdin.read()
for k in kids:
    k.stdin.close(); k.wait()
"""


def test_a_close_on_exec_copy_of_the_channel_counts_only_when_it_is_still_held_at_the_next_check() -> None:
    """Every fork dsh makes holds the channel until it execs its tool; the watch killed such forks (the
    tool died "killed by signal: SIGKILL", the approval tests' flake). A copy kept across exec is a leak
    at once; a close-on-exec copy only when the same process still holds it at the next check.
    """
    import socket
    import subprocess
    import sys

    from wrapper.harness.dsh.channel import Channel, Launch, socket_inode

    ours, theirs = socket.socketpair()
    root = subprocess.Popen(
        [sys.executable, "-c", _HOLDERS, str(theirs.fileno())],
        pass_fds=(theirs.fileno(),),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert root.stdout is not None
        keep, cloexec = (int(p) for p in root.stdout.readline().split())
        fresh = Channel(on_message=None, on_notice=lambda *_: None)  # type: ignore[arg-type]
        fresh.launch = Launch(theirs, socket_inode(theirs.fileno()))
        once = fresh.other_holders(root.pid)
        assert keep in once, "a copy that survives exec is a leak at the first look"
        assert cloexec not in once, "a close-on-exec copy seen once is a fork on its way to exec"
        assert cloexec in fresh.other_holders(root.pid), "still held at the next check: a real holder"
    finally:
        assert root.stdin is not None
        root.stdin.close()
        root.wait(10)
        ours.close()
        theirs.close()
