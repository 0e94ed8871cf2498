"""Readers for recorded sessions: breaker-tui recordings and dsh's own session.jsonl[.zstd]."""

from __future__ import annotations

import io
import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from wrapper.recorder import FORMAT

Kind = Literal["recording", "dsh"]


class SourceError(ValueError):
    """The file cannot be read as a session; the message says why."""


@dataclass
class Loaded:
    """A whole file, decoded: its kind, its records, and the lines that could not be read."""

    path: Path
    kind: Kind
    records: list[dict[str, Any]]
    bad_lines: int = 0
    problems: list[str] = field(default_factory=list)
    meta: dict[str, Any] = field(default_factory=dict)


def _text(path: Path) -> str:
    try:
        raw = path.read_bytes()
    except OSError as e:
        raise SourceError(f"{path}: cannot read it: {e.strerror or e}") from None
    if raw[:4] == b"\x28\xb5\x2f\xfd":  # zstd frame magic
        import zstandard

        try:
            with zstandard.ZstdDecompressor().stream_reader(io.BytesIO(raw), read_across_frames=True) as r:
                raw = r.read()
        except zstandard.ZstdError as e:
            raise SourceError(f"{path}: a damaged zstd stream: {e}") from None
    return raw.decode("utf-8", "replace")


def load(path: Path) -> Loaded:
    """Decode a recording or a dsh session log, keeping every readable line."""
    lines = [ln for ln in _text(path).split("\n") if ln.strip()]
    if not lines:
        raise SourceError(f"{path}: empty file, nothing to replay")
    records: list[dict[str, Any]] = []
    bad = 0
    problems: list[str] = []
    for n, line in enumerate(lines, 1):
        try:
            obj = json.loads(line)
        except ValueError:
            bad += 1
            if len(problems) < 5:
                problems.append(f"line {n}: not JSON ({line[:60]!r})")
            continue
        if isinstance(obj, dict):
            records.append(obj)
        else:
            bad += 1
    if not records:
        raise SourceError(f"{path}: no readable JSON lines ({bad} bad)")
    first = records[0]
    if first.get("k") == "meta" and first.get("format") == FORMAT:
        return Loaded(path, "recording", records[1:], bad, problems, first)
    if first.get("t") == "hello" and isinstance(first.get("plugin"), str):
        # a bare bridge feed (the prototype bridge's capture format): its events, replayed like a dsh log
        events = [{**r["event"], "_agent": r.get("sessionId")} for r in records if r.get("t") == "event"]
        return Loaded(path, "dsh", events, bad, problems, {"id": "bridge-feed"})
    if first.get("type") == "session" or any("seq" in r and "type" in r for r in records[:5]):
        meta = first if first.get("type") == "session" else {}
        return Loaded(path, "dsh", [r for r in records if r is not meta], bad, problems, meta)
    raise SourceError(
        f"{path}: neither a breaker-tui recording nor a dsh session log (first line has keys {sorted(first)[:6]})"
    )


def iter_dsh_events(loaded: Loaded) -> Iterator[tuple[str, dict[str, Any]]]:
    """(agent, event) pairs of a dsh log; the agent is the session id from its header."""
    agent = str(loaded.meta.get("id") or loaded.path.parent.name or "session")
    for r in loaded.records:
        if "type" in r:
            yield str(r.get("_agent") or agent), r
