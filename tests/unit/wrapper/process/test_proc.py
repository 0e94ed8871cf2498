"""The one `/proc` reader: the facts the harnesses and the screen ask it for, read from this very process."""

from __future__ import annotations

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
