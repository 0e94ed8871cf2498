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
import signal
import sys
import time
from pathlib import Path
from typing import IO

from engine.errors import ConfigError
from wrapper.hooks.agents import AGENTS, MAX_PAYLOAD, answer
from wrapper.hooks.metrics import Metrics, MetricsError, parse_address
from wrapper.hooks.otlp import OtlpError, Spans
from wrapper.hooks.rundir import LOCK, PID, SOCKET, RunDirError, private_dir
from wrapper.hooks.sessions import Sessions
from wrapper.settings import Settings

IDLE_EXIT_S = 3600.0
HEADER_LIMIT = 4096
READ_TIMEOUT_S = 30.0  # a client that sends nothing is dropped


class Server:
    """Accepts hook connections and answers each from `Sessions`."""

    def __init__(self, sessions: Sessions, idle_exit_s: float = IDLE_EXIT_S, metrics: Metrics | None = None) -> None:
        self.sessions = sessions
        self.metrics = metrics
        self.idle_exit_s = idle_exit_s
        self.stop = asyncio.Event()
        self._activity = asyncio.Event()

    async def connection(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self._activity.set()
        t0 = time.monotonic()
        head: dict[str, object] = {}
        try:
            reply = await asyncio.wait_for(self._one(reader, head), READ_TIMEOUT_S)
        except TimeoutError:
            reply = {"error": f"no complete payload within {READ_TIMEOUT_S:g} s"}
        except (ValueError, OSError) as e:
            reply = {"error": f"a bad request: {e}"}
        with contextlib.suppress(OSError, ConnectionError):
            writer.write(encode(head, reply))
            await writer.drain()
            writer.close()
        if self.metrics is not None and "sessions" not in reply:
            self.metrics.observe(str(head.get("agent") or "unknown"), reply, time.monotonic() - t0)
            self.metrics.sessions(len(self.sessions.live))

    async def _one(self, reader: asyncio.StreamReader, head: dict[str, object]) -> dict[str, object]:
        header = await reader.readline()
        try:
            head.update(json.loads(header))
            if head.get("op") == "list":  # `watch` asks for every live session
                return {"sessions": self.sessions.listing()}
            agent = str(head["agent"])
        except (ValueError, KeyError, TypeError):
            return {"error": "the request does not start with a header line naming the agent"}
        chunks: list[bytes] = []
        size = 0
        while chunk := await reader.read(1 << 20):
            size += len(chunk)
            if size > MAX_PAYLOAD:
                return {"error": f"the payload is over the {MAX_PAYLOAD:,}-byte limit"}
            chunks.append(chunk)
        try:
            return self.sessions.handle(agent, b"".join(chunks))
        except Exception as e:  # a bug must cost one answer, never the server and its other sessions
            return {"error": f"breaker-tui serve failed on this payload: {type(e).__name__}: {e}"}

    async def idle_watch(self) -> None:
        while not self.stop.is_set():
            self._activity.clear()
            try:
                await asyncio.wait_for(self._activity.wait(), self.idle_exit_s)
            except TimeoutError:
                self.stop.set()


def encode(head: dict[str, object], reply: dict[str, object]) -> bytes:
    """The answer's bytes: for a hook that asked (`v` >= 2), `B2 KIND` then its stdout in the agent's format
    (the hook then needs no `json`); for an older one, one JSON line.
    """
    agent = str(head.get("agent"))
    v = head.get("v")
    if not isinstance(v, int) or v < 2 or agent not in AGENTS:
        return json.dumps(reply).encode() + b"\n"
    kind = reply.get("kind")
    if kind == "recorded":
        return b"B2 recorded\n"
    if kind not in ("allow", "deny", "ask"):
        return b"B2 error\n" + str(reply.get("error") or f"an answer without a verdict: {reply}").encode()
    out, _ = answer(agent, kind, str(reply.get("reason") or ""))
    return f"B2 {kind}\n{out}".encode()


async def serve(sessions: Sessions, sock: Path, idle_exit_s: float, metrics: Metrics | None = None) -> None:
    """Listen on `sock` (0600) until stopped."""
    srv = Server(sessions, idle_exit_s, metrics)
    with contextlib.suppress(FileNotFoundError):
        sock.unlink()  # a stale socket of a dead server (we hold the lock, so no live one owns it)
    old = os.umask(0o177)
    try:
        server = await asyncio.start_unix_server(srv.connection, path=os.fspath(sock), limit=HEADER_LIMIT)
    finally:
        os.umask(old)
    os.chmod(sock, 0o600)
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


def main(argv: list[str] | None = None) -> int:
    """`breaker-tui serve [--config FILE] [--idle-exit S]`."""
    p = argparse.ArgumentParser(
        prog="breaker-tui serve",
        description="The per-user hook server `breaker-tui hook` asks (started on demand; one per user).",
    )
    p.add_argument("--config", type=Path, help="the breaker-tui config file (default: the usual one)")
    p.add_argument("--idle-exit", type=float, default=IDLE_EXIT_S, metavar="S", help="stop after S s with no call")
    p.add_argument(
        "--metrics",
        metavar="[HOST:]PORT",
        help="serve Prometheus metrics on HOST:PORT (default host 127.0.0.1; needs the [metrics] extra)",
    )
    p.add_argument(
        "--otlp", metavar="URL", help="send a span per tool call to this OTLP/HTTP traces URL ([otlp] extra)"
    )
    a = p.parse_args(argv)
    try:
        spans = Spans(a.otlp) if a.otlp else None
        metrics = start_metrics(a.metrics) if a.metrics else None
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
        try:
            sessions = Sessions(load_settings(a.config), spans)
        except ConfigError as e:
            print(f"breaker-tui serve: bad config: {e}", file=sys.stderr)
            return 2
        (d / PID).write_text(f"{os.getpid()}\n")
        print(f"breaker-tui serve: listening on {d / SOCKET} (pid {os.getpid()})", file=sys.stderr, flush=True)
        try:
            asyncio.run(serve(sessions, d / SOCKET, a.idle_exit, metrics))
        finally:
            with contextlib.suppress(OSError):
                (d / PID).unlink()
    return 0


if __name__ == "__main__":
    sys.exit(main())
