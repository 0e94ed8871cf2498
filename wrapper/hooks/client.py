"""`breaker-tui hook AGENT`: the process an agent runs before and after every tool call.

It must start fast (it runs for every call), so it imports neither the engine nor Textual, nor even
pathlib, typing or platformdirs: `hooks install` writes `PYTHON -I -S …/wrapper/hooks/client.py AGENT` into
the agent's config, which skips `breaker-tui`'s own command line and Python's `site` (`breaker-tui hook
AGENT` and `python -m wrapper.hooks.client AGENT` stay as aliases). `-I` also keeps the agent's project
folder and its PYTHON* variables out of the hook's imports. It reads
the payload, asks the per-user `breaker-tui serve` over its unix socket (starting it when absent), and
prints the answer in the agent's own format. With no verdict it lets the call run (every agent does that
for a failed hook) and says why in the agent's screen and on stderr, unless the hooks were installed
`--fail-closed`: then it refuses.
"""

from __future__ import annotations

import _socket  # `socket` imports enum and selectors: ~4x the cost of starting Python, on every call
import os
import sys
import time

if __name__ == "__main__" and not __package__:
    # Run as a file (`PYTHON -I -S …/wrapper/hooks/client.py`): without `site` (~10 ms saved on every
    # call) the package is not on the path, so its root goes there, after the standard library.
    sys.path.append(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))

from wrapper.hooks.agents import AFTER, AGENTS, MAX_PAYLOAD, BadPayload, answer, check_agent
from wrapper.hooks.rundir import LOG, RunDirError, private_dir, socket_name

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # holds `wrapper` and `engine`
TYPE_CHECKING = False  # not `typing`'s: importing typing costs this process milliseconds
if TYPE_CHECKING:
    import subprocess
    from typing import BinaryIO

HOOK_HELP = f"""usage: breaker-tui hook {{{",".join(AGENTS)}}} [--fail-closed]

The command an agent runs before and after every tool call (`breaker-tui hooks install AGENT` writes it
into the agent's config as `PYTHON -I -S …/wrapper/hooks/client.py AGENT`, the same command without
breaker-tui's start-up). It reads the agent's payload on stdin, asks `breaker-tui serve` (starting it
when absent) and answers in the agent's own format: nothing to allow, a refusal with its reason.
With no verdict the call runs and stderr says why; with --fail-closed it is refused.
--version says that the hook runs and which breaker-tui it is (`hooks status` and `doctor` run it)."""
VERDICT_TIMEOUT_S = 20.0  # below the agents' own hook timeout (30 s as installed): our answer comes first
START_TIMEOUT_S = 15.0  # for a server started on demand to listen
MAX_REPLY = 1 << 20
RENDERED = b"B2 "  # the start of a rendered answer (a JSON answer starts with `{`)


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
    if isinstance(reply.get("stdout"), str):  # the server said it the agent's way already
        out, code = str(reply["stdout"]), 0
    else:
        out, code = answer(agent, kind, str(reply.get("reason") or ""))
    return Outcome(out + "\n" if out else "", "", code)


def no_verdict(agent: str, fail_closed: bool, raw: bytes, why: str) -> Outcome:
    """Allow (the agents' own default for a failed hook) and say so, or refuse when installed fail-closed."""
    if is_after(agent, raw):
        return Outcome("", f"breaker-tui hook: this result was not recorded: {why}\n", 0)
    if not fail_closed:
        note = f"breaker-tui hook: no verdict ({why}); the call runs unchecked (install --fail-closed to refuse)\n"
        return Outcome(unchecked(why) + "\n", note, 0)
    reason = (
        f"breaker-tui could not check this call ({why}) and its hooks were installed fail-closed, so it is "
        "refused. Tell the user: `breaker-tui doctor` says what is wrong; `breaker-tui serve` starts the checker"
    )
    out, code = answer(agent, "deny", reason)
    return Outcome(out + "\n", f"breaker-tui hook: {why}; refused (fail-closed)\n", code)


def unchecked(why: str) -> str:
    """The hook's answer that lets the call run and tells the person, in the agent's own screen, that breaker-tui
    did not check it: the three agents show a hook's `systemMessage` to the person (not to the model), while
    the stderr of a hook that exits 0 is shown nowhere, so a server that cannot start went unnoticed.
    """
    import json  # only when there is no verdict: the hook's usual path never needs it

    said = f"breaker-tui did not check this call ({why}); it runs unchecked. `breaker-tui doctor` says what is wrong"
    return json.dumps({"systemMessage": said[:600]})


def is_after(agent: str, raw: bytes) -> bool:
    """Whether a payload reports a result (nothing to refuse); a payload that cannot be read is not one."""
    import json

    try:
        p = json.loads(raw)
    except (ValueError, RecursionError):
        return False
    return isinstance(p, dict) and p.get("hook_event_name") in AFTER[agent]


def ask_server(agent: str, raw: bytes, start: bool = True) -> dict[str, object]:
    """One round trip: a header line, the payload, then the server's answer.

    The header asks for the answer already in the agent's format (`RENDERED` then the verdict's kind on
    the first line, the hook's stdout after it), so this process never imports `json` (it costs more than
    the rest of the hook); a server started before that existed answers one JSON line, still understood.
    """
    try:
        s = connect(start)
    except RunDirError as e:
        raise NoVerdict(str(e)) from None
    except OSError as e:
        raise NoVerdict(f"cannot reach breaker-tui serve at {socket_name()}: {e.strerror or e}") from None
    s.settimeout(VERDICT_TIMEOUT_S)
    try:
        s.sendall(b'{"v": 2, "agent": "%s"}\n' % agent.encode())  # a known agent's name: nothing to escape
        s.sendall(raw)
        s.shutdown(_socket.SHUT_WR)
        data = _read_reply(s)
    except TimeoutError:
        raise NoVerdict(f"breaker-tui serve did not answer within {VERDICT_TIMEOUT_S:g} s") from None
    except OSError as e:
        raise NoVerdict(f"the connection to breaker-tui serve failed: {e.strerror or e}") from None
    finally:
        s.close()
    if data.startswith(RENDERED):
        first, _, body = data[len(RENDERED) :].partition(b"\n")
        said = body.decode("utf-8", "replace")
        return {"error": said} if first == b"error" else {"kind": first.decode("ascii", "replace"), "stdout": said}
    return _json_reply(data.split(b"\n", 1)[0])


def live_sessions() -> list[dict[str, object]]:
    """Every session the running server holds (for `watch`); NoVerdict says why there is no answer."""
    rows = server_op(b'{"v": 2, "op": "list"}').get("sessions")
    if not isinstance(rows, list):
        raise NoVerdict("breaker-tui serve does not list its sessions (an older server: stop it, a hook restarts it)")
    return [r for r in rows if isinstance(r, dict)]


def session_detail(agent: str, session: str) -> dict[str, object]:
    """One live session's scores, window and timeline (for `watch`'s panes); NoVerdict says why there are none."""
    import json

    reply = server_op(json.dumps({"v": 2, "op": "detail", "agent": agent, "session": session}).encode())
    if "error" in reply:
        raise NoVerdict(str(reply["error"]))
    return reply


def server_op(header: bytes) -> dict[str, object]:
    """One request that is its header line alone, to the running server (never started for it)."""
    try:
        s = connect(start=False)
    except OSError as e:
        raise NoVerdict(f"cannot reach breaker-tui serve at {socket_name()}: {e.strerror or e}") from None
    s.settimeout(VERDICT_TIMEOUT_S)
    try:
        s.sendall(header + b"\n")
        s.shutdown(_socket.SHUT_WR)
        data = _read_reply(s)
    except OSError as e:
        raise NoVerdict(f"the connection to breaker-tui serve failed: {e.strerror or e}") from None
    finally:
        s.close()
    return _json_reply(data.split(b"\n", 1)[0])


def _json_reply(line: bytes) -> dict[str, object]:
    import json

    try:
        reply = json.loads(line)
    except ValueError:
        raise NoVerdict("breaker-tui serve answered something that is not JSON") from None
    if not isinstance(reply, dict):
        raise NoVerdict("breaker-tui serve answered something that is not a JSON object")
    return reply


def _read_reply(s: _socket.socket) -> bytes:
    buf = b""
    while len(buf) < MAX_REPLY:
        chunk = s.recv(65536)
        if not chunk:
            break
        buf += chunk
    if not buf:
        raise NoVerdict("breaker-tui serve closed the connection without answering")
    return buf


def connect(start: bool = True) -> _socket.socket:
    """A connection to the server; when none listens (and `start`), start one and wait until it does."""
    path = socket_name()
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
            log = os.path.join(os.path.dirname(path), LOG)
            code = proc.poll()
            if code:  # it could not start (a bad config, say): say why now, not after the whole timeout
                raise NoVerdict(f"breaker-tui serve exited with status {code}: {_last_line(log)}") from None
            if time.monotonic() > deadline:
                raise NoVerdict(f"breaker-tui serve did not start within {START_TIMEOUT_S:g} s (see {log})") from None
            time.sleep(0.02)


def _last_line(log: str) -> str:
    try:
        with open(log, "rb") as f:
            lines = f.read()[-4096:].decode("utf-8", "replace").strip().splitlines()
    except OSError:
        return f"see {log}"
    return lines[-1][:400] if lines else f"see {log}"


def _connect(path: str) -> _socket.socket:
    s = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
    try:
        s.connect(path)
    except OSError:
        s.close()
        raise
    return s


SERVE = (
    "import sys\n"
    "if sys.argv[1] not in sys.path: sys.path.insert(0, sys.argv[1])\n"
    "from wrapper.hooks.server import main\n"  # `wrapper.hooks.server` as a word: `live` names the process by it
    "sys.exit(main([]))"
)
"""The server's start under `-I`: the package this hook's file belongs to, first on the path."""


def spawn_server() -> subprocess.Popen[bytes]:
    """Start `breaker-tui serve` in its own session, detached; a second one started at once exits (its lock).

    It runs `-I`, as the installed hook does: the agent's PYTHONPATH (a project's own `wrapper` or `engine`
    package, say) must not stand in for breaker-tui's, or the server would not start and no call be checked.
    """
    import subprocess  # only when a server must be started: most hooks never need it

    d = private_dir()
    with open(d / LOG, "ab") as log:
        try:
            return subprocess.Popen(
                [sys.executable, "-I", "-c", SERVE, ROOT],
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
    try:
        if o.stdout:
            sys.stdout.write(o.stdout)
            sys.stdout.flush()
        if o.stderr:
            sys.stderr.write(o.stderr)
    except OSError:  # the agent stopped reading: the exit status still says it
        pass
    return o.code


def version() -> str:
    """What `--version` prints: that the hook runs, with which Python and which breaker-tui package."""
    return f"breaker-tui hook: runs (python {sys.executable}, package in {ROOT})"


def cli(args: list[str]) -> int:
    """The hook's command line, parsed by hand (argparse alone costs the hook milliseconds)."""
    if "-h" in args or "--help" in args:
        print(HOOK_HELP)
        return 0
    if "--version" in args:
        print(version())
        return 0
    words = [a for a in args if a != "--fail-closed"]
    if len(words) != 1 or words[0] not in AGENTS:
        print(HOOK_HELP, file=sys.stderr)
        return 2
    return main(words[0], "--fail-closed" in args)


if __name__ == "__main__":
    sys.exit(cli(sys.argv[1:]))
