"""A recording's file name: it names the whole session it holds, and never ends in a cut piece of an id."""

from __future__ import annotations

from pathlib import Path

import pytest

from wrapper.hooks.resume import find
from wrapper.records.recorder import Recorder, slug

# Session ids as each harness reports them: dsh, Codex and Claude Code (UUIDs), opencode and Kilo Code.
SESSION_IDS = [
    "session-175a51f9-e9ec-4f46-8d1d-ce11faba60c9",
    "01a24a3d-ec3d-7e11-b0f0-3c1d2e4f5a6b",
    "de6df573-f68b-4a60-81db-0123456789ab",
    "ses_db5c52441ffex7FBGqcVea604X",
]


@pytest.mark.parametrize("sid", SESSION_IDS)
def test_the_file_name_holds_the_whole_session_id(tmp_path: Path, sid: str) -> None:
    r = Recorder(None, {}, label="agent", directory=tmp_path)
    r.name_for(sid)
    r.close()
    assert r.path.name.endswith(f"-agent-{sid}.jsonl"), r.path.name
    assert r.path.exists()


@pytest.mark.parametrize("text", ["a" * 39 + "-b", "x" * 23 + "-.yz", "ab-" * 30, "ab_" * 30])
@pytest.mark.parametrize("limit", [5, 24, 40])
def test_a_slug_never_ends_in_the_separator_its_cut_left(text: str, limit: int) -> None:
    s = slug(text, limit)
    assert s and len(s) <= limit and not s.endswith(("-", ".")), s


def test_two_sessions_whose_ids_share_a_prefix_are_each_found_again(tmp_path: Path) -> None:
    sid = SESSION_IDS[1]
    other = sid[:-1] + "c"  # the same first 24 characters: only the whole id tells them apart
    for s in (other, sid):
        r = Recorder(
            None, {"harness": "hook", "agent": "codex", "sessionId": s}, label="hook-codex", directory=tmp_path
        )
        r.name_for(s)
        r.close()
    found = find(tmp_path, "codex", sid)
    assert found is not None and found.name.endswith(f"-{sid}.jsonl")
