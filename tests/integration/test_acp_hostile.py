"""The ACP client against the scripted hostile agent of the reliability probes (`hostile_acp.py`).

Each test replays one way a hostile agent got past the client before, with the real agent process,
its real pipes and its real commands (`calls.log` counts what ran): a reused call id, a frame
nested 1,500 and 100,000 deep, a closed stdout, an over-long line, an "allow once" the
agent can only take as "always", a permission flood, the agent dying while a question is open,
and bounded per-call state.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import sys
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path

import pytest

from tests.conftest import wait_until
from tests.integration.runs import Run, asking, running
from wrapper.harness.acp.session import AcpSession
from wrapper.harness.base import Policy, deny_all, recording_line
from wrapper.items import Answer, ApprovalClosed, OutputItem, Question, StatusItem
from wrapper.records.recorder import Recorder
from wrapper.settings import Settings, WrapperSettings

pytestmark = [pytest.mark.integration, pytest.mark.timeout(180)]
AGENT = [sys.executable, str(Path(__file__).with_name("hostile_acp.py"))]


class Hostile(Run[AcpSession]):
    """A run of the hostile agent, whose workspace is the session's folder."""

    def agent_log(self) -> list[str]:
        """What the hostile agent says it did (`FAKE_LOG`)."""
        log = self.workspace / "agent.log"
        return log.read_text().splitlines() if log.exists() else []


async def allow(_: Question) -> Answer:
    return "allow-once"


@contextlib.asynccontextmanager
async def hostile(
    tmp_path: Path, scenario: str, approver: Callable[[Question], Awaitable[Answer]] = allow, **env: str
) -> AsyncIterator[Hostile]:
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "notes.txt").write_text("the notes\n")
    full = {**os.environ, "FAKE_ACP": scenario, "FAKE_LOG": str(ws / "agent.log"), **env}
    questions: list[Question] = []
    settings = Settings(wrapper=WrapperSettings(record=False, kill_grace_s=1))
    s = AcpSession(AGENT, settings, asking(questions, approver), cwd=str(ws), env=full)
    async with running(Hostile(s, questions=questions)) as run:
        yield run


async def turn(run: Hostile, timeout: float = 90) -> None:
    await run.turn("go", timeout)


async def test_h2_a_reused_call_id_is_a_new_call_judged_again(tmp_path: Path) -> None:
    async with hostile(tmp_path, "reuse_id") as run:
        await turn(run)
        kinds = [v.verdict.kind for v in run.verdicts()]
        assert kinds == ["allow"] * 4 + ["deny"] * 2, kinds
        assert len(run.ran()) == 4, "a repeat under a reused id ran"
        assert len({v.call_id for v in run.verdicts()}) == 6, "each occurrence has its own id for the engine"


async def test_h2_a_reused_id_that_never_asks_still_trips(tmp_path: Path) -> None:
    async with hostile(tmp_path, "reuse_unasked") as run:
        await turn(run)
        assert [v.verdict.kind for v in run.verdicts()][:5] == ["allow"] * 4 + ["deny"]
        assert any(i.kind == "warning" and "never asks ran" in i.text for i in run.items if isinstance(i, StatusItem))


@pytest.mark.parametrize("depth", ["1500", "100000"])
async def test_h5_a_frame_nested_deeply_is_dropped_and_the_session_goes_on(tmp_path: Path, depth: str) -> None:
    async with hostile(tmp_path, "deep", FAKE_DEPTH=depth) as run:
        await turn(run)
        assert [v.verdict.kind for v in run.verdicts()][:5] == ["allow"] * 4 + ["deny"], "the loop after it was lost"
        assert len(run.ran()) == 4
        dropped = [i.text for i in run.items if isinstance(i, OutputItem) and "dropped a frame" in i.text]
        assert dropped and "nested" in dropped[0]


async def test_m6_an_agent_that_closes_its_stdout_is_stopped_and_told(tmp_path: Path) -> None:
    async with hostile(tmp_path, "close_stdout", FAKE_HOLD="60") as run:
        assert await run.session.prompt("go")
        info = await run.session.wait_exit(60)
        assert info is not None, "the agent went on unwatched"
        said = [i.text for i in run.items if isinstance(i, StatusItem) and i.kind == "error"]
        assert any("closed its output" in t for t in said), said
        n = len(run.ran())
        assert n < 20, f"{n} commands ran unwatched"


async def test_l5_the_rest_of_an_over_long_line_is_not_printed_raw(tmp_path: Path) -> None:
    async with hostile(tmp_path, "malformed") as run:
        await turn(run)
        assert "after-garbage" in run.ran(), "the session did not survive the garbage"
        out = [i.text for i in run.items if isinstance(i, OutputItem)]
        assert max(len(t) for t in out) < 4000, "a raw blob of the agent's output was printed"
        assert not any("yyyyyyyy" in t for t in out)
        assert any("over-long line" in t for t in out)
        # the deep permission request was answered, not left hanging; nothing else hung the session
        assert run.session.proc is not None and run.session.proc.bad_lines >= 3


async def test_l1_allow_once_is_never_sent_as_allow_always(tmp_path: Path) -> None:
    async with hostile(tmp_path, "unknown_perm") as run:
        await turn(run)
        opts = [line for line in run.agent_log() if line.startswith("perm-opts") and "only-always" in line]
        assert len(opts) == 1, run.agent_log()
        assert '"optionId": "only-always"' not in opts[0].split("]", 1)[1], opts[0]
        notes = [i.text for i in run.items if isinstance(i, StatusItem) and "offers no 'allow once'" in i.text]
        assert notes, "the person was not told why"
        assert any("offers no 'allow once'" in q.reason for q in run.questions)


async def test_m3_a_permission_flood_asks_one_at_a_time_and_refuses_past_the_bound(tmp_path: Path) -> None:
    waiting: list[asyncio.Future[Answer]] = []
    peak = [0]

    async def slow(_: Question) -> Answer:
        fut: asyncio.Future[Answer] = asyncio.get_running_loop().create_future()
        waiting.append(fut)
        peak[0] = max(peak[0], sum(not f.done() for f in waiting))
        return await fut

    async with hostile(tmp_path, "perm_flood", slow, FAKE_N="3000", FAKE_HOLD="60") as run:
        assert await run.session.prompt("go")
        await wait_until(lambda: len(run.answers()) >= 3000 - 40, 120, "the flood to be answered by policy")
        policy = [a for a in run.answers() if a.by == "policy"]
        assert len(policy) >= 3000 - 40 and all(a.answer == "deny" for a in policy)
        assert peak[0] == 1, "more than one question was put to the person at once"
        t0 = asyncio.get_running_loop().time()
        await asyncio.sleep(0)  # the loop is free: the flood did not take it over
        assert asyncio.get_running_loop().time() - t0 < 1
        assert await run.session.cancel()
        await wait_until(lambda: any(isinstance(i, ApprovalClosed) for i in run.items), 30, "the open question closed")


async def test_m5_the_question_closes_when_the_agent_exits_and_a_late_answer_does_nothing(tmp_path: Path) -> None:
    late: list[asyncio.Future[Answer]] = []

    async def person(_: Question) -> Answer:
        fut: asyncio.Future[Answer] = asyncio.get_running_loop().create_future()
        late.append(fut)
        return await fut

    async with hostile(tmp_path, "exit_mid_perm", person, FAKE_DELAY="0.5") as run:
        assert await run.session.prompt("go")
        assert await run.session.wait_exit(30) is not None
        await wait_until(lambda: any(isinstance(i, ApprovalClosed) for i in run.items), 30, "ApprovalClosed")
        closed = next(i for i in run.items if isinstance(i, ApprovalClosed))
        assert run.questions and closed.id == run.questions[0].id and "exited" in closed.reason
        assert late and (late[0].cancelled() or not late[0].done()), "the approver call was left running"
        if not late[0].done():
            late[0].set_result("allow-once")
        await asyncio.sleep(0.1)
        assert run.answers() == [], "a late key was recorded as an answer"


async def test_l2_per_call_state_stays_bounded(tmp_path: Path) -> None:
    async with hostile(tmp_path, "flood", FAKE_N="2000", FAKE_CALLS="2000", FAKE_RUN="0") as run:
        await turn(run)
        assert len(run.session.acp.calls) < 10, len(run.session.acp.calls)
        assert len(run.session.monitor.tool_names) < 10


async def test_l4_answers_of_the_approvals_policy_are_recorded_as_policy(tmp_path: Path) -> None:
    policy = Policy("allow-once")  # what `--no-tui --approvals allow` answers with
    async with hostile(tmp_path, "loop", policy) as run:
        await turn(run)
        assert run.answers() and {a.by for a in run.answers()} == {"policy"}, {a.by for a in run.answers()}


async def test_a_refused_call_the_agent_runs_anyway_is_an_alarm_and_the_agent_is_stopped(tmp_path: Path) -> None:
    """An agent that got `reject_once`, ran the call and reported it `completed` was recorded as denied."""
    async with hostile(tmp_path, "ignore_refusal") as run:
        assert await run.session.prompt("go")
        info = await run.session.wait_exit(90)
        assert info is not None, "the agent that ran a refused call went on"
        said = [i.text for i in run.items if isinstance(i, StatusItem) and i.kind == "error"]
        assert any(t.startswith("ALARM:") and "refused calls ran" in t for t in said), said
        assert "perm call_4 reject" in run.agent_log(), run.agent_log()
        assert "perm call_5 allow" not in run.agent_log(), "after the alarm nothing is allowed"
        assert run.session.acp.exit_status() != 0


async def test_after_an_alarm_a_restarted_agent_gets_an_answer_to_each_question(tmp_path: Path) -> None:
    """The alarm left the session closing: a restarted agent's questions got no answer and it hung."""
    async with hostile(tmp_path, "ignore_refusal") as run:
        assert await run.session.prompt("go")
        assert await run.session.wait_exit(90) is not None, "the agent that ran a refused call went on"
        before = len([line for line in run.agent_log() if line.startswith("perm ")])
        assert await run.session.restart()
        assert await run.session.wait_ready(90)
        assert await run.session.prompt("go")
        await run.until(
            lambda: len([line for line in run.agent_log() if line.startswith("perm ")]) > before,
            90,
            "the restarted agent's question to be answered",
        )
        after = [line for line in run.agent_log() if line.startswith("perm ")][before:]
        assert "allow" not in after[0], "after the alarm nothing is allowed, the restart included"


async def test_a_turn_the_quit_cuts_short_is_counted_once_on_the_end_line(tmp_path: Path) -> None:
    """The end line counts a turn the quit cut short (dsh's: `tests/integration/test_dsh_stops.py`); an ACP
    agent's prompt is answered as it goes, which ends the turn: counted once, as ended.
    """
    ws = tmp_path / "ws"
    ws.mkdir()
    env = {**os.environ, "FAKE_ACP": "hang", "FAKE_LOG": str(ws / "agent.log")}
    settings = Settings(wrapper=WrapperSettings(record=False, kill_grace_s=1))
    recorder = Recorder(tmp_path / "rec.jsonl", {"test": "cut short"})
    s = AcpSession(AGENT, settings, deny_all, cwd=str(ws), env=env, recorder=recorder)
    async with running(Hostile(s, questions=[])) as run:
        assert await run.session.prompt("go")
        await run.until(lambda: run.session.info.busy and run.session.turns_started == 1, 60, "turn 1 under way")
        await run.session.quit()
        assert " — 1 turn(s), " in recording_line(run.session), recording_line(run.session)
