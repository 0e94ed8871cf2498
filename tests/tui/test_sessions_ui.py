"""The session list (ctrl+l), shift+tab through the modes and `@` completion, on the real app.

Frames play through a real `AcpMonitor` (`tui.scripted_acp`); the session list is read from real
recordings the `Recorder` wrote into the run's recordings folder.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from textual.widgets import OptionList

from tests.conftest import wait_until
from tests.tui import acp_scripts
from tests.tui.conftest import session_list, settle, text_of
from tui.app import BreakerApp, create_app
from tui.screens.call import ConfirmScreen
from tui.screens.sessions import SessionsScreen
from tui.scripted_acp import AcpScriptedSource
from wrapper.records.recorder import Recorder
from wrapper.settings import Settings, WrapperSettings


def _app(tmp_path: Path, can_load: bool = True) -> tuple[BreakerApp, AcpScriptedSource, Path]:
    ws = tmp_path / "ws"
    ws.mkdir(exist_ok=True)
    s = Settings(wrapper=WrapperSettings(recordings_dir=str(tmp_path / "rec")))
    src = AcpScriptedSource(acp_scripts.session(), s, cwd=str(ws), can_load=can_load)
    return create_app(src, s), src, ws


def _record(d: Path, name: str, cwd: Path, sid: str, prompt: str) -> None:
    rec = Recorder(d / name, {"argv": ["claude"], "cwd": str(cwd), "harness": "acp", "agent": "claude"})
    rec.write("acp", {"dir": "a2c", "msg": {"jsonrpc": "2.0", "id": 2, "result": {"sessionId": sid}}})
    rec.write("note", {"what": "prompt", "text": prompt, "followup": False})
    rec.close()


async def test_ctrl_l_lists_the_sessions_of_this_folder_and_enter_resumes_one(tmp_path: Path) -> None:
    app, src, ws = _app(tmp_path)
    d = tmp_path / "rec"
    _record(d, "20261201-100000-session.jsonl", ws, "sess-old", "Fix the flaky test.")
    _record(d, "20261201-110000-session.jsonl", ws, "sess-new", "Read notes.txt.")
    _record(d, "20261201-120000-session.jsonl", tmp_path, "sess-elsewhere", "not this folder")
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(app, src, pilot)
        box = (await session_list(app, pilot)).query_one("#sessions-list", OptionList)
        await wait_until(lambda: box.option_count == 2, 5, "two sessions of this folder")
        rows = [str(box.get_option_at_index(i).prompt) for i in range(2)]
        assert "Read notes.txt." in rows[0] and "Fix the flaky test." in rows[1], rows
        await pilot.press("down", "enter")
        head = app.screen.query_one("#sessions-head")
        await wait_until(lambda: "resume 'Fix the flaky test.'" in text_of(head), 5, "the question on the header")
        assert not src.actions, "one enter only asks"
        await pilot.press("enter")
        await wait_until(lambda: "resume:sess-old" in src.actions, 5, "the older session resumed")
        assert not isinstance(app.screen, SessionsScreen)
        await session_list(app, pilot)
        await pilot.press("escape")
        await wait_until(lambda: not isinstance(app.screen, SessionsScreen), 5, "closed")
        assert src.actions.count("resume:sess-old") == 1 and not any("sess-new" in a for a in src.actions)


async def test_the_list_says_when_the_agent_cannot_load_a_session(tmp_path: Path) -> None:
    app, src, _ = _app(tmp_path, can_load=False)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(app, src, pilot)
        head = text_of((await session_list(app, pilot)).query_one("#sessions-head"))
        assert "does not advertise loadSession" in head and "no past sessions here" in head


async def test_shift_tab_cycles_the_modes_that_ask_and_never_lands_on_a_silent_one(tmp_path: Path) -> None:
    app, src, _ = _app(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, src, pilot)
        assert app.w_prompt.has_focus
        titles = {c.title for c in app.get_system_commands(app.screen)}
        assert "The agent's next mode (those that ask; the palette has the others)" in titles
        await pilot.press("f1")
        await wait_until(lambda: bool(app.screen.query("#help-keys")), 5, "the help screen")
        assert "shift+tab" in text_of(app.screen.query_one("#help-keys")), "an agent with modes: the help says so"
        await pilot.press("escape")
        await wait_until(lambda: app.w_prompt.has_focus, 5, "the help to close, the prompt focused again")
        await pilot.press("shift+tab")
        await wait_until(lambda: "session/set_config_option:mode=plan" in src.actions, 5, "default → plan")
        app.refresh_view()
        await wait_until(lambda: "mode Plan" in text_of(app.w_status), 5, "the status line says so")
        await pilot.press("shift+tab")  # plan → (auto never asks: skipped) → default
        await wait_until(lambda: "session/set_config_option:mode=default" in src.actions, 5, "plan → default")
        assert not any("=auto" in a for a in src.actions) and not isinstance(app.screen, ConfirmScreen)
        assert app.w_prompt.has_focus, "shift+tab switched the mode, it did not move the focus"


async def test_at_completes_files_of_the_folder_and_tab_takes_one(tmp_path: Path) -> None:
    app, src, ws = _app(tmp_path)
    (ws / "src").mkdir()
    (ws / "src" / "notes.txt").write_text("x\n")
    (ws / "README.md").write_text("x\n")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, src, pilot)
        await pilot.press(*"look at @sr")
        await wait_until(lambda: app.w_complete.display, 5, "the path list")
        await pilot.press("tab")
        await wait_until(lambda: app.w_prompt.text == "look at @src/", 5, "the folder taken")
        await wait_until(lambda: app.w_complete.display and app.w_complete.option_count == 1, 5, "inside it")
        await pilot.press("tab")
        await wait_until(lambda: app.w_prompt.text == "look at @src/notes.txt ", 5, "the file taken")
        assert not app.w_complete.display
        await pilot.press("enter")
        await wait_until(lambda: "prompt:look at @src/notes.txt" in src.actions, 5, "sent as typed")


async def test_up_on_the_newest_row_stays_there_rather_than_wrapping_to_the_oldest(tmp_path: Path) -> None:
    app, src, ws = _app(tmp_path)
    d = tmp_path / "rec"
    _record(d, "20261201-100000-session.jsonl", ws, "sess-old", "Fix the flaky test.")
    _record(d, "20261201-110000-session.jsonl", ws, "sess-new", "Read notes.txt.")
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(app, src, pilot)
        box = (await session_list(app, pilot)).query_one("#sessions-list", OptionList)
        await wait_until(lambda: box.option_count == 2, 5, "two sessions")
        await pilot.press("up")
        assert box.highlighted == 0
        await pilot.press("down", "down")
        assert box.highlighted == 1


async def test_a_session_another_monitor_is_recording_is_marked_live_and_not_resumed(tmp_path: Path) -> None:
    app, src, ws = _app(tmp_path)
    d = tmp_path / "rec"
    _record(d, "20261201-100000-session.jsonl", ws, "sess-live", "Read notes.txt.")
    path = d / "20261201-100000-session.jsonl"
    # a real second process holding the recording open for writing, as a second monitor does
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            f"import sys; f = open({str(path)!r}, 'a'); print('open', flush=True); sys.stdin.read()",
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "open\n"
        async with app.run_test(size=(120, 30)) as pilot:
            await settle(app, src, pilot)
            box = (await session_list(app, pilot)).query_one("#sessions-list", OptionList)
            mark = f"live in another monitor, pid {holder.pid}"
            await wait_until(lambda: mark in str(box.get_option_at_index(0).prompt), 10, "the live mark")
            await pilot.press("enter", "enter")
            head = app.screen.query_one("#sessions-head")
            await wait_until(lambda: "would run it twice" in text_of(head), 5, "the refusal on the header")
            assert not src.actions, "nothing was resumed"
    finally:
        holder.kill()
        holder.wait()
