"""`Session`: launches the child, runs the bridge channel, feeds the engine and acts on its answers."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

from engine import events as ev
from engine.breaker import StreamTrip
from wrapper import protocol as P
from wrapper.approvals import Approvals
from wrapper.channel import Channel
from wrapper.child import Child, ExitInfo
from wrapper.guards import Guards
from wrapper.harness.base import SessionControls
from wrapper.harness.capabilities import DSH, PLAIN, Capabilities
from wrapper.items import (
    Answer,
    EngineItem,
    Item,
    OutputItem,
    Question,
    StatusItem,
    TripItem,
    VerdictItem,
)
from wrapper.launch import (
    BridgeSettings,
    build_argv,
    is_dsh,
    profile_of,
    wants_runner,
    with_resume,
    write_handoff,
    write_overlay,
)
from wrapper.monitor import Info, Monitor
from wrapper.normalize import strip_ansi
from wrapper.provision import child_env
from wrapper.recorder import Recorder, prune
from wrapper.replay import describe_command
from wrapper.rundir import RunDir, clean_stale
from wrapper.settings import Settings

Approver = Callable[[Question], Awaitable[Answer]]
CHILD_AGENT = "child"
# what the bridge puts in the environment of the child and every tool it runs: never the socket or token
SECRET_ENV = ("BREAKER_SOCKET", "BREAKER_TOKEN")
BRIDGE_GONE_GRACE_S = 3.0  # how long a child may take to exit after its bridge closed before it is news


async def deny_all(_: Question) -> Answer:
    """The fail-closed approver: every approval is declined."""
    return "deny"


async def allow_all(_: Question) -> Answer:
    """Approve everything once (for scripted runs that opt in)."""
    return "allow-once"


class Session(SessionControls):
    """The one object the UI and the headless mode drive. Iterate it for `Item`s."""

    def __init__(
        self,
        argv: list[str],
        settings: Settings | None = None,
        approver: Approver = deny_all,
        cwd: str | None = None,
        env: dict[str, str] | None = None,
        recorder: Recorder | None = None,
        size: tuple[int, int] = (40, 160),
        runner: bool | None = None,
        label: str | None = None,
    ) -> None:
        if not argv:
            raise ValueError("no command given: use `breaker-tui -- dsh --profile dev` (or any command)")
        self.argv = list(argv)
        self.settings = settings or Settings()
        self.approver = approver
        self.cwd = cwd or os.getcwd()
        self.base_env = dict(os.environ if env is None else env)
        self.size = size
        self.monitor = Monitor(self.settings, Info(dsh=is_dsh(self.argv)))
        self.breaker = self.monitor.breaker
        self.info = self.monitor.info
        dsh_home = Path(self.base_env.get("DSH_HOME", Path.home() / ".dsh"))
        self.info.runner = runner if runner is not None else (self.info.dsh and wants_runner(self.argv, dsh_home))
        self.queue: asyncio.Queue[Item | None] = asyncio.Queue()
        self.channel: Channel | None = None
        self.child: Child | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._ready = asyncio.Event()
        self._exited = asyncio.Event()
        self._tasks: set[asyncio.Task[Any]] = set()
        self.turns_done = 0
        self._turn_end = asyncio.Event()
        self._closing = False
        self.generation = 0
        self.rundir: RunDir | None = None
        self.approvals = Approvals(self)
        self.guards = Guards(self)
        # last: a recording that fails at once reports through the queue above
        self.recorder = recorder
        if recorder is None and self.settings.wrapper.record:
            self.recorder = self._own_recorder(label)
        elif recorder is not None and recorder.on_error is None:
            recorder.on_error = self._recording_failed

    def _own_recorder(self, label: str | None) -> Recorder:
        w = self.settings.wrapper
        meta = {"argv": self.argv, "cwd": self.cwd, "config": self.settings.engine.model_dump(mode="json")}
        if label is None:
            label = (self.info.dsh and profile_of(self.argv)) or os.path.basename(self.argv[0])
        where = Path(w.recordings_dir) if w.recordings_dir else None
        rec = Recorder(None, meta, self._recording_failed, label=label, directory=where)
        prune(rec.path.parent, w.recordings_keep_days, w.recordings_keep, spare=rec.path)
        return rec

    def _recording_failed(self, text: str) -> None:
        """A recording write failed: say so at once; the file stays without its end marker."""
        self._emit(StatusItem("error", f"{text}; the recording is incomplete", {"recording": "incomplete"}))

    @property
    def capabilities(self) -> Capabilities:
        """What this harness can do: dsh through its bridge, or a plain command watched by its output."""
        return DSH if self.info.dsh else PLAIN

    # -- lifecycle ---------------------------------------------------------------------------
    async def start(self) -> None:
        """Open the channel (for dsh) and launch the child."""
        self._loop = asyncio.get_running_loop()
        if self.recorder and self.recorder.error:
            self._emit(StatusItem("warning", self.recorder.error))
        clean_stale()
        self.rundir = RunDir()
        self._spawn(self.guards.stall_loop())
        await self._launch(self.argv)

    async def _launch(self, argv: list[str]) -> None:
        self.generation += 1
        self._exited.clear()
        self._ready.clear()
        assert self.rundir is not None
        env = child_env({k: v for k, v in self.base_env.items() if k not in SECRET_ENV})
        tmp = str(self.rundir.fresh_tmp())
        env.update(TMPDIR=tmp, TMP=tmp, TEMP=tmp)
        run_argv = list(argv)
        if self.info.dsh:
            if self.channel is None:
                self.channel = Channel(
                    self._on_message,
                    self._on_notice,
                    self.settings.wrapper.max_line_bytes,
                    directory=self.rundir.path,
                    on_bad=self.guards.on_bad,
                )
                await self.channel.start()
            token = self.channel.new_launch()
            handoff = write_handoff(self.rundir.path, self.channel.path, token)
            bridge = BridgeSettings.of(
                self.settings.wrapper, self.info.runner, self.settings.engine.thinking.max_tokens, handoff
            )
            run_argv = build_argv(argv, write_overlay(self.rundir.path, bridge))
            self.info.bridge = "waiting"
        self._record("note", {"what": "launch", "argv": run_argv, "generation": self.generation})
        gen = self.generation
        self.child = Child(
            run_argv,
            env,
            self.cwd,
            on_output=lambda text: self._threadsafe(self._on_output, text),
            on_exit=lambda info: self._threadsafe(self._on_exit, info, gen),
            size=self.size,
        )
        try:
            self.child.start()
        except OSError as e:
            self.info.child = "exited"
            self._emit(StatusItem("error", f"could not start {argv[0]}: {e}"))
            self._exited.set()
            raise
        self.info.child = "running"
        self._emit(StatusItem("started", f"started {' '.join(argv)}", {"pid": self.child.pid}))
        if self.info.dsh:
            self._spawn(self._watch_bridge(gen))

    async def _watch_bridge(self, gen: int) -> None:
        assert self.channel is not None
        try:
            await asyncio.wait_for(self.channel.connected.wait(), self.settings.wrapper.bridge_connect_timeout_s)
        except TimeoutError:
            if gen == self.generation and not self._exited.is_set():
                self._emit(StatusItem("warning", "the dsh bridge has not connected; only the child's output is shown"))

    def _threadsafe(self, fn: Callable[..., Any], *args: Any) -> None:
        if self._loop is not None and not self._loop.is_closed():
            with contextlib.suppress(RuntimeError):
                self._loop.call_soon_threadsafe(fn, *args)

    def _spawn(self, coro: Awaitable[Any]) -> None:
        task = asyncio.ensure_future(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def _emit(self, item: Item) -> None:
        if isinstance(item, EngineItem) and isinstance(item.event, ev.TurnStart):
            self.guards.denials.turn_start(item.event.agent)
        if isinstance(item, VerdictItem) and self.guards.denials.verdict(item.agent, item.verdict.kind) is not None:
            self._spawn(self.guards.end_walled_turn(item.agent))
        if (
            isinstance(item, EngineItem)
            and isinstance(item.event, ev.TurnEnd)
            and item.event.agent in (self.info.session_id, "")
        ):
            self.turns_done += 1
            self._turn_end.set()
        self.queue.put_nowait(item)

    def _record(self, kind: str, body: dict[str, Any]) -> None:
        if self.recorder is not None:
            self.recorder.write(kind, body)

    async def items(self) -> AsyncIterator[Item]:
        """Everything that happens, in order, until the session is closed."""
        while True:
            item = await self.queue.get()
            if item is None:
                return
            yield item

    def __aiter__(self) -> AsyncIterator[Item]:
        return self.items()

    # -- child -----------------------------------------------------------------------------------
    def _on_output(self, text: str) -> None:
        self._record("child", {"text": text[:65536]})
        if self.info.dsh and "does not exist; create it with" in text:
            self._emit(
                StatusItem("error", "that dsh profile does not exist: `breaker-tui init-profile NAME` writes one")
            )
        self._emit(OutputItem(text))
        if not self.info.dsh:
            clean = strip_ansi(text)
            trip = self.breaker.feed(ev.OutputDelta(CHILD_AGENT, clean))
            if trip is not None:
                self._spawn(self._on_trip(trip))

    def _on_exit(self, info: ExitInfo, gen: int) -> None:
        self._spawn(self._finish_exit(info, gen))

    async def _finish_exit(self, info: ExitInfo, gen: int) -> None:
        # let the bridge's last lines arrive first: an "exited" line must not overtake them
        if self.channel is not None and self.channel.is_connected:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._bridge_gone(), 2.0)
        if gen != self.generation:
            return
        self.info.child = "exited"
        self.info.exit = info
        self.info.busy = False
        self.approvals.close_all("the child exited")
        self.guards.stalls.close_all()
        self._record("note", {"what": "exit", "code": info.code, "signal": info.signal, "sent": info.sent})
        self._emit(StatusItem("exited", info.describe(), {"code": info.code}))
        self._exited.set()

    async def _bridge_gone(self) -> None:
        while self.channel is not None and self.channel.is_connected:
            await asyncio.sleep(0.02)

    async def wait_exit(self, timeout: float | None = None) -> ExitInfo | None:
        """Wait until the child has exited (and its last events were delivered)."""
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._exited.wait(), timeout)
        exit_info: ExitInfo | None = self.info.exit
        return exit_info

    async def wait_ready(self, timeout: float = 60) -> bool:
        """Runner mode: wait until the persistent agent takes prompts."""
        try:
            await asyncio.wait_for(self._ready.wait(), timeout)
            return True
        except TimeoutError:
            return False

    # -- bridge messages -------------------------------------------------------------------------
    def _on_notice(self, kind: str, text: str) -> None:
        if kind == "bridge-lost":
            self.info.bridge = "lost"
            self._record("note", {"what": "bridge-lost"})
            self.approvals.close_all("the dsh bridge disconnected")
            self.guards.stalls.close_all()
            deliberate = self._closing or (self.child is not None and self.child.sent is not None)
            if not deliberate and self.info.child == "running" and self.child and self.child.running:
                self._spawn(self._bridge_lost(self.generation))
            return
        self._record("note", {"what": kind, "text": text})
        self._emit(StatusItem(kind, text))

    async def _bridge_lost(self, gen: int) -> None:
        """dsh closes its plugins before it exits: a bridge that goes away with its child is a normal
        end. Only one whose child is still running a moment later is news.
        """
        try:
            await asyncio.wait_for(self._exited.wait(), BRIDGE_GONE_GRACE_S)
        except TimeoutError:
            if gen == self.generation and self.child is not None and self.child.running:
                self._emit(StatusItem("warning", "the dsh bridge disconnected; tool calls now fail closed in dsh"))

    async def _on_message(self, msg: P.Inbound, raw: dict[str, Any]) -> None:
        """One bridge message: the monitor decides (`Monitor.handle`), the session carries it out."""
        if isinstance(msg, P.Hello):
            self._record("in", {k: v for k, v in raw.items() if k != "token"})
            if self.rundir is not None:  # the bridge deleted its hand-off; make sure of it
                for f in self.rundir.path.glob("handoff-*.json"):
                    f.unlink(missing_ok=True)
        else:
            self._record("in", raw)
            self.guards.activity(msg)
        try:
            r = self.monitor.handle(msg)
        except Exception as e:  # a message the engine cannot judge never crashes the monitor
            if isinstance(msg, P.VerdictRequest):  # and a call it cannot judge is not run (fail closed)
                why = f"breaker-tui could not judge this call ({type(e).__name__}), so it was not run (fail closed)."
                await self._send(P.Verdict(id=msg.id, kind="deny", message=why), {"callId": msg.callId, "error": True})
            self._emit(StatusItem("error", f"internal error on a {msg.t} message: {type(e).__name__}"))
            return
        if isinstance(msg, P.VerdictRequest) and r.items and isinstance(r.items[0], VerdictItem):
            v = r.items[0]
            self.guards.asked(msg.id, v.agent, v.call_id, v.tool)
        if r.reply is not None:
            await self._send(r.reply, r.record)
        for item in r.items:
            self._emit(item)
        for trip in r.trips:
            await self._on_trip(trip)
        if r.approval is not None:
            self.approvals.received(r.approval)
        if isinstance(msg, P.Closed):
            self.guards.closed(msg)
        if r.ready:
            self._ready.set()
            if self.recorder is not None and isinstance(msg, P.Ready) and msg.sessionId:
                self.recorder.name_for(msg.sessionId)

    async def _on_trip(self, trip: StreamTrip) -> None:
        cmd = self.monitor.trip_command(trip)
        sent = describe_command(cmd)
        if cmd is not None:
            if self.info.dsh:
                ok = self.channel is not None and await self.channel.send(cmd)
                if not ok:
                    sent = "abort could not be sent (bridge not connected)"
            elif self.child is not None:
                self.child.send_signal(signal.SIGINT)
                sent = "SIGINT to the child"
        self._record("out", {"t": "trip", **trip.to_dict(), "sent": sent})
        self._emit(TripItem(trip, sent))

    async def _send(self, out: P.Out, extra: dict[str, Any] | None = None) -> bool:
        ok = self.channel is not None and await self.channel.send(out)
        self._record("out", {**out.model_dump(exclude_none=True), **(extra or {}), "delivered": ok})
        return ok

    # -- actions ---------------------------------------------------------------------------------
    async def prompt(self, text: str, timeout: float = 60) -> bool:
        """Send a human message: to the runner's agent (dsh) or typed into the child (others)."""
        if not text.strip():
            return False
        if not self.info.dsh:
            if self.child:
                self.child.write(text + "\n")
            return True
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
        return self.child.send_signal(signal.SIGINT) if self.child else False

    async def kill(self) -> ExitInfo | None:
        """Stop the child: SIGINT, then SIGKILL after the grace period."""
        if self.child is None:
            return None
        info = await asyncio.to_thread(self.child.stop, self.settings.wrapper.kill_grace_s)
        await self.wait_exit(10)
        return info

    async def restart(self) -> bool:
        """Kill the child and start it again on the same session (`--resume <id>` for dsh runners)."""
        if self.child is not None and self.child.running:
            await self.kill()
        argv = self.argv
        if self.info.dsh and self.info.runner and self.info.session_id:
            argv = with_resume(self.argv, self.info.session_id)
            self._emit(StatusItem("notice", f"restarting on session {self.info.session_id}"))
        else:
            self._emit(StatusItem("notice", "restarting the command (this profile cannot resume a session)"))
        self.info.bridge = "waiting" if self.info.dsh else "none"
        await self._launch(argv)
        return True

    async def quit(self, code: int = 0) -> ExitInfo | None:
        """Ask dsh to exit; kill it if it does not."""
        if self.info.dsh and self.channel is not None and self.channel.is_connected:
            self._closing = True
            await self._send(P.Quit(code=code))
            info = await self.wait_exit(5)
            if info is not None:
                return info
        return await self.kill()

    async def close(self) -> None:
        """Stop everything: the child (if still running), the channel, the run directory, the recording."""
        self._closing = True
        if self.child is not None and self.child.running:
            await asyncio.to_thread(self.child.stop, min(self.settings.wrapper.kill_grace_s, 3.0))
        if self.channel is not None:
            await self.channel.close()
        for t in list(self._tasks):
            t.cancel()
        if self.rundir is not None:
            self.rundir.remove()
        if not self._exited.is_set() and self.child is not None and not self.child.running:
            # the exit report may have been cancelled above: whoever waits for the exit still gets it
            self.info.child = "exited"
            self.info.exit = self.child.exit
            self._record("note", {"what": "exit", "code": getattr(self.child.exit, "code", None)})
            self._exited.set()
        if self.recorder is not None:
            self.recorder.close()
        self.queue.put_nowait(None)

    async def shutdown(self, sig: signal.Signals) -> None:
        """A signal ends the run: say so, record it, then close (child group stopped, nothing left behind)."""
        self._record("note", {"what": "signal", "signal": sig.name})
        self._emit(StatusItem("notice", f"{sig.name} received: stopping the child and cleaning up"))
        await self.close()

    def shutdown_now(self) -> None:
        """No grace (a second signal): kill the child's group, remove the run directory, end the recording."""
        self._closing = True
        if self.child is not None and self.child.running:
            self.child.send_signal(signal.SIGKILL)
        if self.rundir is not None:
            self.rundir.remove()
        if self.recorder is not None:
            self.recorder.close()
