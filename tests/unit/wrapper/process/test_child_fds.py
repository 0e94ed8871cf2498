"""What a child inherits: the descriptors it is given, on 3, 4, ... in order, and nothing else.

The numbers matter. Node marks inherited descriptors close-on-exec at start-up, but past fd 15 it
stops at the first number that is not open. A bridge channel inherited as fd 23 therefore reached
every tool dsh ran (`tests/integration/test_hijack.py` saw it twice in about 12 runs).
"""

from __future__ import annotations

import fcntl
import json
import os
import socket
import stat
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import ROOT
from wrapper.process.child import Child, ExitInfo, inherited_fd
from wrapper.toolchain import node

# what a Python child writes: each descriptor it holds, and whether it would pass it on to its own children
LIST_FDS = """
import json, os, sys
seen = {}
for name in os.listdir('/proc/self/fd'):
    try:
        seen[name] = [os.readlink('/proc/self/fd/' + name), os.get_inheritable(int(name))]
    except OSError:
        pass  # the directory this listing read
open(sys.argv[1], 'w').write(json.dumps(seen))
"""


@pytest.fixture
def high_pair() -> Iterator[tuple[socket.socket, int]]:
    """A socketpair whose child end sits on fd 40 or above: in a child, 16 to 39 are not open."""
    a, b = socket.socketpair()
    high = fcntl.fcntl(b.fileno(), fcntl.F_DUPFD_CLOEXEC, 40)  # the lowest free number from 40 up
    b.close()
    yield a, high
    a.close()
    os.close(high)


def _run(argv: list[str], pass_fds: tuple[int, ...], cwd: Path) -> ExitInfo | None:
    child = Child(argv, dict(os.environ), str(cwd), lambda _t: None, lambda _e: None, pass_fds=pass_fds)
    child.start()
    return child.wait(60)


def test_passed_descriptors_land_on_3_and_4_in_order_and_nothing_else_is_inherited(
    high_pair: tuple[socket.socket, int], tmp_path: Path
) -> None:
    _, high = high_pair
    channel = f"socket:[{os.fstat(high).st_ino}]"
    memfd = os.memfd_create("breaker-test-overlay", os.MFD_CLOEXEC)
    out = tmp_path / "fds.json"
    try:
        exit_info = _run([sys.executable, "-c", LIST_FDS, str(out)], (high, memfd), tmp_path)
    finally:
        os.close(memfd)
    assert exit_info is not None and exit_info.code == 0, exit_info
    seen = json.loads(out.read_text())
    assert inherited_fd(0) == 3 and inherited_fd(1) == 4
    assert seen["3"] == [channel, True], seen
    assert seen["4"][0].startswith("/memfd:breaker-test-overlay") and seen["4"][1], seen
    assert sorted(seen, key=int) == ["0", "1", "2", "3", "4"], f"nothing else is inherited: {seen}"


HELPER = """
import fcntl, os, sys
from wrapper.process.child import Child
def high(fd):
    moved = fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 10)
    os.close(fd)
    return moved
# in a fresh process fds 3 and 4 are free: put two pipes' write ends on them, crossed
r1, w1 = map(high, os.pipe())
r2, w2 = map(high, os.pipe())
os.dup2(w1, 4, inheritable=False); os.dup2(w2, 3, inheritable=False)
os.close(w1); os.close(w2)
code = "import os; os.write(3, b'first'); os.write(4, b'second')"
c = Child([sys.executable, "-c", code], dict(os.environ), ".", lambda t: None, lambda e: None, pass_fds=(4, 3))
c.start()
info = c.wait(60)
os.close(3); os.close(4)
print(info.code, os.read(r1, 100).decode(), os.read(r2, 100).decode())
"""


def test_sources_that_sit_on_each_others_targets_are_not_lost() -> None:
    """pass_fds (4, 3): the child's fd 3 is what was the monitor's fd 4, and its fd 4 the monitor's 3."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    out = subprocess.run([sys.executable, "-c", HELPER], capture_output=True, text=True, timeout=60, env=env)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["0", "first", "second"], out.stdout


def test_an_exec_error_still_reaches_the_monitor(tmp_path: Path, high_pair: tuple[socket.socket, int]) -> None:
    """The child execs itself after renumbering, so a failed exec is reported as ptyprocess did."""
    bad = tmp_path / "not-a-program"
    bad.write_bytes(b"\x7fELF garbage")
    bad.chmod(bad.stat().st_mode | stat.S_IXUSR)
    ignore = lambda _x: None  # noqa: E731
    child = Child([str(bad)], dict(os.environ), str(tmp_path), ignore, ignore, pass_fds=(high_pair[1],))
    with pytest.raises(OSError, match="Exec format error"):
        child.start()


def test_node_marks_the_channel_close_on_exec_so_a_tool_it_starts_does_not_hold_it(
    high_pair: tuple[socket.socket, int], tmp_path: Path
) -> None:
    """What the renumbering is for: passed as fd 40, a tool Node started would hold the channel."""
    if not node().exists():
        pytest.skip("the bundled Node is not installed")
    _, high = high_pair
    channel = f"socket:[{os.fstat(high).st_ino}]"
    out = tmp_path / "tool.json"
    js = (
        "const fs = require('fs');"
        f"const flags = fs.readFileSync('/proc/self/fdinfo/{inherited_fd(0)}', 'utf8');"
        "const tool = require('child_process').execSync('ls -l /proc/self/fd/').toString();"
        f"fs.writeFileSync({json.dumps(str(out))}, JSON.stringify({{flags, tool}}));"
    )
    exit_info = _run([str(node()), "-e", js], (high,), tmp_path)
    assert exit_info is not None and exit_info.code == 0, exit_info
    seen = json.loads(out.read_text())
    assert channel not in seen["tool"], f"the tool does not hold the channel: {seen['tool']}"
    flags = int(next(line for line in seen["flags"].splitlines() if line.startswith("flags:")).split()[1], 8)
    assert flags & os.O_CLOEXEC, "Node marked the channel close-on-exec"
