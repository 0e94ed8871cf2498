"""`Session`: dsh under a pty with the breaker's bridge plugin: the channel, the engine, and acting on its answers."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
from pathlib import Path
from typing import Any

from engine import events as ev
from engine.breaker import StreamTrip
from wrapper.harness.capabilities import DSH, PLAIN, Capabilities
from wrapper.harness.dsh import protocol as P
from wrapper.harness.dsh.approvals import Approvals
from wrapper.harness.dsh.channel import Channel, Launch
from wrapper.harness.dsh.guards import Guards
from wrapper.harness.dsh.launch import (
    BridgeSettings,
    build_argv,
    is_dsh,
    overlay_arg,
    overlay_text,
    profile_of,
    sealed_overlay,
    wants_runner,
    with_resume,
)
from wrapper.harness.dsh.layers import PatchLayers
from wrapper.harness.dsh.model_errors import endpoint_of
from wrapper.harness.dsh.monitor import BridgeMonitor, Reaction
from wrapper.harness.dsh.pinned import InstallChanged, refusal, resolve_dsh, verify
from wrapper.harness.dsh.replay import describe_command
from wrapper.harness.pty import SECRET_ENV, PtySession
from wrapper.items import EngineItem, Item, OutputItem, StatusItem, VerdictItem
from wrapper.monitor import NOT_MONITORED, Info, Monitor
from wrapper.process.child import inherited_fd
from wrapper.process.proc import cmdline as proc_cmd
from wrapper.process.proc import descendants as proc_descendants

BRIDGE_GONE_GRACE_S = 3.0  # how long a child may take to exit after its bridge closed before it is news
WATCH_EVERY_S = 1.0  # how often the patch layers and escaped processes are checked while the child runs
TICK_S = 0.1  # how often the wait for the hello (and for a pong) looks at the clock and at dsh's processes
PING_EVERY_S = 5.0  # how often a connected bridge is asked to prove it still reads and answers


class Session(PtySession):
    """dsh driven through its bridge. Iterate it for `Item`s."""

    monitor: BridgeMonitor

    def __init__(self, *args: Any, runner: bool | None = None, **kwargs: Any) -> None:
        self._runner = runner
        super().__init__(*args, **kwargs)

    def _make_monitor(self) -> Monitor:
        return BridgeMonitor(self.settings, Info(dsh=is_dsh(self.argv)))

    def _setup(self) -> None:
        dsh_home = Path(self.base_env.get("DSH_HOME", Path.home() / ".dsh"))
        runner = self._runner
        self.info.runner = runner if runner is not None else (self.info.dsh and wants_runner(self.argv, dsh_home))
        self.channel: Channel | None = None
        self._launch_fds: tuple[Launch, int] | None = None  # this launch's pair end and overlay memfd
        self.layers = PatchLayers(dsh_home, profile_of(self.argv) or "default")
        self.monitor.endpoint = endpoint_of(self.base_env)
        self.approvals = Approvals(self)
        self.guards = Guards(self)
        self._pong = asyncio.Event()  # the bridge answered the last liveness ping
        self._ping_id = ""

    def _default_label(self) -> str:
        return (self.info.dsh and profile_of(self.argv)) or super()._default_label()

    @property
    def capabilities(self) -> Capabilities:
        """What this harness can do: dsh through its bridge, or a plain command watched by its output."""
        return DSH if self.info.dsh else PLAIN

    # -- lifecycle ---------------------------------------------------------------------------
    async def _started(self) -> None:
        self._spawn(self.guards.stall_loop())
        self._spawn(self._watch_loop())

    async def _prepare_launch(self, argv: list[str]) -> list[str]:
        if not self.info.dsh:
            return list(argv)
        if self.channel is None:
            self.channel = Channel(
                self._on_message,
                self._on_notice,
                self.settings.wrapper.max_line_bytes,
                on_bad=self.guards.on_bad,
            )
        if self._say_which_dsh():
            await self._check_install()
        launch = self.channel.new_launch()
        # dsh sees the pair end as fd 3 and the overlay as fd 4 (`inherited_fd`, in `_pass_fds` order):
        # numbers Node marks close-on-exec at start-up, so no tool dsh runs inherits the channel
        bridge = BridgeSettings.of(
            self.settings.wrapper, self.info.runner, self.settings.engine.thinking.max_tokens, inherited_fd(0)
        )
        memfd = sealed_overlay(overlay_text(bridge))
        self._launch_fds = (launch, memfd)
        self._pass_fds = (launch.fd, memfd)
        self.layers.snapshot()
        self.info.bridge = "waiting"
        return build_argv(argv, overlay_arg(inherited_fd(1)), self.base_env)

    def _say_which_dsh(self) -> bool:
        """Name a dsh that is not the pinned install and a PATH `dsh` that is not used; whether the pinned one runs."""
        if os.path.basename(self.argv[0]) != "dsh" or os.sep in self.argv[0]:
            self._emit(StatusItem("warning", f"running {self.argv[0]} as dsh: not the pinned install"))
            return False
        choice = resolve_dsh(self.base_env)
        if choice is None:
            return False
        for note in choice.notes:
            self._emit(StatusItem("warning", note))
        return choice.pinned

    async def _check_install(self) -> None:
        """Every file of the pinned install by size and mtime (off the event loop): a changed install never runs."""
        bad = await asyncio.to_thread(verify)
        if bad:
            why = refusal(bad)
            self._record("note", {"what": "install-changed", "files": bad[:50]})
            self._not_monitored(why, ran=False)  # before the launch: nothing ran
            raise InstallChanged(f"{NOT_MONITORED}: {why}")

    def _launched(self, pid: int | None) -> None:
        """The child holds its own copies now: close ours (the pair end, the overlay)."""
        if self._launch_fds is None or self.channel is None:
            return
        launch, memfd = self._launch_fds
        self._launch_fds = None
        self._pass_fds = ()
        self.channel.launched(launch, pid)
        with contextlib.suppress(OSError):
            os.close(memfd)

    async def _after_launch(self, gen: int) -> None:
        if self.info.dsh:
            self._spawn(self._watch_bridge(gen))

    async def _watch_loop(self) -> None:
        """While the session runs: a changed patch layer is reported, a process that left dsh's tree too."""
        while True:
            await asyncio.sleep(WATCH_EVERY_S)
            self._check_watch()

    def _check_watch(self) -> None:
        if self.info.dsh:
            for change in self.layers.changes():
                self._record("note", {"what": "patch-layer-changed", "file": str(change.path), "how": change.how})
                self._emit(
                    StatusItem(
                        "error",
                        f"ALARM: dsh's patch layer {change.path} was {change.how} during the session. breaker-tui "
                        "refused dsh's live reload, so it is not applied now; check it before the next start "
                        "(a plugin it inserts would load then).",
                    )
                )
        child = self.child
        if self.info.dsh and self.channel is not None and child is not None and child.running and child.pid:
            for pid in self.channel.other_holders(child.pid):
                self._emit(
                    StatusItem(
                        "error",
                        f"ALARM: pid {pid} ({proc_cmd(pid)}), started under dsh, holds the bridge channel; "
                        "ended it (fail closed)",
                    )
                )
                with contextlib.suppress(OSError):
                    os.kill(pid, signal.SIGKILL)
        if self.contain is not None and child is not None and child.running:
            for s in self.contain.scan(child.pid):
                self._emit(
                    StatusItem(
                        "warning",
                        f"a tool's process left dsh's process tree: pid {s.pid} ({proc_cmd(s.pid)}); "
                        "it ends with the session",
                    )
                )

    async def _watch_bridge(self, gen: int) -> None:
        """No hello, no run: a dsh whose bridge does not say hello in time, or that starts a process
        before it did (a tool ran with nobody asked), is stopped; a connected bridge is then pinged.
        """
        assert self.channel is not None
        bound = self.settings.wrapper.bridge_connect_timeout_s
        if bound <= 0:
            self._emit(
                StatusItem(
                    "warning",
                    "OBSERVING: `bridge_connect_timeout_s = 0` in [wrapper]: a dsh whose bridge never connects keeps "
                    "running, and its calls are then not checked",
                )
            )
            await self.channel.connected.wait()
        else:
            problem = await self._wait_hello(gen, bound)
            if problem is not None:
                if self._current(gen):
                    # a runner's agent is started by the bridge: without a hello nothing of it ran; a one-shot
                    # dsh runs its task by itself, so it may have
                    self._not_monitored(problem, ran=not self.info.runner)
                return
        await self._liveness(gen, bound)

    def _current(self, gen: int) -> bool:
        child = self.child
        return gen == self.generation and not self._closing and child is not None and child.running

    async def _wait_hello(self, gen: int, bound: float) -> str | None:
        """Wait for the hello; why the launch is not monitored, or None once the bridge is connected."""
        assert self.channel is not None
        waited = 0.0
        while not self.channel.connected.is_set():
            if not self._current(gen):
                return None
            early = self._started_before_hello()
            if early is not None:
                return early
            if waited >= bound:
                return (
                    f"dsh's bridge did not say hello within {bound:g} s of the launch (`bridge_connect_timeout_s` "
                    "in [wrapper]); something kept dsh from loading it (a changed install, a preload, a patch)"
                )
            waited += await _tick()
        return None

    def _started_before_hello(self) -> str | None:
        """A process under a one-shot dsh before its bridge said hello: the task (from the command line) runs
        tools only after boot, so one ran unasked. A runner's agent is started by the bridge itself, so a
        process there before the hello is some other plugin's (an MCP server), not a call.
        """
        child = self.child
        if self.info.runner or child is None or not child.pid:
            return None
        for s in proc_descendants({child.pid}):
            if s.pid != child.pid:
                return f"dsh started pid {s.pid} ({proc_cmd(s.pid)}) before its bridge said hello: a call ran unchecked"
        return None

    async def _liveness(self, gen: int, bound: float) -> None:
        """Ping the bridge every PING_EVERY_S; one that does not answer within `bound` is not monitoring."""
        if bound <= 0:
            return
        n = 0
        while self._current(gen) and self.channel is not None and self.channel.is_connected:
            n += 1
            ping = P.Ping(id=f"{gen}-{n}")
            self._pong.clear()
            self._ping_id = ping.id
            if not await self.channel.send(ping):
                return  # gone: `_bridge_lost` decides
            waited = 0.0
            while not self._pong.is_set():
                if not self._current(gen) or not self.channel.is_connected:
                    return
                if waited >= bound:
                    self._not_monitored(
                        f"dsh's bridge stopped answering: no answer to a liveness check within {bound:g} s "
                        "(`bridge_connect_timeout_s` in [wrapper])"
                    )
                    return
                waited += await _tick()
            await asyncio.sleep(PING_EVERY_S)

    def _emit(self, item: Item) -> None:
        if isinstance(item, EngineItem) and isinstance(item.event, ev.TurnStart):
            self.guards.denials.turn_start(item.event.agent)
        if isinstance(item, VerdictItem) and self.guards.denials.verdict(item.agent, item.verdict.kind) is not None:
            self._spawn(self.guards.end_walled_turn(item.agent))
        super()._emit(item)

    # -- child -----------------------------------------------------------------------------------
    def _on_child_output(self, text: str) -> None:
        if self.info.dsh and "does not exist; create it with" in text:
            self._emit(
                StatusItem("error", "that dsh profile does not exist: `breaker-tui init-profile NAME` writes one")
            )
        self._emit(OutputItem(text))

    async def _before_exit_report(self) -> None:
        # let the bridge's last lines arrive first: an "exited" line must not overtake them
        if self.channel is not None and self.channel.is_connected:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._bridge_gone(), 2.0)

    def _on_child_gone(self) -> None:
        self.approvals.close_all("the child exited")
        self.guards.stalls.close_all()

    async def _bridge_gone(self) -> None:
        while self.channel is not None and self.channel.is_connected:
            await asyncio.sleep(0.02)

    # -- bridge messages -------------------------------------------------------------------------
    def _on_notice(self, kind: str, text: str) -> None:
        if kind == "bridge-lost":
            self.info.bridge = "lost"
            self._record("note", {"what": "bridge-lost"})
            self.approvals.close_all("the dsh bridge disconnected")
            self.guards.stalls.close_all()
            deliberate = self._closing or (self.child is not None and self.child.sent is not None)
            if not deliberate and self.info.child == "running" and self.child and self.child.running:
                if self.info.runner:  # a runner's bridge ends only when breaker-tui ends it: this one was cut
                    self._spawn(self._runner_bridge_lost(self.generation))
                else:  # a one-shot profile's bridge closes as its task ends: news only if dsh lives on
                    self._spawn(self._bridge_lost(self.generation))
            return
        self._record("note", {"what": kind, "text": text})
        self._emit(StatusItem(kind, text))

    async def _runner_bridge_lost(self, gen: int) -> None:
        """A runner's channel was cut: the bridge then refuses every call and ends dsh. Unless dsh was
        killed from outside (its death is the news then), the session was not monitored to its end.
        """
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._exited.wait(), BRIDGE_GONE_GRACE_S)
        ended = self.info.exit if self._exited.is_set() else None
        if gen != self.generation or self._closing or (ended is not None and ended.signal and ended.sent is None):
            return
        self._not_monitored("dsh's bridge channel was closed mid-session")

    async def _bridge_lost(self, gen: int) -> None:
        """dsh closes its plugins before it exits: a bridge that goes away with its child is a normal
        end. Only one whose child is still running a moment later is news.
        """
        try:
            await asyncio.wait_for(self._exited.wait(), BRIDGE_GONE_GRACE_S)
        except TimeoutError:
            if self._current(gen):
                self._not_monitored("dsh's bridge disconnected while dsh kept running")

    async def _on_message(self, msg: P.Inbound, raw: dict[str, Any]) -> None:
        """One bridge message: the monitor decides (`Monitor.handle`), the session carries it out."""
        if isinstance(msg, P.Pong):
            if msg.id == self._ping_id:
                self._pong.set()
            return
        self._record("in", raw)
        if not isinstance(msg, P.Hello):
            self.guards.activity(msg)
        r = await self._judge(msg)
        if r is not None:
            await self._carry_out(msg, r)

    async def _judge(self, msg: P.Inbound) -> Reaction | None:
        """The monitor's decision on `msg`; None when the engine could not judge it (reported, never raised)."""
        try:
            return self.monitor.handle(msg)
        except Exception as e:  # a message the engine cannot judge never crashes the monitor
            if isinstance(msg, P.VerdictRequest):  # and a call it cannot judge is not run (fail closed)
                why = f"breaker-tui could not judge this call ({type(e).__name__}), so it was not run (fail closed)."
                await self._send(P.Verdict(id=msg.id, kind="deny", message=why), {"callId": msg.callId, "error": True})
            self._emit(StatusItem("error", f"internal error on a {msg.t} message: {type(e).__name__}"))
            return None

    async def _carry_out(self, msg: P.Inbound, r: Reaction) -> None:
        """Send the reply, stop on an alarm, show the items, act on trips and questions, note the session ready."""
        if isinstance(msg, P.VerdictRequest) and r.items and isinstance(r.items[0], VerdictItem):
            v = r.items[0]
            self.guards.asked(msg.id, v.agent, v.call_id, v.tool)
        if r.reply is not None:
            await self._send(r.reply, r.record)
        if isinstance(msg, P.RunnerError) and self._stopped_as_asked():
            # dsh takes its services down as it stops, and the runner still starting fails for it: the stop
            # the person asked for is the news, not the profile
            r.items = [StatusItem("notice", "dsh was stopped before its runner was ready, as asked")]
        if r.alarm is not None:
            self._on_alarm(r.alarm)
        for item in r.items:
            self._emit(item)
        for trip in r.trips:
            await self._on_trip(trip)
        if r.approval is not None:
            self.approvals.received(r.approval)
        if isinstance(msg, P.Closed):
            self.guards.closed(msg)
        if r.ready:
            self._on_ready(msg)

    def _stopped_as_asked(self) -> bool:
        """Whether the child is being ended as asked (quit, kill, restart, a signal), not for failing closed."""
        asked = self._closing or (self.child is not None and self.child.sent is not None)
        return asked and not self.info.unmonitored

    def _on_alarm(self, alarm: str) -> None:
        """A call ran unvetted: record it and stop the child (fail closed)."""
        self._record("note", {"what": "alarm", "text": alarm})
        if self.child is not None and self.child.running:
            self._closing = True
            self._spawn(self.kill())

    def _on_ready(self, msg: P.Inbound) -> None:
        """The runner is ready for prompts; its first session id names the recording."""
        self._ready.set()
        if self.recorder is not None and isinstance(msg, P.Ready) and msg.sessionId:
            self.recorder.name_for(msg.sessionId)

    async def _send(self, out: P.Out, extra: dict[str, Any] | None = None) -> bool:
        ok = self.channel is not None and await self.channel.send(out)
        self._record("out", {**out.model_dump(exclude_none=True), **(extra or {}), "delivered": ok})
        return ok

    async def _act_on_trip(self, trip: StreamTrip) -> str:
        cmd = self.monitor.trip_command(trip)
        sent = describe_command(cmd)
        if cmd is not None:
            if self.info.dsh:
                ok = self.channel is not None and await self.channel.send(cmd)
                if not ok:
                    sent = "abort could not be sent (bridge not connected)"
            else:
                sent = await super()._act_on_trip(trip)
        return sent

    # -- actions ---------------------------------------------------------------------------------
    async def prompt(self, text: str, timeout: float = 60) -> bool:
        """Send a human message: to the runner's agent (dsh) or typed into the child (others)."""
        if not text.strip():
            return False
        if not self.info.dsh:
            return await super().prompt(text, timeout)
        if not self.info.runner:
            self._emit(StatusItem("warning", "this dsh profile runs one task; it takes no further prompts"))
            return False
        if not await self.wait_ready(timeout):
            self._emit(StatusItem("error", "dsh is not ready for prompts (the runner never reported ready)"))
            return False
        self.info.busy = True
        return await self._send(P.Prompt(text=text))

    async def cancel(self) -> bool:
        """Cancel the current turn (dsh keeps running and takes the next prompt)."""
        if self.info.dsh:
            return await self._send(P.Cancel(sessionId=None))
        return await super().cancel()

    async def resume(self, session_id: str) -> bool:
        """Restart on a past session (from the session list): the runner gets `--resume <id>`."""
        if not (self.info.dsh and self.info.runner):
            self._emit(StatusItem("warning", "this dsh profile runs one task: it cannot resume a session"))
            return False
        self.info.session_id = session_id
        return await self.restart()

    def _restart_argv(self) -> list[str]:
        """Restart on the same session (`--resume <id>` for dsh runners)."""
        argv = self.argv
        if self.info.dsh and self.info.runner and self.info.session_id:
            argv = with_resume(self.argv, self.info.session_id)
            self._emit(StatusItem("notice", f"restarting on session {self.info.session_id}"))
        else:
            argv = super()._restart_argv()
        self.info.bridge = "waiting" if self.info.dsh else "none"
        return argv

    async def quit(self, code: int = 0) -> Any:
        """Ask dsh to exit; kill it if it does not."""
        if self.info.dsh and self.channel is not None and self.channel.is_connected:
            self._closing = True
            await self._send(P.Quit(code=code))
            info = await self.wait_exit(5)
            if info is not None:
                return info
        return await self.kill()

    async def _close_harness(self) -> None:
        if self.channel is not None:
            await self.channel.close()


__all__ = ["SECRET_ENV", "Session"]


async def _tick() -> float:
    """Sleep one tick; how much of it counts as waiting. A monitor starved by a loaded machine wakes late:
    only up to two ticks count, so the bridge is never blamed for the monitor's own lag.
    """
    loop = asyncio.get_running_loop()
    t0 = loop.time()
    await asyncio.sleep(TICK_S)
    return min(loop.time() - t0, 2 * TICK_S)
