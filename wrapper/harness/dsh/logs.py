"""dsh's own session logs (`session.jsonl[.zstd]`), as (agent, event) pairs for the dsh replayer.

`records.sources.load` recognises and reads the file; this is how dsh's records are walked.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from wrapper.records.sources import Loaded


def iter_dsh_events(loaded: Loaded) -> Iterator[tuple[str, dict[str, Any]]]:
    """(agent, event) pairs of a dsh log; the agent is the session id from its header."""
    agent = str(loaded.meta.get("id") or loaded.path.parent.name or "session")
    for r in loaded.records:
        if "type" in r:
            yield str(r.get("_agent") or agent), r
