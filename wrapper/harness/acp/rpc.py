"""JSON-RPC 2.0 over an ACP agent's stdin/stdout, with the agent in its own process group.

ACP agents are Node programs that start helpers (Codex's native binary outlives its wrapper's
SIGTERM), so the agent is started as the leader of a new process group and every stop signals the
whole group. Nothing the agent writes can raise here: a bad line is counted and reported.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
from collections.abc import Awaitable, Callable
from typing import Any

from wrapper.harness.acp.frames import BadFrame, LineSplitter, decode_frame
from wrapper.harness.acp.procs import Descent, end
from wrapper.process.proc import group_alive

OnRequest = Callable[[str, dict[str, Any], Any], Awaitable[None]]
OnNotify = Callable[[str, dict[str, Any]], Awaitable[None]]
OnFrame = Callable[[str, dict[str, Any]], None]
OnText = Callable[[str], None]


class RpcError(RuntimeError):
    """The agent answered a request with an error, or went away before answering."""

    def __init__(self, method: str, error: Any) -> None:
        self.method = method
        self.error = error
        msg = error.get("message") if isinstance(error, dict) else str(error)
        super().__init__(f"{method}: {msg}")


class AgentGone(RpcError):
    """The agent was not there to answer: it exited (or was ended) before the answer, or before the request."""


class AgentProcess:
    """One ACP agent process: send requests and notifications, dispatch what it sends."""

    def __init__(
        self,
        argv: list[str],
        env: dict[str, str],
        cwd: str,
        on_request: OnRequest,
        on_notify: OnNotify,
        on_frame: OnFrame,
        on_stderr: OnText,
        max_line_bytes: int = 8 << 20,
    ) -> None:
        self.argv = argv
        self.env = env
        self.cwd = cwd
        self.on_request = on_request
        self.on_notify = on_notify
        self.on_frame = on_frame
        self.on_stderr = on_stderr
        self.max_line_bytes = max_line_bytes
        self.proc: asyncio.subprocess.Process | None = None
        self.pgid: int | None = None
        self.sent_signal: str | None = None
        self.bad_lines = 0
        self._next_id = 1
        self._pending: dict[int, tuple[str, asyncio.Future[Any]]] = {}
        self._tasks: set[asyncio.Task[Any]] = set()
        self.exited = asyncio.Event()
        self.returncode: int | None = None
        self._drained = asyncio.Event()
        self.stopping = False  # we are ending it: a closed stdout is expected
        self.channel_closed = False  # it closed its stdout while alive (and was stopped for it)
        self.on_closed: Callable[[], None] | None = None
        self.descent: Descent | None = None

    @property
    def pid(self) -> int | None:
        """The agent's process id (also its process group id)."""
        return self.proc.pid if self.proc else None

    @property
    def running(self) -> bool:
        """Whether the agent process is still alive."""
        return self.proc is not None and self.proc.returncode is None

    async def start(self) -> None:
        """Launch the agent as the leader of a new process group."""
        self.proc = await asyncio.create_subprocess_exec(
            *self.argv,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            env=self.env,
            cwd=self.cwd,
            start_new_session=True,
            limit=self.max_line_bytes,
        )
        self.pgid = self.proc.pid
        self.descent = Descent(self.proc.pid)
        self._spawn(self._sample())
        self._spawn(self._read_stdout())
        self._spawn(self._read_stderr())
        self._spawn(self._wait())

    async def _sample(self, every: float = 0.5) -> None:
        """Remember the agent's descendants while it runs (a command in its own group included)."""
        while self.running and self.descent is not None:
            self.descent.sample()
            await asyncio.sleep(every)

    def end_left_by_turn(self) -> int:
        """After a cancelled turn: end what the turn started in a group of its own and left running."""
        if self.descent is None or self.pgid is None:
            return 0
        return end(self.descent.left_by_turn(self.pgid))

    def _spawn(self, coro: Awaitable[Any]) -> None:
        t = asyncio.ensure_future(coro)
        self._tasks.add(t)
        t.add_done_callback(self._tasks.discard)

    async def _wait(self) -> None:
        assert self.proc is not None
        self.returncode = await self.proc.wait()
        # a pipe may still be draining; give the readers a moment so the last frames come first
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._drained.wait(), 2.0)
        for method, fut in self._pending.values():
            if not fut.done():
                fut.set_exception(AgentGone(method, "the agent exited before answering"))
        self._pending.clear()
        self.exited.set()

    async def _read_stdout(self) -> None:
        assert self.proc is not None and self.proc.stdout is not None
        lines = LineSplitter(self.max_line_bytes)
        try:
            while True:
                chunk = await self.proc.stdout.read(65536)
                dropped = lines.dropped
                batch = lines.feed(chunk) if chunk else [t for t in (lines.tail(),) if t]
                if lines.dropped > dropped:
                    self.bad_lines += lines.dropped - dropped
                    self.on_stderr(
                        f"[breaker-tui] dropped an over-long line from the agent (> {self.max_line_bytes} bytes)\n"
                    )
                for line in batch:
                    await self._line(line)
                if not chunk:
                    break
        finally:
            self._drained.set()
        self._spawn(self._stdout_closed())

    async def _line(self, line: bytes) -> None:
        if not line.strip():
            return
        msg = decode_frame(line)
        if isinstance(msg, BadFrame):
            self.bad_lines += 1
            if msg.why == "not JSON":  # an agent's stray print: shown (bounded), it is not a frame
                text = line[:2000].decode("utf-8", "replace")
                more = f" … (+{len(line) - 2000} bytes)" if len(line) > 2000 else ""
                self.on_stderr(text + more + "\n")
            else:
                self.on_stderr(f"[breaker-tui] dropped a frame from the agent: {msg.why}\n")
            if msg.rid is not None and msg.method is not None:
                await self.respond_error(msg.rid, -32700, f"breaker-tui could not read this request: {msg.why}")
            return
        try:
            self.on_frame("a2c", msg)
            await self._dispatch(msg)
        except Exception as e:  # nothing in one frame may stop the reader
            self.bad_lines += 1
            self.on_stderr(f"[breaker-tui] error handling a frame from the agent: {type(e).__name__}\n")

    async def _stdout_closed(self) -> None:
        """The agent closed its stdout: if it stays alive it works unwatched, so it is stopped (fail closed)."""
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self.exited.wait(), 2.0)
        if self.exited.is_set() or not self.running or self.stopping:
            return
        self.channel_closed = True
        if self.on_closed is not None:
            self.on_closed()

    async def _read_stderr(self) -> None:
        assert self.proc is not None and self.proc.stderr is not None
        while True:
            chunk = await self.proc.stderr.read(65536)
            if not chunk:
                return
            self.on_stderr(chunk.decode("utf-8", "replace"))

    async def _dispatch(self, msg: dict[str, Any]) -> None:
        method = msg.get("method")
        params = msg.get("params") if isinstance(msg.get("params"), dict) else {}
        if isinstance(method, str) and "id" in msg:
            # the handler's decision runs in frame order; it spawns its own waits (a person's answer)
            await self._serve(method, params or {}, msg["id"])
        elif isinstance(method, str):
            try:
                await self.on_notify(method, params or {})
            except Exception as e:  # a handler bug must not stop the reader
                self.on_stderr(f"[breaker-tui] error handling {method}: {e!r}\n")
        elif "id" in msg:
            entry = self._pending.pop(msg["id"], None) if isinstance(msg["id"], int) else None
            if entry is None:
                return
            name, fut = entry
            if fut.done():
                return
            if "error" in msg:
                fut.set_exception(RpcError(name, msg["error"]))
            else:
                fut.set_result(msg.get("result"))

    async def _serve(self, method: str, params: dict[str, Any], rid: Any) -> None:
        try:
            await self.on_request(method, params, rid)
        except Exception as e:  # answer rather than leave the agent waiting
            await self.respond_error(rid, -32603, f"client error: {e!r}")

    async def _write(self, msg: dict[str, Any]) -> bool:
        if self.proc is None or self.proc.stdin is None or not self.running:
            return False
        self.on_frame("c2a", msg)
        try:
            self.proc.stdin.write(json.dumps(msg).encode() + b"\n")
            await self.proc.stdin.drain()
        except (BrokenPipeError, ConnectionResetError, RuntimeError):
            return False
        return True

    def request_future(self, method: str, params: dict[str, Any]) -> tuple[asyncio.Future[Any], Awaitable[bool]]:
        """Start a request; returns the future of its result and the write to await."""
        rid = self._next_id
        self._next_id += 1
        fut: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._pending[rid] = (method, fut)
        return fut, self._write({"jsonrpc": "2.0", "id": rid, "method": method, "params": params})

    async def request(self, method: str, params: dict[str, Any], timeout: float | None = None) -> Any:
        """Send a request and wait for its result (RpcError on an error answer or exit)."""
        fut, write = self.request_future(method, params)
        if not await write:
            fut.cancel()
            raise AgentGone(method, "the agent is not running")
        return await asyncio.wait_for(fut, timeout)

    async def notify(self, method: str, params: dict[str, Any]) -> bool:
        """Send a notification."""
        return await self._write({"jsonrpc": "2.0", "method": method, "params": params})

    async def respond(self, rid: Any, result: Any) -> bool:
        """Answer one of the agent's requests."""
        return await self._write({"jsonrpc": "2.0", "id": rid, "result": result})

    async def respond_error(self, rid: Any, code: int, message: str) -> bool:
        """Refuse one of the agent's requests."""
        return await self._write({"jsonrpc": "2.0", "id": rid, "error": {"code": code, "message": message}})

    def signal_group(self, sig: signal.Signals) -> bool:
        """Signal the agent's whole process group."""
        if self.pgid is None:
            return False
        self.sent_signal = sig.name
        try:
            os.killpg(self.pgid, sig)
        except (ProcessLookupError, PermissionError):
            return False
        return True

    async def stop(self, grace: float) -> int | None:
        """Close stdin, SIGTERM the group, SIGKILL it after `grace` seconds; then reap."""
        if self.proc is None:
            return None
        self.stopping = True
        # everything the agent started, wherever it went (Codex runs commands in sessions of their own)
        left = self.descent.everything() if self.descent is not None else []
        if self.running:
            if self.proc.stdin is not None:
                with contextlib.suppress(Exception):
                    self.proc.stdin.close()
            self.signal_group(signal.SIGTERM)
            try:
                await asyncio.wait_for(self.exited.wait(), grace)
            except TimeoutError:
                self.signal_group(signal.SIGKILL)
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self.exited.wait(), 5)
        end(left + (self.descent.everything() if self.descent is not None else []))
        # helpers that outlived the leader are in the same group: end them too, and wait until they are gone
        if self.pgid is not None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(self.pgid, signal.SIGKILL)
            loop = asyncio.get_running_loop()
            deadline = loop.time() + 3.0
            while group_alive(self.pgid) and loop.time() < deadline:
                await asyncio.sleep(0.02)
        return self.returncode

    def cancel_tasks(self) -> None:
        """Stop the readers (after the process is gone)."""
        for t in list(self._tasks):
            t.cancel()
