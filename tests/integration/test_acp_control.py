"""Approvals, cancel, kill, restart and `--no-tui` with real ACP agents against the mock model.

That a recording replays to the live decisions is checked on the tool loop's own run, in test_acp_loops.py.
"""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from engine import events as ev
from tests.integration.acp_helpers import AGENTS, acp_run, group_gone, need
from wrapper.harness.acp.world import make_acp_world
from wrapper.harness.base import deny_all
from wrapper.headless import run as headless_run
from wrapper.items import Answer, ApprovalItem, ResultItem
from wrapper.settings import Settings, WrapperSettings

pytestmark = [pytest.mark.integration, pytest.mark.timeout(300)]


# Which of the agent's permission options an answer becomes is per agent; what the breaker does with its own
# question is not. Claude Code runs all three answers. opencode (about 5 s of CPU to start) runs the one answer
# whose effect is its own: cancel-turn, the outcome `cancelled` and the turn cancelled while it waits. Its
# allow_once and reject_once options (what allow-once and deny become) are sent in every run of the tool loop
# in test_acp_loops.py: four calls the person allows, the fifth refused.
LOCAL_ANSWERS = [
    *(pytest.param("claude", a, id=f"{a}-claude") for a in ("allow-once", "deny", "cancel-turn")),
    pytest.param("opencode", "cancel-turn", id="cancel-turn-opencode"),
]


@pytest.mark.parametrize(("agent", "answer"), LOCAL_ANSWERS)
async def test_local_address_repeat_opens_the_approval_and_each_answer_has_its_effect(
    agent: str, answer: Answer, tmp_path: Path
) -> None:
    first_four: list[Answer] = ["allow-once"] * 4
    async with acp_run(agent, "dev-server-loop", tmp_path, answers=[*first_four, answer]) as run:
        await run.turn("Wait for the dev server.")
        ours = [q for q in run.questions if q.from_breaker]
        assert ours, f"the breaker never asked: {[q.reason for q in run.questions]}"
        q = ours[0]
        assert q.local and q.hits, "the question carries the evidence (hits, local note)"
        assert run.questions.index(q) == 4, "the first four polls were the agent's own asks"
        done = [i for i in run.items if isinstance(i, ApprovalItem) and i.question == q and i.answer]
        assert done and done[0].answer == answer
        result = next(i for i in run.items if isinstance(i, ResultItem) and i.call_id == q.call_id)
        if answer == "allow-once":
            assert not result.is_error or "code-4" in result.text, result
        else:
            assert result.is_error, "a refused call must not run"
        if answer == "cancel-turn":
            assert run.events(ev.TurnEnd)[-1].reason in ("cancelled", "end_turn")
            assert len(run.questions) == 5, "nothing ran after the turn was cancelled"


@pytest.mark.parametrize("agent", AGENTS)
async def test_cancel_kill_restart_and_no_orphans(agent: str, tmp_path: Path) -> None:
    async with acp_run(agent, "hang", tmp_path) as run:
        s = run.session
        await run.cancel_hanging_turn()
        assert run.events(ev.TurnEnd)[-1].reason == "cancelled"
        await run.turn("Say hello.")  # the session takes prompts after a cancel
        assert "Hello from the mock model" in run.answer_text()
        sid = s.info.session_id
        pgid = s.proc.pgid if s.proc else None
        assert pgid is not None
        info = await s.kill()
        assert info is not None and s.info.child == "exited"
        await run.until(lambda: group_gone(pgid), 10, "the agent's process group to be gone")
        assert await s.restart()
        assert await s.wait_ready(120), "the restarted agent never opened a session"
        assert s.info.session_id == sid, "restart did not load the same session"
        assert any("restarting on session" in i.text for i in run.status("notice"))
        assert any("resumed" in i.text for i in run.status("ready"))
        await run.turn("Say hello again.")
        pgid2 = s.proc.pgid if s.proc else None
    assert pgid2 is not None
    assert group_gone(pgid2), "closing the session left agent processes behind"


@pytest.mark.parametrize("agent", AGENTS)
async def test_headless_prompts_decisions_on_stderr_answer_on_stdout(agent: str, tmp_path: Path) -> None:
    need(agent)
    world = make_acp_world(agent, "read-loop", tmp_path)
    err, out = io.StringIO(), io.StringIO()
    settings = Settings(wrapper=WrapperSettings(headless_approvals="allow", recordings_dir=str(tmp_path / "rec")))
    try:
        code = await headless_run(
            [agent], settings, ["Read notes.txt."], err=err, out=out, env=world.env, cwd=str(world.workspace)
        )
    finally:
        world.close()
    # a read never asks: it ran, then tripped (labelled so, not as a denial it never was)
    assert "RAN without asking, then tripped: read" in err.getvalue(), err.getvalue()
    assert "DENY read" not in err.getvalue()
    assert "turn cancelled, one follow-up prompt sent" in err.getvalue()
    assert code == 0, err.getvalue()
    assert "stopped re-reading notes.txt" in out.getvalue(), "the answer belongs on stdout"
    assert "session/create" not in out.getvalue(), "the agent's stderr does not belong on stdout"
    assert list((tmp_path / "rec").glob("*.jsonl")), "no recording written"
    # test_acp_loops.py runs this loop with Claude Code only: this is opencode's run of it, so the follow-up
    # is checked where it must arrive, at the model
    asked = [r for r in world.mock.requests if "[breaker-tui]" in str(r["body"].get("messages"))]
    assert asked, "the follow-up never reached the model"


async def test_a_known_agent_run_as_node_script_with_acp_flag_keeps_its_preset(tmp_path: Path) -> None:
    """`--acp -- node …/claude-agent-acp/dist/index.js` is Claude: it is still made to ask (D3)."""
    need("claude")
    from wrapper.harness.acp.presets import PRESETS
    from wrapper.harness.acp.session import AcpSession
    from wrapper.harness.registry import open_session
    from wrapper.toolchain import node

    world = make_acp_world("claude", "normal", tmp_path)
    argv = [str(node()), str(PRESETS["claude"].launcher())]
    s = open_session(
        argv,
        Settings(wrapper=WrapperSettings(record=False)),
        deny_all,
        cwd=str(world.workspace),
        env=world.env,
        acp=True,
    )
    assert isinstance(s, AcpSession) and s.preset is not None and s.preset.name == "claude"
    assert s.argv[:2] == argv
    try:
        await s.start()
        assert await s.wait_ready(120)
        assert await s.prompt("Say hello.")
        assert await s.wait_turn_end(0, 120)
        assert s.info.model and s.info.provider
    finally:
        await s.close()
        world.close()
