"""The exit statuses of `breaker-tui`: one declaration, read by the code that exits and by `--help`.

A script decides what to do next from the status alone, so each number means one thing in every
mode, and the help text is made from this table rather than written beside it. A run whose child
ended by itself exits with the child's own status instead (a shell's: 128 + N for signal N).
Importing this is cheap: `--help` prints it before anything heavy is loaded.
"""

from __future__ import annotations

from enum import IntEnum


class Exit(IntEnum):
    """What a status means; the names are what the code says, `MEANING` what a person reads."""

    OK = 0
    FAILED = 1  # the last turn did not complete; scan/eval: a loop was found
    USAGE = 2
    CANNOT_START = 3
    TAMPERED = 4
    UNVERIFIED = 5
    INTERNAL = 70
    INTERRUPTED = 130  # 128 + SIGINT, as a shell reports it


MEANING: dict[Exit, str] = {
    Exit.OK: "done: the last turn completed, or you quit, killed or restarted the child; scan: clean",
    Exit.FAILED: "--no-tui with a prompt: the last turn failed (model error, aborted); scan: a loop found",
    Exit.USAGE: "bad usage, config or input (the message names it); also: no terminal for the screen",
    Exit.CANNOT_START: "nothing could be started (run `breaker-tui doctor`)",
    Exit.TAMPERED: "scan: a breaker-tui recording was edited or cut after it was written",
    Exit.UNVERIFIED: "scan: nothing vouches for a recording (no index entry, no kept digest, still being written)",
    Exit.INTERNAL: "internal error (a bug: please report the lines above it)",
    Exit.INTERRUPTED: "interrupted by ctrl+c (SIGINT); SIGTERM 143, SIGHUP 129",
}
CHILD = "N      the child's own status, when it ended by itself (a plain command, or dsh with no prompt)"


def table(indent: str = "  ") -> str:
    """Every status and its meaning, one a line, for `--help`."""
    rows = [f"{indent}{int(code):<6} {MEANING[code]}" for code in Exit]
    return "\n".join([*rows, indent + CHILD])
