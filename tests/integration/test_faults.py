"""Faults injected into live runs (real dsh, the mock model): the monitor holds and the record tells the truth."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from wrapper import signals
from wrapper.harness.dsh import protocol as P
from wrapper.harness.dsh.replay import Replayer
from wrapper.harness.dsh.session import Session
from wrapper.items import ApprovalClosed, ApprovalItem, StatusItem
from wrapper.mock import scenarios
from wrapper.mock.scenarios import Reply, ToolCallSpec, Turn
from wrapper.records.recorder import Recorder
from wrapper.records.sources import load

from .conftest import settings

pytestmark = pytest.mark.integration


def _records(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


class SlowApproverSession(Session):
    """The person answers only after the bridge has given up."""

    def __init__(self, *a: Any, **kw: Any) -> None:
        super().__init__(*a, **kw)
        answer = self.approver

        async def slow(q: Any) -> Any:
            await asyncio.sleep(1.5)
            return await answer(q)

        self.approver = slow


async def test_a_late_approval_is_closed_recorded_as_late_and_not_applied(run_factory: Any) -> None:
    run = await run_factory(
        "dev-server-loop", answers=["allow-once"], cfg=settings(approval_timeout_s=0.5), session_cls=SlowApproverSession
    )
    await run.turn("Wait for the dev server")
    closed = run.of(ApprovalClosed)
    assert len(closed) == 1 and "in time" in closed[0].reason
    await run.until(lambda: any("not applied" in i.text for i in run.of(StatusItem)), what="the late answer")
    kinds = [v.verdict.kind for v in run.verdicts()]
    assert kinds == ["allow"] * 4 + ["ask", "deny", "deny"], "declined for the agent, so the turn stays refused"
    assert not run.session.breaker.snapshot().agents[0].local_exempt, "the late allow was not applied"
    recs = _records(run.session.recorder.path)
    responses = [r for r in recs if r.get("t") == "approval_response"]
    assert [(r["outcome"], r["closed"]) for r in responses] == [("rejected", closed[0].reason)]
    assert [r["by"] for r in responses] == ["timeout"], "declined by the timeout, not by a person"
    answered = [i for i in run.of(ApprovalItem) if i.answer is not None]
    assert [(i.answer, i.by) for i in answered] == [("deny", "timeout")], "shown as the timeout's answer"
    assert [r["answer"] for r in recs if r.get("what") == "late-answer"] == ["allow-once"]
    decided = [r["event"]["data"]["outcome"] for r in recs if r.get("event", {}).get("type") == "approval/decided"]
    assert decided == ["rejected"]


class SlowVerdictSession(Session):
    """The monitor answers the first verdict only after the bridge's timeout."""

    slowed = False

    async def _on_message(self, msg: P.Inbound, raw: dict[str, Any]) -> None:
        if isinstance(msg, P.VerdictRequest) and not self.slowed:
            self.slowed = True
            await asyncio.sleep(0.8)
        await super()._on_message(msg, raw)


async def test_a_timed_out_verdict_is_recorded_as_the_denial_the_agent_got(run_factory: Any) -> None:
    run = await run_factory("tool-loop", cfg=settings(verdict_timeout_s=0.3), session_cls=SlowVerdictSession)
    await run.turn("Read notes.txt")
    first = run.verdicts()[0]
    assert first.verdict.kind == "allow", "the monitor's answer, which came too late"
    await run.until(lambda: any("too late" in i.text for i in run.of(StatusItem)), what="the timeout report")
    await run.session.quit()
    recs = _records(run.session.recorder.path)
    mine = [r for r in recs if r.get("t") == "verdict" and r.get("callId") == first.call_id]
    assert [(r["kind"], r.get("timeout", False)) for r in mine] == [("allow", False), ("deny", True)]
    assert (run.world.workspace / "calls.log").read_text().count("ran") == 3, "the timed-out call never ran"
    r = Replayer(load(run.session.recorder.path))
    list(r.steps())
    assert any("live deny" in m for m in r.mismatches), "scan sees the denial the agent received"


def _wall(turn: Turn) -> Reply:
    """A model that ignores every denial and repeats the same call forever."""
    cmd = "cat notes.txt; echo ran >> calls.log"
    return Reply(reasoning=["Again."], tool_calls=[ToolCallSpec("bash", {"command": cmd, "description": "Read"})])


async def test_a_denial_storm_ends_the_turn(run_factory: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(scenarios.SCENARIOS, "wall", (_wall, "Read notes.txt.", "test only"))
    run = await run_factory("wall", cfg=settings(max_consecutive_denials=3))
    await run.turn("Read notes.txt", timeout=60)
    storm = [i for i in run.of(StatusItem) if "denial_storm" in i.data]
    assert len(storm) == 1 and "3 tool calls in a row were denied" in storm[0].text
    kinds = [v.verdict.kind for v in run.verdicts()]
    assert kinds[:7] == ["allow"] * 4 + ["deny"] * 3 and len(kinds) <= 9, kinds


async def test_a_silent_model_is_pointed_out(run_factory: Any) -> None:
    run = await run_factory("hang", cfg=settings(stall_warn_s=1.0))
    assert await run.session.prompt("Think hard")
    await run.until(lambda: any("stall" in i.data for i in run.of(StatusItem)), timeout=15, what="the stall notice")
    text = next(i.text for i in run.of(StatusItem) if "stall" in i.data)
    assert "sent nothing for" in text and "esc cancels the turn" in text


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    """A 16 KiB tmpfs (the real ENOSPC), or skip where mounting is not allowed."""
    d = tmp_path / "disk"
    d.mkdir()
    r = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=16k", "tmpfs", str(d)], capture_output=True, timeout=10)
    if r.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {r.stderr.decode(errors='replace').strip()}")
    try:
        yield d
    finally:
        subprocess.run(["umount", "-l", str(d)], capture_output=True, timeout=10)


async def test_a_full_disk_is_reported_at_once_and_marks_the_recording_incomplete(
    run_factory: Any, small_disk: Path
) -> None:
    run = await run_factory("tool-loop")
    rec = Recorder(small_disk / "rec.jsonl", {"scenario": "tool-loop"}, on_error=run.session._recording_failed)
    run.session.recorder = rec
    await run.turn("Read notes.txt")
    errors = [i for i in run.of(StatusItem) if i.kind == "error" and i.data.get("recording") == "incomplete"]
    assert len(errors) == 1 and "No space left on device" in errors[0].text
    assert rec.error and "INCOMPLETE" in rec.summary()
    await run.session.quit()
    loaded = load(rec.path)
    assert loaded.incomplete is not None and loaded.incomplete.startswith("line ")


async def test_sigterm_and_sighup_stop_the_child_and_leave_nothing(run_factory: Any) -> None:
    for sig in (signal.SIGTERM, signal.SIGHUP):
        run = await run_factory("normal")
        s = run.session
        pid, rundir = s.child.pid, s.rundir.path
        assert rundir.is_dir() and (rundir / "tmp").is_dir()
        done = asyncio.Event()
        uninstall = signals.install(s, after=lambda _sig, d=done: d.set())  # type: ignore[misc]
        try:
            os.kill(os.getpid(), sig)
            await asyncio.wait_for(done.wait(), 20)
        finally:
            uninstall()
        assert not s.child.running and not rundir.exists()
        with pytest.raises(ProcessLookupError):
            os.killpg(pid, 0)
        recs = _records(s.recorder.path)
        assert recs[-1]["k"] == "end" and any(r.get("signal") == sig.name for r in recs)


async def test_the_childs_tmpdir_is_private_and_removed(run_factory: Any) -> None:
    dead = subprocess.Popen(["true"])
    dead.wait()
    stale = Path(tempfile.mkdtemp(prefix="breaker-tui-"))
    (stale / "owner.pid").write_text(f"{dead.pid}\n")
    (stale / "tmp" / "dsh-spill-old").mkdir(parents=True)
    run = await run_factory("tool-loop")
    assert not stale.exists(), "a dead monitor's run directory is removed at start"
    tmp = run.session.rundir.tmp
    await run.turn("Read notes.txt")
    environ = Path(f"/proc/{run.session.child.pid}/environ").read_bytes().split(b"\0")
    assert f"TMPDIR={tmp}".encode() in environ
    assert not any(e.startswith((b"BREAKER_SOCKET=", b"BREAKER_TOKEN=")) for e in environ)
    spill = [p.name for p in tmp.iterdir() if p.name.startswith("dsh-")]
    assert spill, "dsh's spill/subprocess folders land in the private TMPDIR"
    await run.session.close()
    assert not tmp.exists() and not run.session.rundir.path.exists()


def _children(pid: int) -> list[int]:
    out = []
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                if int((d / "stat").read_text().rsplit(")", 1)[1].split()[1]) == pid:
                    out.append(int(d.name))
            except (OSError, IndexError, ValueError):
                continue
    return out


@pytest.fixture
def short_tmp() -> Iterator[Path]:
    """A private TMPDIR short enough for a socket path (a long one sends run dirs to /tmp instead)."""
    d = Path(tempfile.mkdtemp(prefix="bt-", dir="/tmp"))
    yield d
    shutil.rmtree(d, ignore_errors=True)


@pytest.mark.parametrize("sig", [signal.SIGHUP, signal.SIGTERM])
def test_a_signalled_monitor_with_its_screen_leaves_no_child_no_run_dir(
    world_factory: Any, tmp_path: Path, short_tmp: Path, sig: signal.Signals
) -> None:
    """The TUI in a real terminal (a pty): a signal shuts dsh and the run dir down, then it exits 128+N."""
    import pexpect

    world = world_factory("normal")
    private_tmp = short_tmp
    state = tmp_path / "state"
    env = {**world.env, "TMPDIR": str(private_tmp), "BREAKER_TUI_STATE_DIR": str(state), "TERM": "xterm-256color"}
    code = "import sys; from tui.cli import main; sys.exit(main())"
    child = pexpect.spawn(
        sys.executable,
        ["-c", code, "--", "dsh", "--profile", "dev"],
        cwd=str(world.workspace),
        env=env,
        dimensions=(30, 100),
        timeout=60,
    )
    try:
        deadline = time.monotonic() + 60

        def connected() -> bool:
            # the recording is renamed once the session id is known: read whatever is there now
            for r in state.glob("recordings/*.jsonl"):
                with contextlib.suppress(FileNotFoundError):
                    if '"hello"' in r.read_text():
                        return True
            return False

        while not connected():
            assert time.monotonic() < deadline, "the bridge never connected"
            assert child.isalive(), "the monitor ended early"
            with contextlib.suppress(pexpect.TIMEOUT, pexpect.EOF):
                child.read_nonblocking(65536, timeout=0.2)  # keep the pty drained
        kids = _children(child.pid)
        assert kids and any(private_tmp.glob("breaker-tui-*"))
        os.kill(child.pid, sig)
        child.expect(pexpect.EOF, timeout=30)
        child.wait()
    finally:
        if child.isalive():
            child.terminate(force=True)
    assert child.exitstatus == 128 + int(sig), (child.exitstatus, child.signalstatus)
    for kid in kids:
        with pytest.raises(ProcessLookupError):
            os.killpg(kid, 0)
    assert list(private_tmp.iterdir()) == [], "no run directory, no TMPDIR, no spill folders left"
    (rec,) = (state / "recordings").iterdir()
    recs = _records(rec)
    assert recs[-1]["k"] == "end" and any(r.get("signal") == sig.name for r in recs)


@pytest.mark.parametrize("sig", [signal.SIGHUP, signal.SIGTERM])
async def test_a_signalled_headless_monitor_leaves_no_child_no_run_dir(
    world_factory: Any, tmp_path: Path, short_tmp: Path, sig: signal.Signals
) -> None:
    world = world_factory("hang")  # the turn stays open until the signal
    private_tmp = short_tmp
    state = tmp_path / "state"
    env = {**world.env, "TMPDIR": str(private_tmp), "BREAKER_TUI_STATE_DIR": str(state)}
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-c",
        "import sys; from tui.cli import main; sys.exit(main())",
        "--no-tui",
        "--prompt",
        "Think hard.",
        "--",
        "dsh",
        "--profile",
        "dev",
        cwd=str(world.workspace),
        env=env,
        stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.PIPE,
    )
    assert proc.stderr is not None
    try:
        seen = b""
        while b"bridge connected" not in seen:
            line = await asyncio.wait_for(proc.stderr.readline(), 60)
            assert line, f"the monitor ended early: {seen[-500:]!r}"
            seen += line
        kids = _children(proc.pid)
        assert kids and any(private_tmp.glob("breaker-tui-*"))
        os.kill(proc.pid, sig)
        await asyncio.wait_for(proc.wait(), 30)
    finally:
        if proc.returncode is None:
            proc.kill()
            await proc.wait()
    for kid in kids:
        with pytest.raises(ProcessLookupError):
            os.killpg(kid, 0)
    assert list(private_tmp.iterdir()) == [], "no run directory, no TMPDIR, no spill folders left"
    (rec,) = (state / "recordings").iterdir()
    recs = _records(rec)
    assert recs[-1]["k"] == "end" and any(r.get("signal") == sig.name for r in recs)
