"""`scan` of a hook session's recording applies the answers given in `watch`, so it gives the hook's own verdicts.

The recordings are written by the hook server's own sessions (`wrapper.hooks.sessions.Sessions`): eight
identical local calls, the fifth on asked about and each ask answered as a person (or nobody) answered it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tui.cli import main
from wrapper.hooks.sessions import Sessions
from wrapper.settings import Settings

CALLS = 8  # the window asks from the fifth identical local call on


def _payload(n: int, phase: str) -> bytes:
    command = f"curl -s -w 'code-{n}' -o /dev/null http://127.0.0.1:3000/p"
    p: dict[str, Any] = {"session_id": "s-1", "tool_name": "Bash", "tool_input": {"command": command}}
    p.update(hook_event_name="PreToolUse" if phase == "before" else "PostToolUse", tool_use_id=f"t{n}")
    if phase == "after":
        p["tool_response"] = {"stdout": "200", "stderr": "", "interrupted": False}
    return json.dumps(p).encode()


def _hook_session(state: Path, agent: str, answer: str | None) -> tuple[Path, list[str]]:
    """A hook session whose every ask got `answer` (None: no one answered); its recording and the live verdicts."""
    sessions = Sessions(Settings())
    live: list[str] = []
    for n in range(CALLS):
        got = sessions.handle(agent, _payload(n, "before"))
        live.append(got["kind"])
        if got["kind"] == "ask":
            got = sessions.settle(agent, "s-1", f"t{n}", answer, "" if answer else "no watch was running")
        if got["kind"] == "allow":
            sessions.handle(agent, _payload(n, "after"))
    for s in sessions.live.values():
        s.close()
    (rec,) = (state / "recordings").glob("*hook*.jsonl")
    return rec, live


@pytest.mark.parametrize(
    ("agent", "answer", "after"),
    [
        ("codex", "allow-once", ["ask"] * 3),  # every later repeat asks again
        ("codex", "allow-turn", ["allow"] * 3),  # the local repeats are waived for the turn
        ("codex", "deny", ["deny"] * 3),  # a declined local repeat refuses the next ones
        ("codex", None, ["deny"] * 3),  # no one answered: refused, as a deny
        ("claude", None, ["ask"] * 3),  # Claude's own prompt asked: the engine heard no answer, live or replayed
    ],
)
def test_scan_of_a_hook_recording_gives_the_verdicts_the_hook_gave_with_the_asks_answered(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    agent: str,
    answer: str | None,
    after: list[str],
) -> None:
    monkeypatch.setenv("BREAKER_TUI_STATE_DIR", str(tmp_path))
    rec, live = _hook_session(tmp_path, agent, answer)
    assert live == ["allow"] * 4 + ["ask"] + after, "the session the test meant to record"
    assert main(["scan", "--json", str(rec)]) == 1  # the asks are findings; the recording is vouched for
    out, err = capsys.readouterr()
    found = [json.loads(line) for line in out.splitlines()]
    assert [f["verdict"] for f in found if f["kind"] == "verdict"] == live
    assert "not reproduced" not in err, err
    approvals = [(f["answer"], f["by"]) for f in found if f["kind"] == "approval"]
    if answer is not None:
        assert approvals == [(answer, "watch")] * live.count("ask")
    elif agent == "codex":
        assert approvals == [("deny", "nobody")]
    else:
        assert approvals == []
