"""Importers: other agents' session files turned into the neutral trace, so `scan` can judge them.

Each importer reads one file and yields the trace's JSON objects in order (a `meta` object first),
exactly as they would appear on the lines of a trace file; `scan FILE` recognises the format by
itself (`wrapper.records.importers.detect`), `scan --from NAME FILE` forces one, and `--convert`
prints the converted trace, so the line numbers `scan` reports for an imported file are the lines of
that converted trace (a fault in the file itself is reported at the file's own line). To add a
format, write a function `(path, max_bytes) -> Iterator[dict]` in a module here, add it to
`IMPORTERS`, and teach `detect` its shape.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from engine.trace import TraceError
from wrapper.records.importers.atif import read_atif
from wrapper.records.importers.claude_code import read_claude_code
from wrapper.records.importers.codex import read_codex
from wrapper.records.importers.gemini_cli import read_gemini_cli
from wrapper.records.importers.mini_swe_agent import read_mini_swe_agent
from wrapper.records.importers.openclaw import read_openclaw
from wrapper.records.importers.opencode import read_opencode
from wrapper.records.importers.openhands import read_openhands
from wrapper.records.importers.swe_agent import read_swe_agent
from wrapper.records.trace_io import Trace, from_objects

Importer = Callable[[Path, int], Iterator[dict[str, Any]]]

IMPORTERS: dict[str, tuple[Importer, str]] = {
    # name: (importer, what it reads)
    "swe-agent": (read_swe_agent, "SWE-agent .traj files (JSON: `trajectory` steps, `history`)"),
    "mini-swe-agent": (
        read_mini_swe_agent,
        "mini-swe-agent .traj.json files (JSON: `messages`, text or tool-call steps)",
    ),
    "openhands": (read_openhands, "OpenHands V0 event lists (JSON array, or an object with `history`)"),
    "claude-code": (read_claude_code, "Claude Code session transcripts (~/.claude/projects/*/SESSION.jsonl)"),
    "atif": (read_atif, "Harbor ATIF trajectory.json files (JSON: `schema_version` ATIF-v1.N, `steps`)"),
    "openclaw": (read_openclaw, "OpenClaw / pi session files (JSONL: a `session` header, records linked by parentId)"),
    "codex": (read_codex, "Codex CLI rollouts (~/.codex/sessions/**/rollout-*.jsonl)"),
    "gemini-cli": (read_gemini_cli, "Gemini CLI chats (~/.gemini/tmp/*/chats/session-*.json)"),
    "opencode": (read_opencode, "opencode session exports (`opencode export SESSION`)"),
}

DEFAULT_MAX_BYTES = 256 << 20


def importer(name: str) -> Importer:
    """The importer called `name`, or a `TraceError` listing the known ones."""
    found = IMPORTERS.get(name)
    if found is None:
        raise TraceError(f"no importer called {name!r}; known: {', '.join(sorted(IMPORTERS))}")
    return found[0]


def imported_objects(name: str, path: Path, max_bytes: int = DEFAULT_MAX_BYTES) -> Iterator[tuple[int, Any]]:
    """(line, object) pairs of the converted trace, numbered as `--convert` prints them."""
    return enumerate(importer(name)(path, max_bytes), 1)


def import_trace(name: str, path: Path, max_bytes: int = DEFAULT_MAX_BYTES) -> Trace:
    """An imported file as a `Trace`, ready for `engine.trace.simulate`."""
    return from_objects(path, imported_objects(name, path, max_bytes))


def convert_lines(name: str, path: Path, max_bytes: int = DEFAULT_MAX_BYTES) -> Iterator[str]:
    """The converted trace as JSON Lines text (one line per object, no newline)."""
    for _, obj in imported_objects(name, path, max_bytes):
        yield json.dumps(obj, ensure_ascii=True)
