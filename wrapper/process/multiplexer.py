"""Whether a process of the session can type into the person's terminal through a terminal multiplexer.

A tool that reaches the tmux server the monitor runs in can read the approval modal
(`tmux capture-pane`) and answer it (`tmux send-keys Tab a`): the keys arrive as the person's. The
session's environment no longer names the server (`wrapper.process.childenv`), but its socket can
still be found in the temp folder. So when an answer arrives, the processes of the session (the
child and everything under it) are checked for a connection to a multiplexer's socket: their unix
sockets (`/proc/PID/fd`) whose peer (the kernel's `sock_diag`, as `ss -xp` reads it) is a socket
bound to a multiplexer's path; a process running a multiplexer's client counts too. An answer given
while one exists is refused (the caller raises the alarm).

A script that starts such clients (a loop of `tmux capture-pane` and `tmux send-keys`, each client
living a few milliseconds) is seen by its own command line, which names the client or its socket.

What this cannot see: a client that connected, sent its keys and exited between two looks, started
by a process whose command line does not say so (a compiled helper, an obfuscated script). The dsh
session looks while a question is open too (every `SAMPLE_S`), which catches a helper that polls the
screen (`tmux capture-pane` in a loop) with high likelihood, not with certainty.
"""

from __future__ import annotations

import re
import socket
import struct
from collections.abc import Iterable
from dataclasses import dataclass

from wrapper.process import proc

# a socket path of tmux (`/tmp/tmux-UID/NAME`), GNU screen (`/run/screen/S-USER/…`), zellij, kitty or wezterm
MUX_PATH = re.compile(r"(^|/)(tmux-\d+/|screen/S-|\.?screen/|zellij|kitty|wezterm)", re.IGNORECASE)
SAMPLE_S = 0.1  # how often the processes of the session are looked at while a person's answer is awaited
MUX_CLIENTS = frozenset({"tmux", "screen", "zellij", "kitten", "kitty", "wezterm", "wezterm-gui"})
# a script that runs a multiplexer's client (a command word after a shell separator), or names its socket:
# each client it starts lives a few milliseconds, the script that starts them lives as long as it polls
MUX_SCRIPT = re.compile(
    r"(?:^|[;&|(`\n]|\b(?:do|then|else|if|while|until|exec|nohup|setsid|env|xargs|timeout\s+\S+))\s*(?:\S*/)?"
    r"(?:tmux|screen|zellij|kitten|wezterm)(?=\s|$|[;&|)`])"
    r"|/tmux-\d+/|/screen/S-|/zellij-\d+/"
)

_NETLINK_SOCK_DIAG = 4
_SOCK_DIAG_BY_FAMILY = 20
_NLM_F_REQUEST, _NLM_F_DUMP = 0x1, 0x300
_NLMSG_ERROR, _NLMSG_DONE = 2, 3
_UDIAG_SHOW_NAME, _UDIAG_SHOW_PEER = 0x1, 0x4
_UNIX_DIAG_NAME, _UNIX_DIAG_PEER = 0, 2


@dataclass(frozen=True)
class UnixSocket:
    """One unix socket as the kernel reports it: its bound path (or ""), its peer's inode (or 0)."""

    inode: int
    path: str
    peer: int


def unix_sockets() -> dict[int, UnixSocket]:
    """Every unix socket of this network namespace, by inode (empty when the kernel will not say)."""
    try:
        nl = socket.socket(socket.AF_NETLINK, socket.SOCK_DGRAM, _NETLINK_SOCK_DIAG)
    except OSError:
        return {}
    with nl:
        req = struct.pack("=BBHIIIII", socket.AF_UNIX, 0, 0, 0xFFFFFFFF, 0, _UDIAG_SHOW_NAME | _UDIAG_SHOW_PEER, 0, 0)
        hdr = struct.pack("=IHHII", 16 + len(req), _SOCK_DIAG_BY_FAMILY, _NLM_F_REQUEST | _NLM_F_DUMP, 1, 0)
        try:
            nl.send(hdr + req)
            return _read_dump(nl)
        except OSError:
            return {}


def _read_dump(nl: socket.socket) -> dict[int, UnixSocket]:
    out: dict[int, UnixSocket] = {}
    while True:
        data = nl.recv(1 << 16)
        off = 0
        while off + 16 <= len(data):
            length, kind = struct.unpack_from("=IH", data, off)
            if kind in (_NLMSG_DONE, _NLMSG_ERROR) or length < 16:
                return out
            s = _parse(data[off + 16 : off + length])
            if s is not None:
                out[s.inode] = s
            off += (length + 3) & ~3
        if not data:
            return out


def _parse(body: bytes) -> UnixSocket | None:
    if len(body) < 16:
        return None
    (inode,) = struct.unpack_from("=I", body, 4)
    path, peer, off = "", 0, 16
    while off + 4 <= len(body):
        alen, atype = struct.unpack_from("=HH", body, off)
        if alen < 4:
            break
        payload = body[off + 4 : off + alen]
        if atype == _UNIX_DIAG_NAME:
            path = payload.rstrip(b"\0").decode("utf-8", "replace")
        elif atype == _UNIX_DIAG_PEER and len(payload) >= 4:
            (peer,) = struct.unpack_from("=I", payload)
        off += (alen + 3) & ~3
    return UnixSocket(inode, path, peer)


def _socket_inodes(pid: int) -> set[int]:
    links = (proc.fd_links(pid) or {}).values()
    return {int(link[8:-1]) for link in links if link.startswith("socket:[") and link[8:-1].isdigit()}


def tree(root: int) -> list[int]:
    """`root` and every process under it."""
    return [root, *(s.pid for s in proc.descendants({root}))]


def holders(pids: Iterable[int]) -> list[str]:
    """The processes among `pids` (the session's) that can drive a terminal multiplexer, described."""
    found: list[str] = []
    socks: dict[int, UnixSocket] | None = None
    for pid in pids:
        if proc.comm(pid) in MUX_CLIENTS:
            found.append(f"pid {pid} ({proc.cmdline(pid)}) runs a terminal multiplexer's client")
            continue
        if MUX_SCRIPT.search(proc.cmdline(pid, 4096)):
            found.append(f"pid {pid} ({proc.cmdline(pid)}) runs a script that drives a terminal multiplexer")
            continue
        inodes = _socket_inodes(pid)
        if not inodes:
            continue
        socks = unix_sockets() if socks is None else socks
        for ino in inodes:
            mine = socks.get(ino)
            far = socks.get(mine.peer) if mine is not None and mine.peer else None
            if far is not None and MUX_PATH.search(far.path):
                found.append(f"pid {pid} ({proc.cmdline(pid)}) is connected to {far.path}")
                break
    return found


def answer_refusal(pids: Iterable[int]) -> str:
    """The alarm for a person's "allow" that arrives while a process of the session (`pids`) can drive
    the terminal's multiplexer (the agent could have typed it); "" when none can.
    """
    return refusal(holders(pids))


def refusal(found: list[str]) -> str:
    """The alarm text for what `holders` found ("" for nothing)."""
    if not found:
        return ""
    return (
        f"ALARM: an approval answer arrived while {found[0]}: the agent could have typed it, so it was refused "
        "(answer again once no tool of the session holds the terminal multiplexer)"
    )
