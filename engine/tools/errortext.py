"""Results that are errors although no status says so, and results that say the call never ran.

Many harnesses report no exit status (SWE-agent, pi/OpenClaw shells, Gemini CLI chats) or none for
their non-shell tools, so the failure rules would see only successes: SWE-agent answers a bad edit
with `Usage: edit <start_line>:<end_line>`, its editor with "No replacement was performed", a
shell with `bash: foo: command not found`, tools with an `Error: ...` first line, a CTF checker
with `Wrong flag!`, a fetch with curl's `curl: (6) ...` or wget's `wget: unable to ...`.
`reads_as_error(tool, text, args)` is that judgement, one place for the live engine
and the importers; it is asked only when the caller gave no exit status and no error flag, and for
shell tools only the patterns a successful command does not print (a `cat` of a log may start with
`Error:`; no successful command prints `command not found` or ends in a traceback).

`cancelled(text)`: Claude Code answers the other calls of a parallel batch with
`<tool_use_error>Sibling tool call errored</tool_use_error>` when one of them failed. Those calls
never ran: they are not the model's failures, not results, not repeats.
"""

from __future__ import annotations

import re
from typing import Any

from engine.tools.novelty import clean, news_text, unframe
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


def _volatile(line: str) -> bool:
    """Whether a line of a folded result (`novelty.news_text`) carried a volatile value or the call's own
    echo (a stamp, a pid, a date, a duration, a counter, the command restated: folded to `#`).
    """
    return "#" in line


def _rejection(said: str) -> bool:
    """A one-line rejection among lines that each carry a volatile value: `Wrong flag!` followed by a
    `[1700000097] done` a harness added is still one line. The rejection's own line may carry one too
    (`Invalid date 2024-05-13`): what sets the other lines apart is only that they carry one.
    """
    lines = [ln for ln in said.splitlines() if ln.strip()]
    plain = [ln for ln in lines if not _volatile(ln)]
    if len(plain) > 1:
        return False
    return any(_REJECTION.match(ln) for ln in plain or lines)


def _tool_error_behind(said: str) -> bool:
    """A tool's `Error: ...` behind lines a harness put in front that each carry a volatile value
    (`[1700000097] started`, `took 0.3s`): the error may start at any line up to the first one that
    carries none. Its own line may carry one (`Error: flight HAT030 not available on date 2024-05-13`),
    so it is tried before the line is skipped.
    """
    lines = said.splitlines()
    for i, line in enumerate(lines):
        if _TOOL_ERROR.match("\n".join(lines[i:])) is not None:
            return True
        if not _volatile(line):
            return False
    return False


_SHORTEST = 5  # no pattern here matches fewer characters (`wrong`); reading a result only shortens it


def reads_as_error(tool: str, text: str, args: Any = None) -> bool:
    """Whether a result with no status reads as an error (see the module docstring). With the call's
    arguments, the result is also read as every rule compares it (`novelty.news_text`): a harness's
    restatement of the command (`$ submit flag{...}` above `Wrong flag!`) says nothing either.
    """
    if len(text) < _SHORTEST:
        return False  # (`ok`, `done`, `[]`, ``: a short result is asked often, and none reads as one)
    raw = text
    text = unframe(text[:_HEAD] if len(text) <= 2 * _HEAD else text[:_HEAD] + "\n" + text[-2000:])
    head = text[:_HEAD]
    if _ANY.search(head) or _REJECTION.match(head):
        return True
    if _TRACEBACK.search(text[-2000:]):
        return True
    # the same result as the rules read it next (`news_text` keeps its last answer): volatile lines and
    # the call's echo folded to `#`
    said = news_text(raw, tool, args)[:_HEAD] if args is not None else clean(head)
    if _rejection(said):
        return True
    return tool not in SHELL_TOOLS and (_TOOL_ERROR.match(head) is not None or _tool_error_behind(said))


def cancelled(text: str) -> bool:
    """Whether the result says the call never ran (a parallel batch cancelled by its harness)."""
    return len(text) < 200 and _SIBLING in text
