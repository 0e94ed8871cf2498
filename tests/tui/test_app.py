"""Pilot tests: every screen and every action of the app, against scripted feeds."""

from __future__ import annotations

import pytest
from textual.widgets import DataTable, Static

from tests.conftest import wait_until
from tests.tui import scripts
from tests.tui.conftest import approval_modal, make, settle, stream_text, text_of
from tui import keys
from tui.widgets.stream import StreamView


async def test_main_screen_shows_stream_verdicts_window_and_status() -> None:
    app, src = make(scripts.tool_loop())
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(app, src, pilot)
        text = stream_text(app)
        assert "▶ you: Read notes.txt" in text
        assert "⚙ bash  cat notes.txt" in text
        assert text.count("✓ allowed") == 4 and text.count("⛔ DENIED (repeat)") == 2
        assert "I should read notes.txt again (attempt 3)." in text
        table = app.query_one("#window", DataTable)
        rows = [[str(c) for c in table.get_row_at(i)] for i in range(table.row_count)]
        assert ["████████│▶", "6/5", "HIT", "cmd:cat:cat notes.txt"] in rows, "the bar fills to the cap line, ▶ past it"
        status = text_of(app.w_status)
        assert "…bbb-demo" in status and "ENFORCING" in status


async def test_the_window_panel_shows_a_detected_cycle() -> None:
    app, src = make(scripts.view_cycle())
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(app, src, pilot)
        assert "⛔ DENIED" in stream_text(app), "the cycle is denied"
        table = app.query_one("#window", DataTable)
        rows = [[str(c) for c in table.get_row_at(i)] for i in range(table.row_count)]
        cyc = [r for r in rows if r[2] == "CYC"]
        assert cyc and all(r[1].startswith("×") for r in cyc), rows
        # the panel's fingerprint column is narrow at 140 columns: the calls are cut in their middle, keeping
        # the tool and the end that tells the pages apart
        assert all(r[3].startswith("read {") for r in cyc) and len({r[3] for r in cyc}) == len(cyc), cyc
        assert "cycle" in str(table.border_subtitle), table.border_subtitle


async def test_trip_shows_a_banner_with_rule_evidence_and_action() -> None:
    app, src = make(scripts.reasoning_loop())
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(app, src, pilot)
        banner = app.w_banner
        assert banner.has_class("tripped")
        text = text_of(banner)
        assert "TRIP" in text and "abort, then retry with thinking off" in text
        assert "⚡ TRIP" in stream_text(app)
        scores = app.source.monitor.breaker.snapshot().agents[0]
        assert scores.trips == 1


@pytest.mark.parametrize(
    ("key", "answer"), [("a", "allow-once"), ("t", "allow-turn"), ("d", "deny"), ("c", "cancel-turn")]
)
async def test_approval_modal_answers_on_each_key(key: str, answer: str) -> None:
    app, src = make(scripts.local_loop())
    async with app.run_test(size=(140, 40)) as pilot:
        modal = await approval_modal(app)
        assert "net:127.0.0.1:3000/health" in text_of(modal.query_one("#hits", Static))
        assert "LOCAL address" in text_of(modal.query_one("#local-note", Static))
        await pilot.press("tab", key)  # tab arms the modal (see test_approval.py)
        await settle(app, src, pilot)
        assert src.answers == [answer]
        snap = app.source.monitor.breaker.snapshot().agents[0]
        if answer.startswith("allow"):  # allow once exempts nothing; allow-turn this URL for the turn
            assert snap.local_exempt == (answer == "allow-turn") and not snap.local_refused
        else:
            assert snap.local_refused
        assert ("cancel" in src.actions) == (answer == "cancel-turn")


@pytest.mark.parametrize(
    ("key", "expect"),
    [
        ("escape", "cancel"),
        ("ctrl+k", "kill"),
        ("ctrl+r", "restart"),
        ("ctrl+e", "enforcing:False"),
        ("f5", "reset-windows"),
    ],
)
async def test_action_keys_reach_the_source(key: str, expect: str) -> None:
    app, src = make(scripts.tool_loop_working())  # a turn runs: escape has one to cancel
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(app, src, pilot)
        await pilot.press(key)
        await wait_until(lambda: expect in src.actions, 5, f"{key} to reach the source")
        if key == "ctrl+e":
            app.refresh_view()
            assert "OBSERVING ONLY" in text_of(app.w_status)
        if key == "f5":
            app.refresh_view()
            assert app.query_one("#window", DataTable).row_count == 0


async def test_view_toggles_reasoning_output_agent_and_theme() -> None:
    app, src = make(scripts.two_agents())
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(app, src, pilot)
        stream = app.query_one("#stream", StreamView)
        await pilot.press("ctrl+t")
        await wait_until(lambda: not stream.show_reasoning, 5, "reasoning folded")
        assert not app.w_output.display, "no child output yet: the pane stays hidden"
        await pilot.press("ctrl+o")
        await wait_until(lambda: app.w_output.display, 5, "the output pane")
        first = app.selected_agent
        await pilot.press("ctrl+n")
        await wait_until(lambda: app.selected_agent == scripts.SUB, 5, "the next agent")
        assert first == scripts.SID
        app.refresh_view()
        table = app.query_one("#window", DataTable)
        assert any("ls src" in str(table.get_row_at(i)[3]) for i in range(table.row_count))
        before = app.theme
        await pilot.press("ctrl+y")
        await wait_until(lambda: app.theme != before, 5, "the next theme")
        assert app.theme != before and app.theme in ("breaker-dark", "breaker-light")


async def test_every_action_is_in_the_command_palette() -> None:
    app, src = make(scripts.tool_loop())
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(app, src, pilot)
        titles = {c.title for c in app.get_system_commands(app.screen)}
        for k in keys.KEYS:
            if k.id in ("help.char", "quit") or k.modes == (keys.REPLAY,):
                continue
            if k.id == "mode":  # dsh has no modes: the cycle is offered only when there is one to go to
                assert not app.has_modes()
                continue
            assert k.help[:1].upper() + k.help[1:] in titles, k.id
        assert not any(t.startswith("Play") for t in titles), "no replay actions in a live session"
        cmd = next(c for c in app.get_system_commands(app.screen) if c.title.startswith("Kill the child"))
        await cmd.callback()
        assert "kill" in src.actions


async def test_prompt_box_sends_the_message() -> None:
    app, src = make(scripts.tool_loop())
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(app, src, pilot)
        app.query_one("#prompt").focus()
        await pilot.press(*"go on", "enter")
        await wait_until(lambda: "prompt:go on" in src.actions, 5, "the prompt sent")
