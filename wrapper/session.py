"""`Session`: launches the child, runs the bridge channel, feeds the engine and acts on its answers."""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import signal
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from engine import events as ev
from engine.breaker import Breaker, StreamTrip
from wrapper import protocol as P
from wrapper.channel import Channel
from wrapper.child import Child, ExitInfo
from wrapper.items import (
    Answer,
    ApprovalItem,
    EngineItem,
    Item,
    OutputItem,
    Question,
    ResultItem,
    StatusItem,
    ToolDeltaItem,
    TripItem,
    VerdictItem,
)
from wrapper.launch import BridgeSettings, build_argv, is_dsh, wants_runner, with_resume, write_overlay
from wrapper.normalize import parse_args, to_engine, unpack
from wrapper.provision import child_env
from wrapper.recorder import Recorder
from wrapper.settings import Settings

Approver = Callable[[Question], Awaitable[Answer]]
_ANSI = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07]*\x07|\x1b[@-Z\\-_]|\r")
CHILD_AGENT = "child"


async def deny_all(_: Question) -> Answer:
    """The fail-closed approver: every approval is declined."""
    return "deny"


async def allow_all(_: Question) -> Answer:
    """Approve everything once (for scripted runs that opt in)."""
    return "allow-once"


@dataclass
class Info:
    """What the status line shows."""

    session_id: str = ""
    provider: str = ""
    model: str = ""
    turn: int = 0
    step: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    reasoning_tokens: int = 0
    child: str = "starting"  # starting, running, exited
    bridge: str = "none"  # none, waiting, connected, lost
    runner: bool = False
    dsh: bool = False
    exit: ExitInfo | None = None
    agents: list[str] = field(default_factory=list)
    busy: bool = False


class Session:
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
    ) -> None:
        if not argv:
            raise ValueError("no command given: use `breaker-tui -- dsh --profile dev` (or any command)")
        self.argv = list(argv)
        self.settings = settings or Settings()
        self.approver = approver
        self.cwd = cwd or os.getcwd()
        self.base_env = dict(os.environ if env is None else env)
        self.size = size
        self.breaker = Breaker(self.settings.engine)
        self.info = Info(dsh=is_dsh(self.argv))
        dsh_home = Path(self.base_env.get("DSH_HOME", Path.home() / ".dsh"))
        self.info.runner = runner if runner is not None else (self.info.dsh and wants_runner(self.argv, dsh_home))
        self.recorder = recorder
        if recorder is None and self.settings.wrapper.record:
            d = self.settings.wrapper.recordings_dir
            self.recorder = Recorder(Path(d) / f"session-{os.getpid()}-{id(self)}.jsonl" if d else None,
                                     {"argv": self.argv, "cwd": self.cwd})  # fmt: skip
        self.queue: asyncio.Queue[Item | None] = asyncio.Queue()
        self.channel: Channel | None = None
        self.child: Child | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._ready = asyncio.Event()
        self._exited = asyncio.Event()
        self._denied: set[str] = set()
        self._asked: dict[str, Any] = {}
        self._allow_turn: set[tuple[str, int]] = set()
        self._tasks: set[asyncio.Task[Any]] = set()
        self._tool_names: dict[str, str] = {}
        self._closing = False
        self.generation = 0

    # -- lifecycle ---------------------------------------------------------------------------
    async def start(self) -> None:
        """Open the channel (for dsh) and launch the child."""
        self._loop = asyncio.get_running_loop()
        if self.recorder and self.recorder.error:
            self._emit(StatusItem("warning", self.recorder.error))
        await self._launch(self.argv)

    async def _launch(self, argv: list[str]) -> None:
        self.generation += 1
        self._exited.clear()
        self._ready.clear()
        env = child_env(self.base_env)
        run_argv = list(argv)
        if self.info.dsh:
            if self.channel is None:
                self.channel = Channel(self._on_message, self._on_notice, self.settings.wrapper.max_line_bytes)
                await self.channel.start()
            w = self.settings.wrapper
            overlay = write_overlay(
                self.channel.dir,
                BridgeSettings(
                    runner=self.info.runner,
                    verdict_timeout_ms=int(w.verdict_timeout_s * 1000),
                    approval_timeout_ms=int(w.approval_timeout_s * 1000),
                    result_timeout_ms=int(w.result_timeout_s * 1000),
                    max_line_bytes=min(w.max_line_bytes, 1 << 20),
                    max_tokens=self.settings.engine.thinking.maxTokens,
                ),
            )
            run_argv = build_argv(argv, overlay)
            env["BREAKER_SOCKET"] = str(self.channel.path)
            env["BREAKER_TOKEN"] = self.channel.token
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
        self._emit(OutputItem(text))
        if not self.info.dsh:
            clean = _ANSI.sub("", text)
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
        return self.info.exit

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
            deliberate = self._closing or (self.child is not None and self.child.sent is not None)
            if not deliberate and self.info.child == "running" and self.child and self.child.running:
                self._emit(StatusItem("warning", "the dsh bridge disconnected; tool calls now fail closed in dsh"))
            return
        self._record("note", {"what": kind, "text": text})
        self._emit(StatusItem(kind, text))

    async def _on_message(self, msg: P.Inbound, raw: dict[str, Any]) -> None:
        if isinstance(msg, P.EventMsg):
            self._record("in", raw)
            self._on_event(msg)
            return
        if isinstance(msg, P.Hello):
            self.info.bridge = "connected"
            self._record("in", {k: v for k, v in raw.items() if k != "token"})
            self._emit(StatusItem("bridge", f"bridge connected (dsh pid {msg.pid})"))
            return
        self._record("in", raw)
        if isinstance(msg, P.VerdictRequest):
            await self._verdict(msg)
        elif isinstance(msg, P.ResultRequest):
            await self._result(msg)
        elif isinstance(msg, P.ApprovalRequest):
            self._spawn(self._approval(msg))
        elif isinstance(msg, P.RequestStart):
            self.breaker.request_start(msg.sessionId, msg.turn, msg.purpose)
            self._agent(msg.sessionId)
            if msg.purpose is None:
                self._emit(EngineItem(ev.RequestStart(msg.sessionId, msg.turn, msg.step, msg.purpose)))
        elif isinstance(msg, P.RequestErrorMsg):
            if msg.sessionId:
                self.breaker.request_error(msg.sessionId, msg.message, msg.code)
            if not msg.ours:
                self._emit(StatusItem("warning", f"model request failed: {msg.code}: {msg.message}"))
        elif isinstance(msg, P.Ready):
            self.info.session_id = msg.sessionId or self.info.session_id
            self.info.provider = msg.provider or ""
            self.info.model = msg.model or ""
            self._agent(msg.sessionId or "")
            self._ready.set()
            what = "resumed" if msg.resumed else "ready"
            self._emit(StatusItem("ready", f"session {msg.sessionId} {what} ({msg.model})", {"resumed": msg.resumed}))
        elif isinstance(msg, P.StatusMsg):
            if msg.sessionId == self.info.session_id or not self.info.session_id:
                self.info.busy = msg.status == "running"
            self._emit(StatusItem("agent-status", msg.status or "", {"agent": msg.sessionId}))
        elif isinstance(msg, P.AgentCreated):
            if msg.sessionId:
                self._agent(msg.sessionId)
                if not self.info.session_id and msg.depth == 0:
                    self.info.session_id = msg.sessionId
        elif isinstance(msg, P.AgentError):
            self._emit(StatusItem("warning", f"agent error: {msg.message}"))
        elif isinstance(msg, P.RunnerError):
            self._emit(StatusItem("error", f"the bridge runner failed: {msg.message}"))
        elif isinstance(msg, P.StreamAborted):
            self._emit(StatusItem("aborted", f"model stream aborted for {msg.sessionId}"))

    def _agent(self, agent: str) -> None:
        if agent and agent not in self.info.agents:
            self.info.agents.append(agent)

    def _on_event(self, msg: P.EventMsg) -> None:
        agent = msg.sessionId or "main"
        self._agent(agent)
        for e in unpack(msg.event):
            t = e.get("type")
            data = e.get("data") or {}
            if t == "assistant/chunk":
                chunk = data.get("chunk") or {}
                if chunk.get("type") == "tool-call-delta":
                    cid = str(chunk.get("id", ""))
                    if chunk.get("name"):
                        self._tool_names[cid] = str(chunk["name"])
                    self._emit(ToolDeltaItem(agent, cid, self._tool_names.get(cid, ""), str(chunk.get("argumentsDelta", ""))))
                    continue
            for engine_event in to_engine(agent, e):
                self._track(engine_event)
                trip = self.breaker.feed(engine_event)
                self._emit(EngineItem(engine_event))
                if trip is not None:
                    self._spawn(self._on_trip(trip))

    def _track(self, e: ev.Event) -> None:
        root = e.agent == self.info.session_id or not self.info.session_id
        if isinstance(e, ev.TurnStart) and root:
            self.info.turn = e.turn
            self.info.busy = True
        elif isinstance(e, ev.StepStart) and root:
            self.info.step = e.step
        elif isinstance(e, ev.Usage):
            self.info.input_tokens += e.input_tokens
            self.info.output_tokens += e.output_tokens
            self.info.reasoning_tokens += e.reasoning_tokens
        elif isinstance(e, ev.ToolCall):
            self._tool_names[e.call_id] = e.tool
        elif isinstance(e, ev.TurnEnd) and root:
            self.info.busy = False

    async def _on_trip(self, trip: StreamTrip) -> None:
        sent = "nothing (enforcement paused)"
        if trip.action in ("abort_retry", "abort"):
            if self.info.dsh and self.channel is not None:
                ok = await self.channel.send(
                    P.Abort(
                        sessionId=trip.agent,
                        retry=trip.action == "abort_retry",
                        thinkingOff=self.settings.engine.thinking.retryWithoutThinking,
                        message=trip.failure_message,
                    )
                )
                sent = ("abort, then retry with thinking off" if trip.action == "abort_retry" else "abort (terminal)")
                if not ok:
                    sent = "abort could not be sent (bridge not connected)"
            elif self.child is not None:
                self.child.send_signal(signal.SIGINT)
                sent = "SIGINT to the child"
        self._record("out", {"t": "trip", **trip.to_dict(), "sent": sent})
        self._emit(TripItem(trip, sent))

    async def _verdict(self, msg: P.VerdictRequest) -> None:
        agent = msg.sessionId or "main"
        call_id = msg.callId or msg.id
        args = parse_args(msg.args)
        v = self.breaker.check_tool(agent, call_id, msg.name, args)
        if v.kind == "deny":
            self._denied.add(call_id)
        elif v.kind == "ask":
            self._asked[call_id] = v
        out = P.Verdict(id=msg.id, kind=v.kind, message=v.message if v.kind != "allow" else "")
        await self._send(out, {"verdict": v.to_dict(), "callId": call_id, "sessionId": agent})
        self._emit(VerdictItem(agent, call_id, msg.name, args, v))

    async def _send(self, out: P.Out, extra: dict[str, Any] | None = None) -> bool:
        ok = self.channel is not None and await self.channel.send(out)
        self._record("out", {**out.model_dump(exclude_none=True), **(extra or {}), "delivered": ok})
        return ok

    async def _approval(self, msg: P.ApprovalRequest) -> None:
        agent = msg.sessionId or "main"
        call_id = msg.callId
        asked = self._asked.pop(call_id, None) if call_id else None
        tool_name, args = self.breaker.call_of(agent, call_id) if call_id else ("", None)
        q = Question(
            agent=agent,
            call_id=call_id,
            tool=msg.toolName or tool_name,
            args=args,
            reason=msg.reason or "",
            hits=asked.hits if asked else (),
            local=bool(asked and asked.local),
            from_breaker=asked is not None,
        )
        self._emit(ApprovalItem(q))
        key = (agent, self.info.turn)
        by = "operator"
        if key in self._allow_turn:
            answer: Answer = "allow-once"
            by = "allowed for the rest of the turn"
        else:
            try:
                answer = await self.approver(q)
            except Exception as e:  # an approver failure fails closed
                self._emit(StatusItem("error", f"the approver failed ({e!r}); declining"))
                answer = "deny"
        if answer == "allow-turn":
            self._allow_turn.add(key)
        deny_text: str | None = None
        if answer in ("allow-once", "allow-turn"):
            outcome = "allowed-once"
            if asked is not None and call_id:
                v = self.breaker.resolve_ask(agent, call_id, True)
                if v.kind == "deny":
                    deny_text = v.message
                    self._denied.add(call_id)
        else:
            outcome = "cancelled" if answer == "cancel-turn" else "rejected"
            if call_id:
                self._denied.add(call_id)
                if asked is not None:
                    self.breaker.resolve_ask(agent, call_id, False)
        await self._send(P.ApprovalResponse(id=msg.id, outcome=outcome, deny=deny_text),  # type: ignore[arg-type]
                         {"answer": answer, "callId": call_id, "sessionId": agent})  # fmt: skip
        if answer == "cancel-turn":
            await self.cancel()
        self._emit(ApprovalItem(q, answer, by))

    async def _result(self, msg: P.ResultRequest) -> None:
        agent = msg.sessionId or "main"
        call_id = msg.callId or msg.id
        dispatched = call_id not in self._denied
        self._denied.discard(call_id)
        rw = self.breaker.tool_result(
            agent, call_id, msg.name, parse_args(msg.args), msg.text, msg.isError, not msg.parent, dispatched
        )
        out = P.ResultResponse(id=msg.id, mode=rw.mode if rw else "keep", text=rw.text if rw else None)
        await self._send(out, {"callId": call_id, "sessionId": agent, "reason": rw.reason if rw else None})
        self._emit(ResultItem(agent, call_id, msg.name, msg.text, msg.isError, rw))

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
        agent = self.info.session_id
        self.breaker.feed(ev.UserMessage(agent, text, "user"))
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
        """Stop everything: the child (if still running), the channel, the recording."""
        self._closing = True
        if self.child is not None and self.child.running:
            await asyncio.to_thread(self.child.stop, min(self.settings.wrapper.kill_grace_s, 3.0))
        if self.channel is not None:
            await self.channel.close()
        for t in list(self._tasks):
            t.cancel()
        if self.recorder is not None:
            self.recorder.close()
        self.queue.put_nowait(None)

    def set_enforcing(self, on: bool) -> None:
        """Pause (observe only) or resume enforcement."""
        self.breaker.set_enforcing(on)
        self._record("note", {"what": "enforcing", "on": on})
        self._emit(StatusItem("notice", "enforcement resumed" if on else "enforcement paused: observing only"))

    def reset_windows(self) -> None:
        """Forget every agent's sliding window."""
        self.breaker.reset_windows()
        self._record("note", {"what": "reset-windows"})
        self._emit(StatusItem("notice", "sliding windows reset"))
