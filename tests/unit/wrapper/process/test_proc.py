"""The one `/proc` reader: the facts the harnesses and the screen ask it for, read from this very process."""

from __future__ import annotations

import ast
import os
import socket
import sys
from pathlib import Path

import pytest

from wrapper.harness.acp.procs import alive, descendants
from wrapper.harness.dsh.channel import UNREADABLE, socket_flags, socket_inode
from wrapper.process import proc

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")


def test_stat_carries_the_process_group_and_start_time() -> None:
    s = proc.stat(os.getpid())
    assert s is not None
    assert (s.ppid, s.pgid) == (os.getppid(), os.getpgrp())
    assert alive((os.getpid(), s.start))
    assert not alive((os.getpid(), s.start + 1))  # same pid, another start time: another process


def test_descriptor_links_and_flags_name_what_is_open_and_how(tmp_path: Path) -> None:
    path = tmp_path / "log"
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND)
    try:
        links = proc.fd_links(os.getpid())
        assert links is not None and links[fd] == str(path)
        flags = proc.fd_flags(os.getpid(), fd)
        assert flags is not None and flags & os.O_APPEND and flags & os.O_ACCMODE == os.O_WRONLY
    finally:
        os.close(fd)
    assert proc.fd_links(2**22 + 1) is None  # beyond pid_max: no such process


def test_the_channel_finds_its_socket_by_inode_through_the_reader() -> None:
    a, b = socket.socketpair()
    try:
        assert socket_flags(os.getpid(), socket_inode(a.fileno())) not in (None, UNREADABLE)
        assert socket_flags(os.getpid(), 1) is None
        assert socket_flags(2**22 + 1, socket_inode(a.fileno())) == UNREADABLE
    finally:
        a.close()
        b.close()


def test_a_process_is_among_its_parents_descendants() -> None:
    me = proc.stat(os.getpid())
    assert me is not None
    parent = {me.ppid: proc.stat(me.ppid)}
    table = {s.pid: s for s in [me, *[p for p in parent.values() if p is not None]]}
    assert (os.getpid(), me.start) in descendants(me.ppid, table)
    assert proc.comm(os.getpid())  # the short name of a live process is never empty


def test_own_files_are_read_whole_and_a_missing_one_is_empty() -> None:
    assert proc.own("cgroup") == Path("/proc/self/cgroup").read_text()
    assert proc.own("no-such-file") == ""


def test_this_process_group_is_alive_and_an_unused_one_is_not() -> None:
    assert proc.group_alive(os.getpgrp())
    assert not proc.group_alive(2**22 + 1)  # beyond pid_max: no group has that id


def test_own_descriptors_list_what_is_open_and_not_what_was_closed(tmp_path: Path) -> None:
    fd = os.open(tmp_path / "f", os.O_WRONLY | os.O_CREAT)
    assert fd in proc.own_fds()
    os.close(fd)
    assert fd not in proc.own_fds()


def test_own_peak_resident_set_is_at_least_the_current_one() -> None:
    peak = proc.peak_rss_kib()
    current = int(next(ln for ln in proc.own("status").splitlines() if ln.startswith("VmRSS:")).split()[1])
    assert peak is not None and peak >= current > 0


ROOT = Path(__file__).resolve().parents[4]
READER = ROOT / "wrapper" / "process" / "proc.py"
# dsh is told to read its patch from a descriptor it inherits: a path handed to another program, not read here
NAMES_A_PATH = {ROOT / "wrapper" / "harness" / "dsh" / "launch.py"}


def _proc_strings(path: Path) -> list[int]:
    """The lines of `path` whose code (docstrings aside) holds a string naming a path under `/proc`."""
    tree = ast.parse(path.read_text())
    docs = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
        and node.body
        and isinstance(node.body[0], ast.Expr)
    }
    return [
        node.lineno
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and id(node) not in docs
        and (node.value == "/proc" or "/proc/" in node.value)
    ]


def test_only_the_reader_opens_paths_under_proc() -> None:
    found = {
        f"{path.relative_to(ROOT)}:{line}"
        for room in ("engine", "wrapper", "tui")
        for path in sorted((ROOT / room).rglob("*.py"))
        if path != READER and path not in NAMES_A_PATH
        for line in _proc_strings(path)
    }
    assert not found, f"read /proc through wrapper.process.proc: {sorted(found)}"
