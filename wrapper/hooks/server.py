"""`breaker-tui serve`: the per-user hook server, one engine per agent session, on an owner-only unix socket.

One server per user: a lock file in the private run folder makes a second one (two hooks starting it at
once) exit at once. Each connection is one payload (a header line, the payload, end of input) and one
JSON answer line. It stops after `idle_exit_s` with no payload, or on SIGTERM/SIGINT, and then ends
every session's recording and removes its socket.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import fcntl
import json
import os
import select
import signal
import socket
import struct
import sys
import time
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import IO, Any

from engine.errors import ConfigError
from wrapper.hooks.agents import AGENTS, MAX_PAYLOAD, answer
from wrapper.hooks.asks import Answer, Ask, Asks
from wrapper.hooks.metrics import Metrics, MetricsError, parse_address
from wrapper.hooks.otlp import OtlpError, Spans
from wrapper.hooks.rundir import LOCK, PID, SOCKET, RunDirError, private_dir
from wrapper.hooks.sessions import Sessions
from wrapper.settings import Settings

IDLE_EXIT_S = 3600.0
HEADER_LIMIT = 4096
READ_TIMEOUT_S = 30.0  # a client that sends nothing is dropped
HANGUP_POLL_S = 0.25  # how often a waiting ask looks whether its hook is still there


class Server:
    """Accepts hook connections and answers each from `Sessions`; holds asks for the watches (`Asks`)."""

    def __init__(
        self,
        sessions: Sessions,
        idle_exit_s: float = IDLE_EXIT_S,
        metrics: Metrics | None = None,
        asks: Asks | None = None,
    ) -> None:
        self.sessions = sessions
        self.metrics = metrics
        self.asks = asks if asks is not None else Asks()
        self.idle_exit_s = idle_exit_s
        self.stop = asyncio.Event()
        self._activity = asyncio.Event()

    async def connection(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self._activity.set()
        t0 = time.monotonic()
        head: dict[str, object] = {}
        try:
            reply = await asyncio.wait_for(self._header(reader, head), READ_TIMEOUT_S)
            if reply is None and head.get("op") == "watch":
                await self.watch(reader, writer)
                return
            if reply is None:
                reply = await self._one(reader, writer, head)
        except TimeoutError:
            reply = {"error": f"no complete payload within {READ_TIMEOUT_S:g} s"}
        except (ValueError, OSError) as e:
            reply = {"error": f"a bad request: {e}"}
        with contextlib.suppress(OSError, ConnectionError):
            writer.write(encode(head, reply))
            await writer.drain()
            writer.close()
        if self.metrics is not None and not head.get("op"):
            waited = head.get("waited")  # a person's time to answer is not the server's latency
            waited = waited if isinstance(waited, float) else 0.0
            self.metrics.observe(str(head.get("agent") or "unknown"), reply, time.monotonic() - t0 - waited)
            self.metrics.sessions(len(self.sessions.live))

    async def _header(self, reader: asyncio.StreamReader, head: dict[str, object]) -> dict[str, object] | None:
        """Reads the header line into `head`; an answer when it is all the request (an op, or a bad header)."""
        try:
            head.update(json.loads(await reader.readline()))
        except (ValueError, TypeError):
            return {"error": "the request does not start with a header line naming the agent"}
        op = head.get("op")
        if op == "list":  # `watch` asks for every live session
            return {"sessions": self.sessions.listing()}
        if op == "status":  # `hooks status` and `doctor`: who can answer the asks
            watches, waiting = self.asks.watches, len(self.asks.pending)
            return {"status": {"sessions": len(self.sessions.live), "watches": watches, "asks": waiting}}
        if op == "detail":  # `watch` asks for one session's scores, window and timeline
            return self.sessions.detail(str(head.get("agent")), str(head.get("session")))
        if op is None and not isinstance(head.get("agent"), str):
            return {"error": "the request does not start with a header line naming the agent"}
        if op not in (None, "watch"):
            return {"error": f"unknown op {op!r}"}
        return None

    async def _one(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, head: dict[str, object]
    ) -> dict[str, object]:
        agent = str(head["agent"])
        try:
            raw = await asyncio.wait_for(self._payload(reader), READ_TIMEOUT_S)
        except OverflowError:
            return {"error": f"the payload is over the {MAX_PAYLOAD:,}-byte limit"}
        try:
            reply = self.sessions.handle(agent, raw)
            if reply.get("kind") == "ask":
                t0 = time.monotonic()
                reply = await self.ask(agent, reply, lambda: hung_up(writer))
                head["waited"] = time.monotonic() - t0
            return reply
        except Exception as e:  # a bug must cost one answer, never the server and its other sessions
            return {"error": f"breaker-tui serve failed on this payload: {type(e).__name__}: {e}"}

    @staticmethod
    async def _payload(reader: asyncio.StreamReader) -> bytes:
        chunks: list[bytes] = []
        size = 0
        while chunk := await reader.read(1 << 20):
            size += len(chunk)
            if size > MAX_PAYLOAD:
                raise OverflowError
            chunks.append(chunk)
        return b"".join(chunks)

    async def ask(
        self, agent: str, reply: dict[str, object], gone: Callable[[], Coroutine[Any, Any, None]] | None = None
    ) -> dict[str, object]:
        """An ask goes to the connected watches; the first answer (or none within the bound) settles it.

        With no watch connected there is no one to wait for: Claude gets its own prompt, the others a refusal.
        When the hook that asked is `gone` first (the person interrupted the agent's call), the ask leaves
        the watches: the call will not run, whatever anyone answers.
        """
        session, call_id = str(reply["session"]), str(reply["callId"])
        if not self.asks.watched:
            why = "no `breaker-tui watch` was running to answer it; start `breaker-tui watch` to answer asks"
            return self.sessions.settle(agent, session, call_id, None, why)
        question = Ask(
            agent, session, call_id, str(reply.get("tool")), reply.get("args"), str(reply.get("message") or ""),
            str(reply.get("rule") or ""), str(reply.get("cwd") or ""),
        )  # fmt: skip
        answer, left = await self._held(question, gone)
        why = f"no one answered in {self.asks.wait_s:g} s; start `breaker-tui watch` to answer asks"
        if left:
            why = "the agent stopped waiting for it (its call was interrupted), so it did not run"
        if answer is None and not self.asks.watched:
            why = (
                "the `breaker-tui watch` showing it was closed before anyone answered; keep one running to answer asks"
            )
        return self.sessions.settle(agent, session, call_id, answer, "" if answer else why)

    async def _held(
        self, question: Ask, gone: Callable[[], Coroutine[Any, Any, None]] | None
    ) -> tuple[Answer | None, bool]:
        """The watches' answer, and whether the hook went away first (the answer is then None)."""
        held = asyncio.ensure_future(self.asks.hold(question))
        left = asyncio.ensure_future(gone() if gone is not None else asyncio.Event().wait())
        try:
            await asyncio.wait({held, left}, return_when=asyncio.FIRST_COMPLETED)
            if left.done() and not held.done():
                self.asks.withdraw(question.id)
            return await held, left.done() and held.result() is None
        finally:
            left.cancel()

    async def watch(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        """A watch's connection: every change of the pending asks is sent to it, its answers read from it.

        Answers count only from such a connection on this socket, and only when its peer is this user.
        """
        if not same_user(writer):
            writer.close()
            return
        with self.asks.watching():
            sender = asyncio.create_task(self._send_asks(writer))
            try:
                while line := await reader.readline():
                    self._answer(line)
            except (ValueError, OSError):
                pass
            finally:
                sender.cancel()
                with contextlib.suppress(OSError, ConnectionError):
                    writer.close()

    async def _send_asks(self, writer: asyncio.StreamWriter) -> None:
        with contextlib.suppress(OSError, ConnectionError):
            while True:
                seen = self.asks.version
                writer.write(json.dumps({"asks": self.asks.shown()}, default=str).encode() + b"\n")
                await writer.drain()
                await self.asks.changed(seen)

    def _answer(self, line: bytes) -> None:
        try:
            said = json.loads(line)
        except ValueError:
            return
        if isinstance(said, dict):
            self.asks.answer(str(said.get("answer")), str(said.get("say")))

    async def idle_watch(self) -> None:
        while not self.stop.is_set():
            self._activity.clear()
            try:
                await asyncio.wait_for(self._activity.wait(), self.idle_exit_s)
            except TimeoutError:
                if not self.asks.pending:
                    self.stop.set()


async def hung_up(writer: asyncio.StreamWriter) -> None:
    """Returns once the peer has closed its end of the connection (a hook killed while its call waits).

    The hook shuts its sending side once its payload is sent, so the stream reads as ended long before
    that; only a hang-up (POLLHUP: both sides shut) tells a hook gone from one still waiting. Asyncio has
    no event for it, so it is polled while an ask waits.
    """
    sock = writer.get_extra_info("socket")
    if sock is None:
        await asyncio.Event().wait()
    poller = select.poll()
    poller.register(sock.fileno(), select.POLLHUP)
    while not any(ev & (select.POLLHUP | select.POLLERR | select.POLLNVAL) for _, ev in poller.poll(0)):
        await asyncio.sleep(HANGUP_POLL_S)


def same_user(writer: asyncio.StreamWriter) -> bool:
    """Whether the peer of a unix connection runs as this user (where the system says; the socket is 0600 anyway)."""
    sock = writer.get_extra_info("socket")
    cred = getattr(socket, "SO_PEERCRED", None)
    if sock is None or cred is None:
        return True
    try:
        _, uid, _ = struct.unpack("3i", sock.getsockopt(socket.SOL_SOCKET, cred, struct.calcsize("3i")))
    except OSError:
        return False
    return bool(uid == os.getuid())


def encode(head: dict[str, object], reply: dict[str, object]) -> bytes:
    """The answer's bytes: for a hook that asked (`v` >= 2), `B2 KIND` then its stdout in the agent's format
    (the hook then needs no `json`); for an older one, one JSON line.
    """
    agent = str(head.get("agent"))
    v = head.get("v")
    if not isinstance(v, int) or v < 2 or agent not in AGENTS or head.get("op"):  # an op's answer is JSON
        return json.dumps(reply).encode() + b"\n"
    kind = reply.get("kind")
    if kind == "recorded":
        return b"B2 recorded\n"
    if kind not in ("allow", "deny", "ask"):
        return b"B2 error\n" + str(reply.get("error") or f"an answer without a verdict: {reply}").encode()
    out, _ = answer(agent, kind, str(reply.get("reason") or ""))
    return f"B2 {kind}\n{out}".encode()


async def serve(
    sessions: Sessions, sock: Path, idle_exit_s: float, metrics: Metrics | None = None, asks: Asks | None = None
) -> None:
    """Listen on `sock` (0600) until stopped."""
    srv = Server(sessions, idle_exit_s, metrics, asks)
    with contextlib.suppress(FileNotFoundError):
        sock.unlink()  # a stale socket of a dead server (we hold the lock, so no live one owns it)
    old = os.umask(0o177)
    try:
        server = await asyncio.start_unix_server(srv.connection, path=os.fspath(sock), limit=HEADER_LIMIT)
    finally:
        os.umask(old)
    os.chmod(sock, 0o600)
    # said once it is true: whoever waits for this line (a test, a script) may connect at once
    print(f"breaker-tui serve: listening on {sock} (pid {os.getpid()})", file=sys.stderr, flush=True)
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, srv.stop.set)
    watch = asyncio.create_task(srv.idle_watch())
    try:
        await srv.stop.wait()
    finally:
        watch.cancel()
        server.close()
        with contextlib.suppress(FileNotFoundError):
            sock.unlink()
        sessions.close()


def lock(d: Path) -> IO[bytes] | None:
    """The server's lock, held for its life; None when another server holds it."""
    f = open(d / LOCK, "ab")  # noqa: SIM115 (held open for the process's life)
    try:
        fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        f.close()
        return None
    return f


def load_settings(config: Path | None) -> Settings:
    """The person's settings, as a live session runs with them (a loosened value waits for `config accept`)."""
    from wrapper import settings as S
    from wrapper.paths import config_file
    from wrapper.weakening import hold_back

    return hold_back(S.load(config, must_exist=True) if config else S.load(config_file()))


def start_metrics(address: str) -> Metrics:
    """The metrics, served over HTTP at `address` ([HOST:]PORT), the URL said on stderr."""
    host, port = parse_address(address)
    m = Metrics()
    bound = m.start(host, port)
    shown = f"[{host}]" if ":" in host else host
    print(f"breaker-tui serve: metrics on http://{shown}:{bound}/metrics", file=sys.stderr, flush=True)
    return m


def configured_metrics(settings: Settings) -> Metrics | None:
    """The metrics `[hooks] metrics` asks for; a failure is said (in the log of a server a hook started), not fatal:
    a server that refused to start would leave every call unchecked for the sake of its counters.
    """
    address = settings.hooks.metrics
    if not address:
        return None
    try:
        return start_metrics(address)
    except MetricsError as e:
        print(f"breaker-tui serve: [hooks] metrics = {address!r}: {e}; serving without metrics", file=sys.stderr)
        return None


def main(argv: list[str] | None = None) -> int:
    """`breaker-tui serve [--config FILE] [--idle-exit S] [--metrics [HOST:]PORT] [--otlp URL]`."""
    p = argparse.ArgumentParser(
        prog="breaker-tui serve",
        description="The per-user hook server `breaker-tui hook` asks (started on demand; one per user).",
    )
    p.add_argument("--config", type=Path, help="the breaker-tui config file (default: the usual one)")
    p.add_argument("--idle-exit", type=float, default=IDLE_EXIT_S, metavar="S", help="stop after S s with no call")
    p.add_argument(
        "--metrics",
        metavar="[HOST:]PORT",
        help="serve Prometheus metrics on HOST:PORT (default host 127.0.0.1; needs the [metrics] extra; "
        "[hooks] metrics in the config does it for a server a hook starts)",
    )
    p.add_argument(
        "--otlp", metavar="URL", help="send a span per tool call to this OTLP/HTTP traces URL ([otlp] extra)"
    )
    a = p.parse_args(argv)
    try:
        spans = Spans(a.otlp) if a.otlp else None
        if a.metrics:
            parse_address(a.metrics)  # a bad address is said before anything starts
    except (MetricsError, OtlpError) as e:
        print(f"breaker-tui serve: {e}", file=sys.stderr)
        return 2
    try:
        d = private_dir()
    except (RunDirError, OSError) as e:
        print(f"breaker-tui serve: {e}", file=sys.stderr)
        return 3
    held = lock(d)
    if held is None:
        print(f"breaker-tui serve: already running (socket {d / SOCKET})", file=sys.stderr)
        return 0
    with held:
        return run_locked(a, d, spans)


def run_locked(a: argparse.Namespace, d: Path, spans: Spans | None) -> int:
    """The server's life once it holds the lock: its settings, its metrics, then serving until stopped."""
    try:
        settings = load_settings(a.config)
        sessions = Sessions(settings, spans)
    except ConfigError as e:
        print(f"breaker-tui serve: bad config: {e}", file=sys.stderr)
        return 2
    try:
        metrics = start_metrics(a.metrics) if a.metrics else configured_metrics(settings)
    except MetricsError as e:
        print(f"breaker-tui serve: {e}", file=sys.stderr)
        return 2
    asks = Asks(settings.hooks.ask_wait_s)
    (d / PID).write_text(f"{os.getpid()}\n")
    try:
        asyncio.run(serve(sessions, d / SOCKET, a.idle_exit, metrics, asks))
    finally:
        with contextlib.suppress(OSError):
            (d / PID).unlink()
    return 0


if __name__ == "__main__":
    sys.exit(main())
