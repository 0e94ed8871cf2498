"""Codex (`codex-acp`) and Gemini CLI driven for real against the mock model, through the per-agent items.

What it proves, agent by agent: Codex's structured `rawOutput` (its output and exit code) is shown and is
what the engine judges, so a failing command retried is stopped by the failure rule; Gemini's command
output, where its shell runs on pipes, is shown and judged the same way; Gemini's follow-up after a
refusal carries the task it dropped with the cancelled prompt; the person's own approval setting (Codex's
`approval_policy` in their config.toml, Gemini's `--yolo`) answers the asks breaker-tui adds, recorded as
policy, while the 5th cosmetic repeat is still refused before it runs; and history an agent replays after
`session/load` is never judged again.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from engine import events as ev
from tests.integration.acp_helpers import AcpRun, acp_run
from wrapper.items import ApprovalItem, CallItem, EngineItem, ResultItem, StatusItem, VerdictItem
from wrapper.mock.world import World

pytestmark = [pytest.mark.integration, pytest.mark.timeout(400)]


def calls(run: AcpRun) -> list[CallItem]:
    return [i for i in run.items if isinstance(i, CallItem)]


def results(run: AcpRun) -> list[ResultItem]:
    return [i for i in run.items if isinstance(i, ResultItem)]


def ran(run: AcpRun) -> int:
    log = run.world.workspace / "calls.log"
    return len(log.read_text().splitlines()) if log.exists() else 0


def assert_failure_rule_stops_the_retry(run: AcpRun) -> None:
    """`failing-tool`: three runs fail and are judged on their output; the 4th is refused by the failure rule."""
    shown = [r for r in results(run) if "(refused)" not in r.text]
    assert len(shown) == 3 and all("ZeroDivisionError" in r.text for r in shown), shown
    v = run.verdicts()
    assert [x.verdict.kind for x in v[:4]] == ["allow"] * 3 + ["deny"], v
    assert v[3].verdict.source == "failure", v[3].verdict


async def test_codex_raw_output_and_exit_code_reach_the_screen_and_the_failure_rule(tmp_path: Path) -> None:
    async with acp_run("codex", "failing-tool", tmp_path) as run:
        await run.turn("Run the script.", timeout=300)
        finished = [c for c in calls(run) if c.status in ("completed", "failed")]
        assert finished and all(c.exit_code == 1 and "ZeroDivisionError" in c.output for c in finished), finished
        assert all(r.is_error for r in results(run)), "a non-zero exit is a failure"
        assert_failure_rule_stops_the_retry(run)


def pipe_shell(world: World) -> None:
    """The person's own Gemini settings: commands on pipes (its pty sends ACP no output)."""
    f = world.home / ".gemini" / "settings.json"
    settings = json.loads(f.read_text())
    settings.setdefault("tools", {})["shell"] = {"enableInteractiveShell": False}
    f.write_text(json.dumps(settings))


async def test_gemini_results_are_shown_and_judged(tmp_path: Path) -> None:
    async with acp_run("gemini", "failing-tool", tmp_path, before=pipe_shell) as run:
        await run.turn("Run the script.", timeout=300)
        finished = [c for c in calls(run) if c.status == "completed"]
        assert finished and all("ZeroDivisionError" in c.output for c in finished[:3]), finished
        assert_failure_rule_stops_the_retry(run)


TASK = "Read notes.txt and tell me the release day (task 7f3a)."


async def test_gemini_follow_up_after_a_refusal_carries_the_cancelled_question(tmp_path: Path) -> None:
    async with acp_run("gemini", "tool-loop", tmp_path) as run:
        await run.turn(TASK, timeout=300)
        kinds = [v.verdict.kind for v in run.verdicts()]
        assert kinds[:5] == ["allow"] * 4 + ["deny"], kinds
        follow = [f for f in run.followups() if "REPEAT_TOOL_BLOCKED" in f]
        assert follow and TASK in follow[0], run.followups()
        # what the model received: the request holding the reason also holds the task Gemini had dropped
        bodies = [b for b in (tmp_path / "model-requests.jsonl").read_text().splitlines() if "REPEAT_TOOL_BLOCKED" in b]
        assert bodies and all("task 7f3a" in b for b in bodies), bodies[:1]


def policy(path: str) -> Callable[[World], None]:
    def write(world: World) -> None:
        f = world.home / ".codex" / "config.toml"
        f.write_text(re.sub(r'approval_policy = "[a-z-]+"', f'approval_policy = "{path}"', f.read_text()))

    return write


# Gemini CLI's --yolo is the person's own setting in test_acp_own_agent.py, which checks the same (the repeat
# refused, nobody asked, the policy's answers citing the flag) on their own copy: one start of it serves both.
@pytest.mark.parametrize("agent", ["codex"])
async def test_the_persons_own_approval_setting_answers_and_the_repeat_is_still_refused(
    agent: str, tmp_path: Path
) -> None:
    why = "config.toml: approval_policy = on-request"
    async with acp_run(agent, "tool-loop", tmp_path, before=policy("on-request")) as run:
        await run.turn("Read notes.txt.", timeout=300)
        kinds = [v.verdict.kind for v in run.verdicts()]
        assert kinds[:5] == ["allow"] * 4 + ["deny"], kinds
        assert run.questions == [], "the person's own setting allows: nobody is asked"
        answers = [i for i in run.items if isinstance(i, ApprovalItem) and i.answer is not None]
        assert len(answers) >= 4 and all(a.by == "policy" and why in a.why for a in answers[:4]), answers[:4]
        assert not any(a.by in ("person", "operator") for a in answers)
        assert ran(run) == 4, "a refused repeat ran"


JUDGED = (ev.ReasoningDelta, ev.AnswerDelta, ev.ToolCall, ev.UserMessage, ev.StepStart)


def minute() -> int:
    return time.gmtime().tm_min


@pytest.mark.parametrize("agent", ["codex", "gemini"])
async def test_history_replayed_after_session_load_is_never_judged_again(agent: str, tmp_path: Path) -> None:
    async with acp_run(agent, "tool-loop", tmp_path) as run:
        started = minute()
        await run.turn("Read notes.txt.", timeout=300)
        if agent == "gemini":
            # Gemini CLI 0.61.0 names a session's file by the minute it starts: restarted within that minute,
            # the new process's file for the same session replaces the history and the load finds "no previous
            # sessions" (see the README, Agents, Limits). Wait for the next minute (a condition, at most a minute).
            await run.until(lambda: minute() != started, 75, "the next minute")
        s = run.session
        assert s.agent_caps.get("loadSession"), f"{agent} offers no session/load"
        window = s.breaker.snapshot().agents[0].window_calls
        reasoned = s.breaker.snapshot().agents[0].reasoning_chars
        mark = len(run.items)
        sid = s.info.session_id
        assert await s.restart()
        assert await s.wait_ready(120)
        assert s.info.session_id == sid, "not resumed on the same session"
        after = run.items[mark:]
        judged = [i for i in after if isinstance(i, VerdictItem | CallItem | ResultItem)] + [
            i for i in after if isinstance(i, EngineItem) and isinstance(i.event, JUDGED)
        ]
        assert judged == [], judged[:5]
        replayed = [
            r
            for r in map(json.loads, run.recording.read_text().splitlines())
            if r.get("k") == "acp" and r.get("loading") and r["msg"].get("method") == "session/update"
        ]
        kinds = {str(r["msg"].get("params", {}).get("update", {}).get("sessionUpdate")) for r in replayed}
        assert kinds & {"tool_call", "agent_thought_chunk"}, f"the agent replayed no history: {kinds}"
        snap = s.breaker.snapshot().agents[0]
        assert (snap.window_calls, snap.reasoning_chars) == (window, reasoned), "the history fed the engine"
        # the next prompt ends the replay; the history is counted in a notice, and the new turn is judged
        await run.turn("Say what you found.", timeout=300)
        # the notice's own words: the history shown holds the workspace's path, whose folder is named after this test
        said = "updates of the resumed session's"
        notes = [i.text for i in run.items[mark:] if isinstance(i, StatusItem) and said in i.text]
        assert len(notes) <= 1, notes
