"""`PtySession`: a command under a pseudo-terminal, watched by the monitor: what the dsh and plain harnesses share.

The child runs under a pty (`wrapper.process.child`), in a private run directory with its own TMPDIR, recorded; its
output is shown and its exit reported exactly. Every process it starts is contained (`wrapper.process.contain`: a
cgroup leaf where one can be made, a subreaper always) and ended when the child exits, is killed or
restarted, and when the session closes; processes an earlier, dead session left are reported at start.

A harness subclasses this and fills in the hooks: how the command line is launched (`_prepare_launch`), what
the child's output means (`_on_child_output`), how a trip is acted on (`_act_on_trip`), and what prompt,
cancel and quit do.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
from collections.abc import Awaitable, Callable
from typing import Any

from engine import events as ev
from engine.breaker import StreamTrip
from wrapper.harness.base import Approver, SessionControls, deny_all, first_set
from wrapper.harness.capabilities import PLAIN, Capabilities
from wrapper.items import EngineItem, Item, OutputItem, StatusItem, TripItem
from wrapper.monitor import NOT_MONITORED, Info, Monitor, not_monitored_text
from wrapper.process.child import Child, ExitInfo
from wrapper.process.childenv import scrub
from wrapper.process.contain import MARKER_ENV, Containment, earlier_leftovers
from wrapper.process.rundir import RunDir, clean_stale
from wrapper.records.recorder import Recorder, session_recording
from wrapper.settings import Settings
from wrapper.toolchain import child_env
from wrapper.weakening import record_note

# what the bridge puts in the environment of the child and every tool it runs: never the socket or token
SECRET_ENV = ("BREAKER_SOCKET", "BREAKER_TOKEN")


class PtySession(SessionControls):
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
        self.monitor = self._make_monitor()
        self.breaker = self.monitor.breaker
        self.info = self.monitor.info
        self.queue: asyncio.Queue[Item | None] = asyncio.Queue()
        self.child: Child | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._ready = asyncio.Event()
        self._exited = asyncio.Event()
        self._tasks: set[asyncio.Task[Any]] = set()
        self.turns_done = 0
        self.turns_started = 0
        self._turn_end = asyncio.Event()
        self._closing = False
        self.generation = 0
        self.rundir: RunDir | None = None
        self.contain: Containment | None = None
        self._pass_fds: tuple[int, ...] = ()  # what the next launch inherits (set by `_prepare_launch`)
        self._label = label
        self._setup()
        # last: a recording that fails at once reports through the queue above
        self.recorder = recorder
        if recorder is None and self.settings.wrapper.record:
            self.recorder = self._own_recorder(label)
        elif recorder is not None and recorder.on_error is None:
            recorder.on_error = self._recording_failed

    # -- hooks a harness fills in -------------------------------------------------------------
    def _make_monitor(self) -> Monitor:
        return Monitor(self.settings, Info())

    def _setup(self) -> None:
        """Harness state made before the recorder (which may report through the queue at once)."""

    def _default_label(self) -> str:
        return os.path.basename(self.argv[0])

    async def _prepare_launch(self, argv: list[str]) -> list[str]:
        """The command line actually run for `argv` (a harness may add its own flags)."""
        return list(argv)

    async def _after_launch(self, gen: int) -> None:
        """Called once the child runs."""

    def _launched(self, pid: int | None) -> None:
        """Right after the spawn (no await in between): the child runs as `pid` (None: it could not start)."""

    def _on_child_output(self, text: str) -> None:
        """What the child's output means: shown, by default."""
        self._emit(OutputItem(text))

    async def _act_on_trip(self, trip: StreamTrip) -> str:
        """Act on a stream trip; what was done, as it reads in logs and banners."""
        if self.child is not None:
            self.child.send_signal(signal.SIGINT)
            return "SIGINT to the child"
        return "nothing (no child)"

    async def _before_exit_report(self) -> None:
        """Let the harness's last messages arrive before "exited" is shown."""

    def _on_child_gone(self) -> None:
        """The child exited: close what waits on it."""

    def _make_child(self, argv: list[str], env: dict[str, str], gen: int) -> Child:
        """The child process for one launch (a pty, by default)."""
        return Child(
            argv,
            env,
            self.cwd,
            on_output=lambda text: self._threadsafe(self._on_output, text),
            on_exit=lambda info: self._threadsafe(self._on_exit, info, gen),
            size=self.size,
            pass_fds=self._pass_fds,
            preexec=self.contain.preexec if self.contain is not None else None,
            echo=self.capabilities.input,  # what the person types to a command's input is seen where typed
        )

    @property
    def capabilities(self) -> Capabilities:
        """What this harness can do."""
        return PLAIN

    # -- the recording ---------------------------------------------------------------------------
    def _own_recorder(self, label: str | None) -> Recorder:
        w = self.settings.wrapper
        meta = {"argv": self.argv, "cwd": self.cwd, "config": self.settings.engine.model_dump(mode="json")}
        meta.update(record_note(self.settings))  # a loosened config is named in the recording too
        if label is None:
            label = self._default_label()
        return session_recording(w, meta, self._recording_failed, label)

    def _recording_failed(self, text: str) -> None:
        """A recording write failed: say so at once; the file stays without its end marker."""
        self._emit(StatusItem("error", f"{text}; the recording is incomplete", {"recording": "incomplete"}))

    # -- lifecycle ---------------------------------------------------------------------------
    async def start(self) -> None:
        """Launch the child in a fresh run directory."""
        self._loop = asyncio.get_running_loop()
        if self.recorder and self.recorder.error:
            self._emit(StatusItem("warning", self.recorder.error))
        clean_stale()
        for left in earlier_leftovers():
            self._emit(StatusItem("warning", f"ended a process an earlier breaker-tui session left: {left.describe()}"))
        self.rundir = RunDir()
        self.contain = Containment.create(self.rundir.path.name)
        await self._started()
        await self._launch(self.argv)

    async def _started(self) -> None:
        """Called once the run directory exists, before the first launch."""

    async def _launch(self, argv: list[str]) -> None:
        self.generation += 1
        self.info.new_child()
        self._exited.clear()
        self._ready.clear()
        assert self.rundir is not None and self.contain is not None
        env = child_env(self._harness_env())
        if self.rundir.ensure():
            self._emit(
                StatusItem("warning", f"the run directory {self.rundir.path} was gone or replaced; made it again")
            )
        tmp = str(self.rundir.fresh_tmp())
        env.update(TMPDIR=tmp, TMP=tmp, TEMP=tmp)
        env[MARKER_ENV] = self.contain.marker
        self._pass_fds = ()
        run_argv = await self._prepare_launch(argv)
        self._record("note", {"what": "launch", "argv": run_argv, "generation": self.generation})
        self.child = self._make_child(run_argv, env, self.generation)
        try:
            self.child.start()
        except OSError as e:
            self._launched(None)
            self.info.child = "exited"
            self._emit(StatusItem("error", f"could not start {argv[0]}: {e}"))
            self._exited.set()
            raise
        assert self.child.pid is not None
        self.contain.launched(self.child.pid)
        self._launched(self.child.pid)
        self.info.child = "running"
        self._emit(StatusItem("started", f"started {' '.join(argv)}", {"pid": self.child.pid}))
        await self._after_launch(self.generation)

    def _harness_env(self) -> dict[str, str]:
        """The person's environment for the child: a harness with a verdict path never gets a loader or
        multiplexer variable (`wrapper.process.childenv`); what was removed is said once, at the first launch.
        """
        env = {k: v for k, v in self.base_env.items() if k not in SECRET_ENV}
        if self.capabilities is PLAIN:
            return env
        scrubbed = scrub(env)
        line = scrubbed.describe()
        if line and self.generation == 1:
            self._record("note", {"what": "env-removed", "names": [n for n, _ in scrubbed.removed]})
            self._emit(StatusItem("warning", line))
        return scrubbed.env

    def _threadsafe(self, fn: Callable[..., Any], *args: Any) -> None:
        if self._loop is not None and not self._loop.is_closed():
            with contextlib.suppress(RuntimeError):
                self._loop.call_soon_threadsafe(fn, *args)

    def _spawn(self, coro: Awaitable[Any]) -> None:
        task = asyncio.ensure_future(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def _emit(self, item: Item) -> None:
        main = isinstance(item, EngineItem) and item.event.agent in (self.info.session_id, "")
        event = item.event if main and isinstance(item, EngineItem) else None  # the main agent's turns only
        if isinstance(event, ev.TurnStart):
            self.turns_started += 1
        elif isinstance(event, ev.TurnEnd):
            self.turns_done += 1
            self._turn_end.set()
        self.queue.put_nowait(item)

    def _record(self, kind: str, body: dict[str, Any]) -> None:
        if self.recorder is not None:
            self.recorder.write(kind, body)

    # -- child -----------------------------------------------------------------------------------
    def _on_output(self, text: str) -> None:
        self._record("child", {"text": text[:65536]})
        self._on_child_output(text)

    def _on_exit(self, info: ExitInfo, gen: int) -> None:
        self._spawn(self._finish_exit(info, gen))

    async def _finish_exit(self, info: ExitInfo, gen: int) -> None:
        await self._before_exit_report()
        if gen != self.generation:
            return
        self.info.child = "exited"
        self.info.exit = info
        self.info.busy = False
        self._on_child_gone()
        self._sweep("the child exited")
        self._record("note", {"what": "exit", "code": info.code, "signal": info.signal, "sent": info.sent})
        self._emit(StatusItem("exited", info.describe(), {"code": info.code}))
        self._exited.set()

    async def wait_exit(self, timeout: float | None = None) -> ExitInfo | None:
        """Wait until the child has exited (and its last events were delivered)."""
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._exited.wait(), timeout)
        exit_info: ExitInfo | None = self.info.exit
        return exit_info

    async def wait_ready(self, timeout: float = 60) -> bool:
        """Wait until the child takes prompts (False at once when it exited first: a stopped session never will)."""
        await first_set(self._ready, self._exited, timeout=timeout)
        return self._ready.is_set()

    async def _on_trip(self, trip: StreamTrip) -> None:
        sent = await self._act_on_trip(trip)
        self._record("out", {"t": "trip", **trip.to_dict(), "sent": sent})
        self._emit(TripItem(trip, sent))

    def _sweep(self, why: str) -> None:
        """End every process the child's tools left (the child itself has exited); say what was ended."""
        if self.contain is None:
            return
        killed = self.contain.sweep()
        if killed:
            self._record("note", {"what": "swept", "why": why, "pids": [p for p, _ in killed]})
            shown = ", ".join(f"{p} ({c[:40] or '?'})" for p, c in killed[:5])
            more = f" and {len(killed) - 5} more" if len(killed) > 5 else ""
            self._emit(StatusItem("notice", f"{why}: ended {len(killed)} process(es) its tools left: {shown}{more}"))

    def _not_monitored(self, why: str, ran: bool = True) -> None:
        """The verdict path is absent or broken: stop the child's group at once (no grace for calls to run
        in), and say so on every surface. The first reason is the one kept. `ran`: whether calls may have
        run unvetted before the stop (then the run's end says NOT MONITORED even after a restart).
        """
        if self.info.unmonitored:
            return
        self.info.lost(why, ran)
        self.info.bridge = "lost" if self.info.bridge != "none" else "none"
        self._record("note", {"what": "not-monitored", "why": why, "text": f"{NOT_MONITORED}: {why}"})
        self._emit(StatusItem("error", not_monitored_text(why), {"not_monitored": why}))
        self._closing = True
        self._spawn(self._stop_unmonitored())

    async def _stop_unmonitored(self) -> None:
        if self.child is not None and self.child.running:
            await asyncio.to_thread(self.child.stop, 0.0, signal.SIGKILL)
            await self.wait_exit(10)
        self._sweep("the session was not monitored")

    # -- actions ---------------------------------------------------------------------------------
    async def prompt(self, text: str, timeout: float = 60) -> bool:
        """Send a human message: typed into the child."""
        if not text.strip():
            return False
        if self.child:
            self.child.write(text + "\n")
        return True

    async def cancel(self) -> bool:
        """Interrupt the child (SIGINT)."""
        return self.child.send_signal(signal.SIGINT) if self.child else False

    async def kill(self) -> ExitInfo | None:
        """Stop the child: SIGINT, then SIGKILL after the grace period."""
        if self.child is None:
            return None
        info = await asyncio.to_thread(self.child.stop, self.settings.wrapper.kill_grace_s)
        await self.wait_exit(10)
        self._sweep("the child was stopped")
        return info

    async def restart(self) -> bool:
        """Kill the child and start the command again."""
        if self.child is not None and self.child.running:
            await self.kill()
        # a child stopped as not monitored (or after an alarm) left the session stopping: the new one is watched
        self._closing = False
        argv = self._restart_argv()
        await self._launch(argv)
        return True

    def _restart_argv(self) -> list[str]:
        self._emit(StatusItem("notice", "restarting the command (this profile cannot resume a session)"))
        return self.argv

    async def quit(self, code: int = 0) -> ExitInfo | None:
        """End the child."""
        return await self.kill()

    async def _close_harness(self) -> None:
        """Close what the harness opened beside the child."""

    async def close(self) -> None:
        """Stop everything: the child (if still running), the channel, the run directory, the recording."""
        self._closing = True
        if self.child is not None and self.child.running:
            await asyncio.to_thread(self.child.stop, min(self.settings.wrapper.kill_grace_s, 3.0))
        await self._close_harness()
        for t in list(self._tasks):
            t.cancel()
        if self.contain is not None:
            killed = await asyncio.to_thread(self.contain.close)
            if killed:
                self._record("note", {"what": "swept", "why": "close", "pids": [p for p, _ in killed]})
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
            self.child.wait(2)
        if self.contain is not None:
            self.contain.close()
        if self.rundir is not None:
            self.rundir.remove()
        if self.recorder is not None:
            self.recorder.close()
