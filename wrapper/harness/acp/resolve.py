"""Which copy of a known agent runs, and with which command line: the person's own first.

`breaker-tui -- opencode`, `breaker-tui -- claude-agent-acp`, `breaker-tui --acp -- $PREFIX/bin/opencode acp`
and `breaker-tui -- codex-acp` all name a known agent (a preset). The rule, in order:

1. a path the person gave (`/opt/x/bin/opencode`, `./node_modules/.bin/codex-acp`) runs as given;
2. else the name they typed, then the agent's other usual names, looked up on *their* `PATH`
   (`claude` is Claude Code's own terminal UI, never an ACP server: for it the adapters
   `claude-agent-acp` / `claude-code-acp` are looked up);
3. else the pinned copy `breaker-tui setup-agent NAME` installed;
4. else an error naming the fix.

The preset's ACP arguments (`acp`, `--acp`) and its ask settings are added once: what the person
already typed is not added again (`opencode acp` stays `opencode acp`; `gemini --experimental-acp`
keeps their flag). A launcher that is a `#!/usr/bin/env node` script runs with the person's `node`
when their `PATH` has one, else with breaker-tui's Node 24 named by its full path; nothing is put
in front of their `PATH`. Every name and flag used here is the preset's own (`Preset.typed`,
`path_names`, `acp_spellings`).
"""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass
from pathlib import Path

from wrapper.harness.acp.presets import PRESETS, Preset, installed

_NODES = ("node", "nodejs")


@dataclass(frozen=True)
class Resolved:
    """The command line that runs, and why that copy."""

    preset: Preset
    argv: list[str]
    launcher: str  # the agent's executable (or script) that runs
    why: str  # for `doctor`, `agents` and the start line: "the path you gave", "on PATH", "the pinned copy"
    pinned: bool = False


def preset_for(argv: list[str]) -> Preset | None:
    """The known agent a command names (`opencode`, `claude-agent-acp`, `node …/claude-agent-acp/dist/index.js`)."""
    if not argv:
        return None
    base = os.path.basename(argv[0])
    for p in PRESETS.values():
        if base in p.typed:
            return p
    if base in _NODES and len(argv) > 1:  # `node …/claude-agent-acp/dist/index.js`
        script = argv[1]
        for p in PRESETS.values():
            if any(f"/{n}/" in script or script.endswith(f"/{n}") for n in (*p.path_names, p.package)):
                return p
    return None


def _is_node_script(path: str) -> bool:
    try:
        with open(path, "rb") as f:
            head = f.read(128)
    except OSError:
        return False
    first = head.split(b"\n", 1)[0]
    return first.startswith(b"#!") and b"node" in first


def _runner(launcher: str, path: str, bundled_node: Path) -> list[str]:
    """How to start `launcher`: as is, or (a node script where the person has no node) with Node 24."""
    if _is_node_script(launcher) and shutil.which("node", path=path) is None:
        return [str(bundled_node), launcher]
    return [launcher]


def _added(p: Preset, rest: list[str], make_ask: bool) -> list[str]:
    """The preset's ACP arguments and ask settings, each added only when the person did not write it."""
    acp = [] if any(a in p.acp_spellings for a in rest) else list(p.args)
    ask = list(p.ask_args) if make_ask else []
    if ask and ask[0] == "-c":
        key = ask[1].split("=", 1)[0]
        rest = [a for i, a in enumerate(rest) if not _is_setting(rest, i, key)]
    return [*acp, *ask, *rest]


def _is_setting(argv: list[str], i: int, key: str) -> bool:
    """Whether argv[i] is `-c KEY=...` (either word of it): the preset sets KEY itself (see `own.py`)."""
    if argv[i] == "-c" and i + 1 < len(argv) and argv[i + 1].split("=", 1)[0] == key:
        return True
    return i > 0 and argv[i - 1] == "-c" and argv[i].split("=", 1)[0] == key


def resolve(argv: list[str], path: str | None, bundled_node: Path, make_ask: bool = True) -> Resolved | None:
    """The command line for a known agent (None when `argv` names none); FileNotFoundError when none is found."""
    p = preset_for(argv)
    if p is None:
        return None
    path = os.environ.get("PATH", "") if path is None else path
    base = os.path.basename(argv[0])
    if base in _NODES:  # `node SCRIPT ARGS`: the person chose both
        return Resolved(p, [argv[0], argv[1], *_added(p, argv[2:], make_ask)], argv[1], "the command you gave")
    rest = argv[1:]
    if os.sep in argv[0]:
        exe = argv[0]
        if not (os.path.isfile(exe) and os.access(exe, os.X_OK)):
            raise FileNotFoundError(f"{exe}: no such executable file (the {p.name} you named)")
        return Resolved(p, [*_runner(exe, path, bundled_node), *_added(p, rest, make_ask)], exe, "the path you gave")
    names = [base] if base in p.path_names else []
    names += [n for n in p.path_names if n not in names]
    for n in names:
        found = shutil.which(n, path=path)
        if found:
            why = f"on your PATH as {n}" + (f" (for `{base}`)" if n != base else "")
            return Resolved(p, [*_runner(found, path, bundled_node), *_added(p, rest, make_ask)], found, why)
    if installed(p):
        launcher = str(p.launcher())
        head = [str(bundled_node), launcher] if p.node_script or _is_node_script(launcher) else [launcher]
        why = f"the pinned copy from `breaker-tui setup-agent {p.name}` (none of {', '.join(names)} is on PATH)"
        return Resolved(p, [*head, *_added(p, rest, make_ask)], launcher, why, pinned=True)
    raise FileNotFoundError(
        f"{p.name} was not found: none of {', '.join(names)} is on PATH and no pinned copy is installed. "
        f"Give its path (`breaker-tui --acp -- /path/to/{names[0]}`), put it on PATH, or run "
        f"`breaker-tui setup-agent {p.name}` (installs {p.package}@{p.version}, about {p.size_mb} MB, "
        f"into {p.install_dir()})"
    )
