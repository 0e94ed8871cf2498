"""Results that are errors although no status says so, and results that say the call never ran.

Many harnesses report no exit status (SWE-agent, pi/OpenClaw shells, Gemini CLI chats) or none for
their non-shell tools, so the failure rules would see only successes: SWE-agent answers a bad edit
with `Usage: edit <start_line>:<end_line>`, its editor with "No replacement was performed", a
shell with `bash: foo: command not found`, tools with an `Error: ...` first line, a CTF checker
with `Wrong flag!`, a fetch with curl's `curl: (6) ...` or wget's `wget: unable to ...`.
`reads_as_error(tool, text)` is that judgement, one place for the live engine
and the importers; it is asked only when the caller gave no exit status and no error flag, and for
shell tools only the patterns a successful command does not print (a `cat` of a log may start with
`Error:`; no successful command prints `command not found` or ends in a traceback).

`cancelled(text)`: Claude Code answers the other calls of a parallel batch with
`<tool_use_error>Sibling tool call errored</tool_use_error>` when one of them failed. Those calls
never ran: they are not the model's failures, not results, not repeats.
"""

from __future__ import annotations

import re

from engine.tools.novelty import clean, unframe
from engine.tools.progress import SHELL_TOOLS

_HEAD = 400  # the patterns read the start of a result (and the traceback its end)
# a non-shell tool's own error report, on its first line
_TOOL_ERROR = re.compile(
    r"^\s*(?:<tool_use_error>|error[:!]|\[?error\]|failed[:!]|exception[:!]|"
    r"usage: |no replacement was performed|file .{1,300} not found|no such file or directory|"
    r"(?:the )?(?:file|path|directory) .{0,300}does not exist)",
    re.I,
)
# anywhere in a short result, for every tool: what no successful command prints
_ANY = re.compile(
    r"(?:^|\n)[^\n]{0,200}: (?:command not found|not found)\s*$|"
    r"(?:^|\n)[^\n]{0,200}: (?:syntax error\b|unexpected EOF while looking for matching\b)[^\n]*$|"
    r"^\s*curl: \(\d+\) |^\s*wget: (?:unable to|cannot|failed|ERROR)\b|"
    r"^\s*no replacement was performed|^\s*<tool_use_error>|"
    r"^\s*usage: (?:edit|open|goto|create|submit|search_\w+|find_file|str_replace_editor)\b",
    re.I | re.M,
)
# a rejection in one short line (`Wrong flag!`, `Incorrect answer.`, `Invalid move`)
_REJECTION = re.compile(r"^\s*(?:wrong|incorrect|invalid|rejected|not accepted)\b[^\n]{0,80}$", re.I)
_TRACEBACK = re.compile(r"Traceback \(most recent call last\):(?:.|\n)*\n\s*\w+(?:Error|Exception)\b[^\n]*\s*$")
_SIBLING = "Sibling tool call errored"


def _steady(text: str) -> str:
    """The text without the lines that carry a volatile value (a stamp, a pid, a duration, a counter:
    `novelty.clean`): a one-line rejection followed by `[1700000097] done` is still one line.
    """
    return "\n".join(ln for ln in clean(text).splitlines() if "#" not in ln)


def _lead(text: str) -> str:
    """The text from its first line that carries no volatile value (`novelty.clean`): a tool's
    `Error: ...` behind a `[1700000097] started` or `took 0.3s` line a harness put in front still
    starts the result.
    """
    lines = clean(text).splitlines()
    i = 0
    while i < len(lines) and "#" in lines[i]:
        i += 1
    return "\n".join(lines[i:])


_SHORTEST = 5  # no pattern here matches fewer characters (`wrong`); reading a result only shortens it


def reads_as_error(tool: str, text: str) -> bool:
    """Whether a result with no status reads as an error (see the module docstring)."""
    if len(text) < _SHORTEST:
        return False  # (`ok`, `done`, `[]`, ``: a short result is asked often, and none reads as one)
    text = unframe(text[:_HEAD] if len(text) <= 2 * _HEAD else text[:_HEAD] + "\n" + text[-2000:])
    head = text[:_HEAD]
    if _ANY.search(head) or _REJECTION.match(head) or _REJECTION.match(_steady(head)):
        return True
    if _TRACEBACK.search(text[-2000:]):
        return True
    return tool not in SHELL_TOOLS and (
        _TOOL_ERROR.match(head) is not None or _TOOL_ERROR.match(_lead(head)) is not None
    )


def cancelled(text: str) -> bool:
    """Whether the result says the call never ran (a parallel batch cancelled by its harness)."""
    return len(text) < 200 and _SIBLING in text
