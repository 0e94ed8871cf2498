"""What a tool result says about progress: did the call fail, did it change the workspace, what did it return.

The default rules judge repeats by their outcome, so they need three facts about every finished call,
decided the same way everywhere:

* failed: the tool reported an error, or a shell command exited non-zero — except a search tool
  (`grep`, `egrep`, `fgrep`, `rg`, `ag`, `git grep`) exiting 1 with no output, which means "no match";
* mutating: an edit/write tool, or a shell command that writes a file (a non-generic output sink) or
  runs a known mutating verb (`sed -i`, `mv`, `git commit`, `pip install`, ...);
* the result key: a hash of the output as every rule compares it (`novelty`: the harness's framing
  and volatile parts folded, the call's own echo folded) but not every digit, so `test_case_1` and
  `test_case_2` differ.
"""

from __future__ import annotations

import re
from typing import Any

from engine.tools import novelty
from engine.tools.shell import is_generic_sink
from engine.tools.shellfacts import analyze

# shell tools by the names agent harnesses give them (dsh, Gemini CLI, Cline, OpenHands, Codex, ...)
SHELL_TOOLS = novelty.SHELL_TOOLS
SEARCH_VERBS = frozenset({"grep", "egrep", "fgrep", "rg", "ag"})
_EXIT = re.compile(r"\[exit code: (-?\d+)\]\s*$")
_EDIT_TOOL = re.compile(
    r"(^|_)(edit|write|create|patch|replace|insert|apply|multiedit|multi_edit|delete|rename|move)", re.I
)
_EDITOR_COMMANDS = frozenset({"create", "str_replace", "insert", "undo_edit", "write", "edit", "append", "delete"})
_GIT_MUTATING = frozenset(
    {
        "commit", "add", "checkout", "switch", "reset", "merge", "rebase", "cherry-pick", "revert", "stash",
        "bisect", "apply", "am", "pull", "rm", "mv", "restore", "clean", "init", "clone", "fetch",
    }
)  # fmt: skip
_PKG_MUTATING = frozenset({"install", "uninstall", "add", "remove", "update", "upgrade", "ci", "i", "get"})
_PKG_VERBS = frozenset({"pip", "pip3", "npm", "yarn", "pnpm", "apt", "apt-get", "brew", "cargo", "go", "poetry", "uv"})
_MUTATING_VERBS = frozenset(
    {"mv", "cp", "rm", "mkdir", "rmdir", "touch", "tee", "patch", "chmod", "chown", "ln", "truncate", "dd",
     "install", "unzip", "tar", "rsync"}
)  # fmt: skip
_IN_PLACE = re.compile(r"(^|\s)(-i\S*|--in-place\S*)(\s|$)")

FOLD_CHARS = novelty.FOLD_CHARS


def fold(text: str) -> str:
    """The text as every rule compares it, without the call's echo (`novelty.clean`)."""
    return novelty.clean(text)


def result_key(text: str, tool: str = "", args: Any = None) -> int:
    """A hash of the result as every rule compares it (`novelty.news_key`): equal keys mean "the same
    answer again". With the call given, what the result echoes of the call's own spelling is folded too.
    """
    return novelty.news_key(text, tool, args)


def strip_exit(text: str) -> str:
    """The result text without dsh's trailing `[exit code: N]`."""
    tail = text[-40:]
    if "]" not in tail:
        return text
    m = _EXIT.search(tail)
    return text[: len(text) - len(tail) + m.start()] if m else text


def exit_marker(text: str) -> bool:
    """Whether the text ends with dsh's `[exit code: N]` (the status is known)."""
    return "]" in text[-40:] and _EXIT.search(text[-40:]) is not None


def exit_status(tool: str, text: str, exit: int | None) -> int | None:
    """The shell exit status: the one given, else dsh's `[exit code: N]` suffix on a shell tool's text."""
    if exit is not None:
        return exit
    if tool not in SHELL_TOOLS or not text:
        return None
    m = _EXIT.search(text[-40:])
    return int(m.group(1)) if m else (0 if text else None)


_SHELLS = frozenset({"bash", "sh", "zsh", "dash", "/bin/bash", "/bin/sh", "/usr/bin/bash", "/bin/zsh"})


def command_text(args: Any) -> str:
    """A shell call's command line: the `command` string, or an argv list (Codex's `["bash", "-lc", CMD]`
    is CMD; any other list is its words joined).
    """
    c = args.get("command") if isinstance(args, dict) else None
    if isinstance(c, str):
        return c
    if isinstance(c, list) and c and all(isinstance(w, str) for w in c[:64]):
        if len(c) >= 3 and c[0] in _SHELLS and c[1] in ("-c", "-lc", "-l", "-ic"):
            return str(c[-1])
        return " ".join(str(w) for w in c[:64])
    return ""


_command = command_text


def failed(tool: str, args: Any, text: str, is_error: bool, exit: int | None) -> bool:
    """Whether the call failed. Exit status 1 is an answer, not a failure, for a search that found
    nothing (no output, or only zero counts), for `diff`/`cmp` (the files differ) and `test`/`[` (false).

    That reading wins over `is_error`, because callers often set `is_error` from the exit status.
    """
    status = exit_status(tool, text, exit)
    if status == 1 and tool in SHELL_TOOLS and _answer_by_status(_command(args), strip_exit(text).strip()):
        return False
    return is_error or (status is not None and status != 0)


_ZERO_COUNTS = re.compile(r"^(?:[^\n]*:)?0(?:\n(?:[^\n]*:)?0)*$")


def _answer_by_status(command: str, output: str) -> bool:
    facts = analyze(command)
    verb = facts.verb
    if verb in ("diff", "cmp", "test", "["):
        return True
    if verb in SEARCH_VERBS or (verb == "git" and facts.stripped.startswith("git grep")):
        return not output or _ZERO_COUNTS.match(output) is not None
    return False


def mutates(tool: str, args: Any) -> bool:
    """Whether a call (if it succeeds) changes the workspace."""
    if tool in SHELL_TOOLS:
        return shell_mutates(_command(args))
    if isinstance(args, dict):
        cmd = args.get("command")
        if isinstance(cmd, str) and cmd in _EDITOR_COMMANDS:
            return True
        if isinstance(cmd, str) and cmd in ("view", "read", "list", "search", "find"):
            return False
    return name_matches(_EDIT_NAMES, _EDIT_TOOL, tool)


def name_matches(memo: dict[str, bool], rx: re.Pattern[str], tool: str) -> bool:
    """Whether `rx` finds a match in the tool's name, remembered in `memo` (names repeat; the memo
    starts over past 4,096 names so odd names cannot grow it without bound).
    """
    hit = memo.get(tool)
    if hit is None:
        if len(memo) > 4096:
            memo.clear()
        hit = memo[tool] = rx.search(tool) is not None
    return hit


_EDIT_NAMES: dict[str, bool] = {}  # tool name -> whether it names an editing tool (names repeat)


_SLEEP = re.compile(r"^\s*sleep\s+(\d+(?:\.\d+)?)([smhd]?)\b")
_PURE_SLEEP = re.compile(r"^\s*sleep\s+\d+(?:\.\d+)?[smhd]?\s*;?\s*$")
_CD = re.compile(r"^\s*(?:cd|pushd)\s+(\"[^\"]*\"|'[^']*'|[^\s;&|]+)\s*(?:&&|;)")
_UNIT = {"": 1.0, "s": 1.0, "m": 60.0, "h": 3600.0, "d": 86400.0}


def wait_seconds(tool: str, args: Any) -> float:
    """How long a shell command starting with `sleep N` waits (0 when it does not)."""
    if tool not in SHELL_TOOLS:
        return 0.0
    m = _SLEEP.match(_command(args))
    return float(m.group(1)) * _UNIT[m.group(2)] if m else 0.0


def pure_wait(tool: str, args: Any) -> bool:
    """A shell command that only waits (`sleep N`): it acts on nothing, so it is never a repeated action."""
    return tool in SHELL_TOOLS and _PURE_SLEEP.match(_command(args)) is not None


def cd_dir(tool: str, args: Any) -> str | None:
    """The directory a shell command starts with `cd X &&` in (None when it does not)."""
    if tool not in SHELL_TOOLS:
        return None
    m = _CD.match(_command(args))
    return m.group(1).strip("\"'").rstrip("/") if m else None


_SCRIPT_VERBS = frozenset({"python", "python3", "node", "ruby", "perl", "deno", "bun"})
# an inline script (`python3 - <<'EOF'`, `python -c`, `node -e`) that writes files: the way OpenHands'
# IPython cells and many agents edit code
_SCRIPT_WRITES = re.compile(
    r"\.write_text\(|\.write_bytes\(|\bopen\([^)]*,\s*['\"](?:w|a|r\+|x)b?\+?['\"]|json\.dump\(|"
    r"shutil\.(?:copy|move|rmtree)|os\.(?:remove|rename|replace|unlink)\(|fs\.(?:writeFileSync|writeFile|appendFileSync)\("
)


def shell_mutates(command: str) -> bool:
    """A shell command writing a file (non-generic sink) or running a known mutating verb."""
    if not command:
        return False
    facts = analyze(command)
    if not is_generic_sink(facts.sink):
        return True
    verb = facts.verb
    words = facts.stripped.split()
    if verb in _MUTATING_VERBS:
        return True
    if verb in ("sed", "perl", "ruby") and _IN_PLACE.search(facts.stripped):
        return True
    if verb == "git" and len(words) > 1:
        sub = next((w for w in words[1:] if not w.startswith("-")), "")
        return sub in _GIT_MUTATING
    if verb in _PKG_VERBS and len(words) > 1:
        return any(w in _PKG_MUTATING for w in words[1:3])
    return verb in _SCRIPT_VERBS and _SCRIPT_WRITES.search(command) is not None
