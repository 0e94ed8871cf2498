"""Real opencode and Claude Code against the mock model: resuming past sessions, modes by shift+tab.

* a session resumed from the list (ctrl+l, enter): the agent loads it (`session/load`), what it replays is
  shown as history, and the engine judges none of it (no verdict, nothing in the window);
* `breaker-tui --no-tui --resume ID`: the CLI loads that session;
* shift+tab switches the agent's mode with the request it offers, and after ctrl+r the mode is chosen again.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from engine import events as ev
from tests.conftest import ROOT, wait_until
from tests.integration.acp_helpers import AGENTS, frames, need
from tests.integration.runs import started
from tests.tui.conftest import session_list, stream_text
from tui.app import create_app
from tui.screens.sessions import SessionsScreen
from tui.sources import LiveSource
from wrapper.harness.acp.session import AcpSession
from wrapper.harness.acp.world import make_acp_world
from wrapper.harness.past import list_sessions
from wrapper.harness.registry import open_session
from wrapper.items import Answer, Question
from wrapper.paths import data_dir, recordings_dir
from wrapper.settings import Settings, WrapperSettings

pytestmark = [pytest.mark.integration, pytest.mark.timeout(400)]


async def _one_session(agent: str, settings: Settings, world: Any, prompt: str, loop: bool = False) -> str:
    """A first session of `agent` in the world, recorded where `settings` says; its session id.

    `loop`: the prompt starts the tool loop, and the session is checked as an agent's smoke test checks it
    (test_acp_more_agents.py): reasoning streamed, every call asked about, four run, the fifth cosmetic repeat
    refused before it ran. For Qwen Code this is that test's run: one start of the agent serves both.
    """
    asked: list[Question] = []

    async def allow(q: Question) -> Answer:
        asked.append(q)
        return "allow-once"

    s = open_session([agent], settings, allow, cwd=str(world.workspace), env=world.env)
    assert isinstance(s, AcpSession)
    run = await started(s, 120)
    try:
        assert await s.prompt(prompt)
        assert await s.wait_turn_end(0, 180), f"the first turn did not end: {run.items[-5:]}"
        if loop:
            assert run.events(ev.ReasoningDelta), "no reasoning streamed"
            assert asked, "the agent never asked before a tool call (its preset did not make it ask)"
            kinds = [v.verdict.kind for v in run.verdicts()]
            assert kinds[:5] == ["allow"] * 4 + ["deny"], kinds
            ran = (world.workspace / "calls.log").read_text().splitlines()
            assert len(ran) == kinds.count("allow"), "a refused call ran, or an allowed one did not"
        return s.info.session_id
    finally:
        await run.close()


def _mode_of(result: Any) -> str:
    """The mode a session/new|load answer says the session is in."""
    for o in (result or {}).get("configOptions") or []:
        if o.get("category") == "mode":
            return str(o.get("currentValue"))
    return str(((result or {}).get("modes") or {}).get("currentModeId"))


def _rec(s: AcpSession) -> Path:
    assert s.recorder is not None
    return s.recorder.path


# and Qwen Code, added later. Not Kilo Code: it is opencode's fork, and its session store, `session/load` and
# the history it replays are opencode's code, run here on opencode (each of the two costs about three starts
# of 5-7 s of CPU in this test); Kilo Code's own preset is run end to end in test_acp_more_agents.py.
@pytest.mark.parametrize("agent", (*AGENTS, "qwen"))
async def test_a_session_resumed_from_the_list_shows_its_history_and_none_of_it_is_judged(
    agent: str, tmp_path: Path
) -> None:
    need(agent)
    world = make_acp_world(agent, "tool-loop", tmp_path)
    rec = tmp_path / "rec"
    settings = Settings(wrapper=WrapperSettings(recordings_dir=str(rec)))
    try:
        sid = await _one_session(agent, settings, world, "Read notes.txt.", loop=True)
        src = LiveSource([agent], settings, env=world.env, cwd=str(world.workspace))
        app = create_app(src, settings)
        async with app.run_test(size=(120, 40)) as pilot:
            assert await src.session.wait_ready(120)
            screen = await session_list(app, pilot, 30)
            assert isinstance(screen, SessionsScreen)
            # the first session, once; the live one is not listed (nobody prompted it: nothing to resume)
            assert [s.session_id for s in screen.sessions] == [sid]
            assert screen.sessions[0].title == "Read notes.txt."
            await pilot.press("enter", "enter")  # the list asks first

            live = src.session
            assert isinstance(live, AcpSession)

            def resumed() -> bool:
                return src.info.session_id == sid and live.generation == 2 and live._ready.is_set()

            await wait_until(resumed, 120, "the agent restarted on the old session")
            await pilot.pause()
            app.refresh_view()
            text = stream_text(app)
            assert "↺ you: Read notes.txt." in text, text[-3000:]
            # the agent's own title for the call (Qwen Code's says "Shell: cat notes.txt; …")
            assert re.search(r"↺ tool: (Shell: )?cat notes\.txt", text), "the old tool calls are shown as history"
            snap = src.monitor.breaker.snapshot()
            assert sum(a.window_calls for a in snap.agents) == 0, "no old call entered the window"
        recs = [p for p in rec.iterdir() if p.suffix == ".jsonl"]
        second = max(recs, key=lambda p: p.stat().st_mtime)
        fr = frames(second)
        load = [f for f in fr if f.get("method") == "session/load"]
        assert load and load[0]["params"]["sessionId"] == sid
        history = [f for f in fr if f["_loading"] and f.get("method") == "session/update"]
        assert any(f["params"]["update"].get("sessionUpdate") == "tool_call" for f in history), "replayed calls"
        notes = [json.loads(ln) for ln in second.read_text().splitlines()]
        assert not [r for r in notes if r.get("what") == "verdict"], "nothing of the history was judged"
    finally:
        world.close()


# opencode loads a past session in the test above and after a kill in test_acp_control.py; what this test adds,
# `--resume` on the command line reaching the agent's first handshake, is the same for every agent. Claude
# Code starts in a third of opencode's CPU, and this test starts it twice.
@pytest.mark.parametrize("agent", ["claude"])
async def test_resume_id_on_the_command_line_loads_that_session(agent: str, tmp_path: Path) -> None:
    need(agent)
    world = make_acp_world(agent, "normal", tmp_path)
    try:
        sid = await _one_session(agent, Settings(), world, "Say hello.")
        # the child finds the pinned agent where this process does (the world's HOME is the agent's own)
        env = {**world.env, "PYTHONPATH": str(ROOT), "BREAKER_TUI_DATA_DIR": str(data_dir())}
        cmd = [sys.executable, "-m", "tui", "--no-tui", "--resume", sid, "--prompt", "Say hello.", "--", agent]
        p = subprocess.run(cmd, cwd=world.workspace, env=env, capture_output=True, text=True, timeout=300)
        assert p.returncode == 0, p.stderr[-3000:]
        assert f"session {sid} resumed" in p.stderr, p.stderr[-3000:]
        past = list_sessions(recordings_dir(), agent, str(world.workspace))
        assert [(s.session_id, s.runs) for s in past] == [(sid, 2)], "the resumed run is the same session"
        fr = frames(past[0].path)
        assert [f["params"]["sessionId"] for f in fr if f.get("method") == "session/load"] == [sid]
        assert not [f for f in fr if f.get("method") == "session/new"], "no new session was opened"
        bad = subprocess.run(
            [sys.executable, "-m", "tui", "--no-tui", "--resume=--oops", "--prompt", "x", "--", agent],
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert bad.returncode == 2 and "is not a session id" in bad.stderr, bad.stderr
    finally:
        world.close()


@pytest.mark.parametrize("agent", AGENTS)
async def test_shift_tab_switches_the_mode_at_the_agent_and_ctrl_r_keeps_it(agent: str, tmp_path: Path) -> None:
    need(agent)
    world = make_acp_world(agent, "normal", tmp_path)
    settings = Settings(wrapper=WrapperSettings(recordings_dir=str(tmp_path / "rec")))
    try:
        src = LiveSource([agent], settings, env=world.env, cwd=str(world.workspace))
        app = create_app(src, settings)
        async with app.run_test(size=(120, 40)) as pilot:
            s = src.session
            assert isinstance(s, AcpSession)
            assert await s.wait_ready(120)
            await wait_until(lambda: app.has_modes(), 30, "the agent's modes")
            mode = app.mode_choice()
            assert mode is not None
            target = app._next_modes()[0]  # the mode shift+tab goes to
            assert target != mode.current
            app.w_prompt.focus()
            await pilot.press("shift+tab")

            def current() -> str:
                m = app.mode_choice()
                return m.current if m else ""

            try:
                await wait_until(lambda: current() == target, 30, f"the agent in mode {target}")
            except AssertionError:
                app.refresh_view()
                raise AssertionError(stream_text(app)[:3000] + f" {target} {current()}") from None
            before = s.turns_done
            assert await s.prompt("Say hello.")  # an agent keeps a session only once it had a turn
            assert await s.wait_turn_end(before, 180)
            assert s.chosen == {mode.id: target}
            fr = frames(_rec(s))
            sets = [f for f in fr if f.get("method") in ("session/set_config_option", "session/set_mode")]
            assert sets and target in json.dumps(sets[-1]["params"]), sets[-1:]
            answers = [f for f in fr if f["_dir"] == "a2c" and f.get("id") == sets[-1]["id"]]
            assert answers and "error" not in answers[-1], "the agent took the switch"
            await pilot.press("ctrl+r")
            try:
                await wait_until(lambda: s.generation == 2 and s._ready.is_set(), 120, "the restarted agent")
            except AssertionError:
                app.refresh_view()
                raise AssertionError(stream_text(app)[-3000:] + f" gen={s.generation}") from None
            await wait_until(lambda: current() == target, 30, "the mode chosen again after the restart")
            fr = frames(_rec(s))
            inits = [i for i, f in enumerate(fr) if f.get("method") == "initialize"]
            tail = fr[inits[-1] :]
            load = next(f for f in tail if f.get("method") == "session/load")
            loaded = next(f for f in tail if f["_dir"] == "a2c" and f.get("id") == load["id"])
            after = [f for f in tail if f.get("method") in ("session/set_config_option", "session/set_mode")]
            resent = [f for f in after if target in json.dumps(f["params"])]
            if resent:  # Claude Code: its preset's mode (the one that asks) is sent first, then ours again

                def said_kept() -> bool:  # the notice follows the agent's answer, which may still be on its way
                    app.refresh_view()
                    return "kept from before the restart" in stream_text(app)

                await wait_until(said_kept, 30, "the notice that the mode was kept from before the restart")
            else:  # opencode keeps the mode in its session and sends no preset mode: nothing to send
                assert _mode_of(loaded.get("result")) == target
    finally:
        world.close()
