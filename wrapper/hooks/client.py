"""`breaker-tui hook AGENT`: the process an agent runs before and after every tool call.

It must start fast (it runs for every call), so it imports neither the engine nor Textual: it reads the
payload, asks the per-user `breaker-tui serve` over its unix socket (starting it when absent), and prints
the answer in the agent's own format. With no verdict it lets the call run and says why on stderr (every
agent does that for a failed hook), unless the hooks were installed `--fail-closed`: then it refuses.
"""

from __future__ import annotations

import contextlib
import json
import os
import socket
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, BinaryIO

from wrapper.hooks.agents import AFTER, MAX_PAYLOAD, BadPayload, answer, check_agent
from wrapper.hooks.rundir import LOG, RunDirError, private_dir, socket_path

if TYPE_CHECKING:
    import subprocess

VERDICT_TIMEOUT_S = 20.0  # below the agents' own hook timeout (30 s as installed): our answer comes first
START_TIMEOUT_S = 15.0  # for a server started on demand to listen
MAX_REPLY = 1 << 20


class NoVerdict(Exception):
    """The server gave no verdict: the message says why."""


class Outcome:
    """What the hook prints and how it exits (a plain class: `dataclasses` costs the hook milliseconds)."""

    __slots__ = ("code", "stderr", "stdout")

    def __init__(self, stdout: str, stderr: str, code: int) -> None:
        self.stdout, self.stderr, self.code = stdout, stderr, code


def run(agent: str, fail_closed: bool, stdin: BinaryIO, start: bool = True) -> Outcome:
    """Read the payload, get the verdict, and say it the agent's way."""
    try:
        check_agent(agent)
    except BadPayload as e:
        return Outcome("", f"breaker-tui hook: {e}\n", 2)
    raw = stdin.read(MAX_PAYLOAD + 1)
    try:
        if len(raw) > MAX_PAYLOAD:
            raise NoVerdict(f"the payload is over the {MAX_PAYLOAD:,}-byte limit")
        reply = ask_server(agent, raw, start)
    except NoVerdict as e:
        return no_verdict(agent, fail_closed, raw, str(e))
    except Exception as e:  # a bug here must not decide the call: the fail mode the person chose does
        return no_verdict(agent, fail_closed, raw, f"breaker-tui hook failed: {type(e).__name__}: {e}")
    kind = reply.get("kind")
    if kind == "recorded":  # a result: nothing to answer
        return Outcome("", "", 0)
    if kind not in ("allow", "deny", "ask"):
        return no_verdict(agent, fail_closed, raw, str(reply.get("error") or f"an answer without a verdict: {reply}"))
    out, code = answer(agent, kind, str(reply.get("reason") or ""))
    return Outcome(out + "\n" if out else "", "", code)


def no_verdict(agent: str, fail_closed: bool, raw: bytes, why: str) -> Outcome:
    """Allow (the agents' own default for a failed hook) and say so, or refuse when installed fail-closed."""
    if is_after(agent, raw):
        return Outcome("", f"breaker-tui hook: this result was not recorded: {why}\n", 0)
    if not fail_closed:
        note = f"breaker-tui hook: no verdict ({why}); the call runs unchecked (install --fail-closed to refuse)\n"
        return Outcome("", note, 0)
    reason = (
        f"breaker-tui could not check this call ({why}) and its hooks were installed fail-closed, so it is "
        "refused. Tell the user: `breaker-tui doctor` says what is wrong; `breaker-tui serve` starts the checker"
    )
    out, code = answer(agent, "deny", reason)
    return Outcome(out + "\n", f"breaker-tui hook: {why}; refused (fail-closed)\n", code)


def is_after(agent: str, raw: bytes) -> bool:
    """Whether a payload reports a result (nothing to refuse); a payload that cannot be read is not one."""
    try:
        p = json.loads(raw)
    except (ValueError, RecursionError):
        return False
    return isinstance(p, dict) and p.get("hook_event_name") in AFTER[agent]


def ask_server(agent: str, raw: bytes, start: bool = True) -> dict[str, object]:
    """One round trip: a header line, the payload, then the server's one-line JSON answer."""
    try:
        s = connect(start)
    except RunDirError as e:
        raise NoVerdict(str(e)) from None
    except OSError as e:
        raise NoVerdict(f"cannot reach breaker-tui serve at {socket_path()}: {e.strerror or e}") from None
    with s:
        s.settimeout(VERDICT_TIMEOUT_S)
        try:
            s.sendall(json.dumps({"v": 1, "agent": agent}).encode() + b"\n")
            s.sendall(raw)
            s.shutdown(socket.SHUT_WR)
            data = _read_reply(s)
        except TimeoutError:
            raise NoVerdict(f"breaker-tui serve did not answer within {VERDICT_TIMEOUT_S:g} s") from None
        except OSError as e:
            raise NoVerdict(f"the connection to breaker-tui serve failed: {e.strerror or e}") from None
    try:
        reply = json.loads(data)
    except ValueError:
        raise NoVerdict("breaker-tui serve answered something that is not JSON") from None
    if not isinstance(reply, dict):
        raise NoVerdict("breaker-tui serve answered something that is not a JSON object")
    return reply


def _read_reply(s: socket.socket) -> bytes:
    buf = b""
    while b"\n" not in buf and len(buf) < MAX_REPLY:
        chunk = s.recv(65536)
        if not chunk:
            break
        buf += chunk
    if not buf:
        raise NoVerdict("breaker-tui serve closed the connection without answering")
    return buf.split(b"\n", 1)[0]


def connect(start: bool = True) -> socket.socket:
    """A connection to the server; when none listens (and `start`), start one and wait until it does."""
    path = socket_path()
    try:
        return _connect(path)
    except (FileNotFoundError, ConnectionRefusedError):
        if not start:
            raise NoVerdict(f"breaker-tui serve is not running (no one listens on {path})") from None
    proc = spawn_server()
    deadline = time.monotonic() + START_TIMEOUT_S
    while True:
        try:
            return _connect(path)
        except (FileNotFoundError, ConnectionRefusedError):
            log = path.parent / LOG
            code = proc.poll()
            if code:  # it could not start (a bad config, say): say why now, not after the whole timeout
                raise NoVerdict(f"breaker-tui serve exited with status {code}: {_last_line(log)}") from None
            if time.monotonic() > deadline:
                raise NoVerdict(f"breaker-tui serve did not start within {START_TIMEOUT_S:g} s (see {log})") from None
            time.sleep(0.02)


def _last_line(log: Path) -> str:
    try:
        lines = log.read_bytes()[-4096:].decode("utf-8", "replace").strip().splitlines()
    except OSError:
        return f"see {log}"
    return lines[-1][:400] if lines else f"see {log}"


def _connect(path: Path) -> socket.socket:
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        s.connect(os.fspath(path))
    except OSError:
        s.close()
        raise
    return s


def spawn_server() -> subprocess.Popen[bytes]:
    """Start `breaker-tui serve` in its own session, detached; a second one started at once exits (its lock)."""
    import subprocess  # only when a server must be started: most hooks never need it

    d = private_dir()
    with open(d / LOG, "ab") as log:
        try:
            return subprocess.Popen(
                [sys.executable, "-m", "wrapper.hooks.server"],
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=log,
                start_new_session=True,
                close_fds=True,
                cwd=d,  # not the agent's project folder: a long-lived server must not hold it
            )
        except OSError as e:
            raise NoVerdict(f"cannot start breaker-tui serve: {e.strerror or e}") from None


def main(agent: str, fail_closed: bool) -> int:
    """`breaker-tui hook AGENT [--fail-closed]`."""
    o = run(agent, fail_closed, sys.stdin.buffer)
    with contextlib.suppress(OSError):
        if o.stdout:
            sys.stdout.write(o.stdout)
            sys.stdout.flush()
        if o.stderr:
            sys.stderr.write(o.stderr)
    return o.code
