"""`breaker-tui watch` against a real `breaker-tui serve`, fed by real hook processes; its layout on fixed data.

The server is the one the first hook starts (on a private run folder); the asks reach the real screen
over its watch connection, and the hook process waiting for its verdict gets the person's answer.
What the screen makes of a list it was given (the selection, the footer, the snapshots) is tested on
fixed sessions passed in as its providers, with no server: nothing in them is about the socket.
"""

from __future__ import annotations

import asyncio
import io
import json
import os
import signal
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console
from textual.binding import Binding
from textual.widgets import DataTable, Footer
from textual.widgets._footer import FooterKey

from tests.conftest import wait_until
from tests.tui.conftest import cut_sideways
from tui.watch import Providers, WatchApp, ask_reason
from tui.widgets.window import WindowTable
from wrapper.hooks import install as I

pytestmark = [pytest.mark.tui, pytest.mark.slow]


@pytest.fixture
def env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[dict[str, str]]:
    """A private state and run folder for the server the first hook starts; the server stopped after."""
    run = tempfile.mkdtemp(prefix="bkw-", dir="/tmp")
    (tmp_path / "none.toml").write_text("")  # a named config must exist: empty is all defaults
    values = {
        "BREAKER_TUI_STATE_DIR": str(tmp_path / "state"),
        "BREAKER_TUI_RUN_DIR": os.path.join(run, "run"),
        "BREAKER_TUI_CONFIG": str(tmp_path / "none.toml"),
    }
    for k, v in values.items():
        monkeypatch.setenv(k, v)
    try:
        yield {**os.environ, **values}
    finally:
        pid = Path(values["BREAKER_TUI_RUN_DIR"]) / "serve.pid"
        if pid.exists():
            os.kill(int(pid.read_text()), signal.SIGTERM)
            deadline = time.monotonic() + 60
            while pid.exists() and time.monotonic() < deadline:
                time.sleep(0.05)
        subprocess.run(["rm", "-rf", run], check=False)


def hook(env: dict[str, str], agent: str, payload: dict[str, object]) -> bytes:
    """The installed hook run once on `payload`; what it printed (nothing: the call is allowed)."""
    p = subprocess.run(
        [*I.launcher(), agent], input=json.dumps(payload).encode(), capture_output=True, env=env, timeout=120
    )
    assert p.returncode == 0, p.stderr
    return p.stdout


def rows(app: WatchApp) -> list[list[str]]:
    t = app.query_one("#sessions", DataTable)
    return [[str(c) for c in t.get_row_at(i)] for i in range(t.row_count)]


async def test_watch_lists_every_live_session_and_enter_opens_its_recording(env: dict[str, str]) -> None:
    claude = {"session_id": "c-1", "hook_event_name": "PreToolUse", "tool_name": "Bash", "cwd": "/tmp/alpha"}
    for n in range(6):  # the same call six times: some are refused; the ones that ran report their result
        call: dict[str, object] = {**claude, "tool_input": {"command": "make test"}, "tool_use_id": f"t{n}"}
        if not hook(env, "claude", call):
            hook(env, "claude", {**call, "hook_event_name": "PostToolUse", "tool_response": {"stdout": "ok"}})
    gemini = {"session_id": "g-1", "hook_event_name": "BeforeTool", "tool_name": "run_shell_command"}
    hook(env, "gemini", {**gemini, "cwd": "/tmp/beta", "tool_input": {"command": "ls"}})
    app = WatchApp(refresh_s=0.2)
    async with app.run_test(size=(140, 20)) as pilot:
        deadline = time.monotonic() + 60
        while len(rows(app)) < 2:
            assert time.monotonic() < deadline, f"watch never listed both sessions: {rows(app)}"
            await pilot.pause(0.1)
        got = {r[0]: r for r in rows(app)}
        assert got["gemini"][1:6] == ["/tmp/beta", "g-1", "1", "0", "allow"]
        assert got["claude"][1:3] == ["/tmp/alpha", "c-1"] and got["claude"][3] == "6"
        assert int(got["claude"][4]) >= 1 and got["claude"][5].startswith("deny (")
        row = [r[0] for r in rows(app)].index("claude")
        app.query_one("#sessions", DataTable).move_cursor(row=row)
        await pilot.press("enter")
    assert app.return_value is not None and "hook-claude" in Path(app.return_value).name
    assert Path(app.return_value).exists()


async def test_watch_says_when_no_server_runs(env: dict[str, str]) -> None:
    app = WatchApp(refresh_s=0.2)
    async with app.run_test(size=(120, 12)) as pilot:
        await pilot.pause()
        said = str(app.query_one("#state").render())
        assert "breaker-tui serve is not running" in said and "breaker-tui hooks install claude" in said
        assert rows(app) == []
        assert not app.query_one("#window").display, "empty panes with no session to show"


def curl(n: int) -> str:
    return f"curl -s -w 'code-{n}' -o /dev/null http://127.0.0.1:3000/p"


def local(agent: str, n: int) -> dict[str, object]:
    """A call to a local address: its fifth repeat is one the engine asks the person about."""
    if agent == "gemini":
        return {"session_id": "g-9", "hook_event_name": "BeforeTool", "tool_name": "run_shell_command",
                "cwd": "/tmp/gamma", "tool_input": {"command": curl(n)}}  # fmt: skip
    return {"session_id": "x-9", "hook_event_name": "PreToolUse", "tool_name": "Bash", "cwd": "/tmp/gamma",
            "tool_input": {"command": curl(n)}, "tool_use_id": f"t{n}"}  # fmt: skip


async def until(pilot: object, ok: object, what: str) -> None:
    deadline = time.monotonic() + 60
    while not ok():  # type: ignore[operator]
        assert time.monotonic() < deadline, what
        await pilot.pause(0.1)  # type: ignore[attr-defined]


@pytest.mark.parametrize(("agent", "key", "said"), [("gemini", "a", b""), ("codex", "d", b"declined it")])
async def test_an_ask_reaches_watch_and_the_persons_answer_reaches_the_hook(
    env: dict[str, str], agent: str, key: str, said: bytes
) -> None:
    for n in range(4):
        hook(env, agent, local(agent, n))
    app = WatchApp(refresh_s=0.2)
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: app.link is not None and rows(app), "watch never connected to the server")
        fifth = await asyncio.create_subprocess_exec(
            *I.launcher(), agent, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, env=env
        )
        assert fifth.stdin is not None
        fifth.stdin.write(json.dumps(local(agent, 4)).encode())
        fifth.stdin.close()
        await until(pilot, lambda: bool(app.asks), "the ask never reached watch")
        shown = str(app.query_one("#ask").render())
        assert f"{agent} · /tmp/gamma" in shown and curl(4) in shown and "rule repeat:net" in shown
        await pilot.press(key)
        out, _ = await asyncio.wait_for(fifth.communicate(), 60)
        assert fifth.returncode == 0
        assert said in out if said else out == b""  # an allow is silent
        await until(pilot, lambda: not app.asks, "the answered ask stayed on the screen")


async def test_the_selected_sessions_scores_window_and_timeline_are_shown(env: dict[str, str]) -> None:
    for n in range(6):
        hook(env, "claude", {"session_id": "c-2", "hook_event_name": "PreToolUse", "tool_name": "Bash",
                             "tool_input": {"command": "make test"}, "tool_use_id": f"t{n}"})  # fmt: skip
    app = WatchApp(refresh_s=0.2)
    async with app.run_test(size=(80, 24)) as pilot:
        window = app.query_one("#window", WindowTable)
        await until(pilot, lambda: window.row_count > 0, "the window panel stayed empty")
        cells = [str(window.get_row_at(i)[-1]) for i in range(window.row_count)]
        assert any("make test" in c for c in cells)
        assert str(window.border_title).startswith("window · turn 1 ✓✓✓✓✗✗")
        shown = Console(width=80, record=True, file=io.StringIO())
        shown.print(app.query_one("#misc").render())
        text = shown.export_text()
        assert "refused 2 · asked 0" in text
        assert "reasoning" not in text and "trips" not in text, "a hook never feeds the text lenses"


# -- fixed data: the screen without a server ------------------------------------------------------------------
UUID = "3f1c2a9e-8b7d-4c1e-9f0a-2b6d5e4c3a1f"
SESSIONS: list[dict[str, object]] = [
    {"agent": "claude", "session": "c-1", "cwd": "/tmp/alpha", "calls": 6, "denials": 2,
     "last": "deny (repeat:exact)", "recording": "/tmp/c-1.jsonl"},
    {"agent": "gemini", "session": UUID, "cwd": "/srv/work/a-rather-long-project-name", "calls": 5,
     "denials": 0, "last": "ask (repeat:net)", "recording": "/tmp/g.jsonl"},
]  # fmt: skip
INF = float("inf")
WINDOWS = {
    "c-1": [("exact:bash:{\"command\":\"make test\"}", 6, 5.0, True), ("cmd:make:make test", 6, 5.0, True),
            ("verb:make", 6, INF, False)],
    UUID: [("net:127.0.0.1:3000/health", 5, 5.0, True), ("site:127.0.0.1", 5, INF, False),
           ("verb:curl", 5, INF, False)],
}  # fmt: skip
STEPS = {"c-1": ["allow"] * 4 + ["deny"] * 2, UUID: ["allow"] * 4 + ["ask"]}
ASK: dict[str, object] = {
    "id": "a1", "agent": "gemini", "session": UUID, "cwd": "/srv/work/a-rather-long-project-name",
    "deadline": 1012.0, "tool": "run_shell_command", "rule": "repeat:net",
    "args": {"command": "curl -s -w code-4 -o /dev/null http://127.0.0.1:3000/health"},
    "reason": "breaker: a call to a LOCAL address (localhost / private network) is about to\nbe blocked as a "
    "repeat:\n  - net:127.0.0.1:3000/health 5/5\n\nAllow once runs this call only.",
}  # fmt: skip


def detail(agent: str, session: str) -> dict[str, object]:
    """The detail the server sends for a session: its scores as JSON, its turn and its steps."""
    window = [{"fingerprint": f, "count": n, "cap": c, "hit": h} for f, n, c, h in WINDOWS[session]]
    scores: dict[str, Any] = {
        "agent": "main", "turn": -1, "window": window, "window_calls": 6, "window_size": 12, "overlap": 0.0,
        "overlap_threshold": 0.7, "novelty_streak": 0, "novelty_limit": 10, "overlap_history": [],
        "deg_flags": [], "deg_streak": 0, "deg_streak_limit": 2, "meaning_ratio": 1.0, "meaning_history": [],
        "reasoning_chars": 0, "max_reasoning_chars": 120000, "failures": [], "trips": 0, "retries_used": 0,
        "local_exempt": False, "local_refused": False, "thinking_off": False,
        "denials": STEPS[session].count("deny"), "asks": STEPS[session].count("ask"), "ran_tripped": 0,
        "cycle": [], "cycle_rule": "", "cycle_period": 0,
    }  # fmt: skip
    return {"scores": scores, "turn": 1, "steps": STEPS[session]}


def fixed(sessions: list[dict[str, object]]) -> WatchApp:
    """A watch on `sessions` (the list may change under it), no ask connection, the clock at 1000 s."""
    providers = Providers(sessions=lambda: list(sessions), detail=detail, follow_asks=False, clock=lambda: 1000.0)
    return WatchApp(refresh_s=3600, providers=providers)


def footer_keys(app: WatchApp) -> list[str]:
    return [k.description for k in app.query_one(Footer).query(FooterKey)]


def test_the_answer_keys_are_the_main_screens_and_the_first_ones_still_answer() -> None:
    keys = {b.key: b.action for b in WatchApp.BINDINGS if isinstance(b, Binding)}
    assert keys["a"] == keys["y"] == "answer('allow-once')" and keys["t"] == "answer('allow-turn')"
    assert keys["d"] == keys["n"] == "answer('deny')"


def test_an_asks_reason_is_the_fingerprints_at_their_cap() -> None:
    assert ask_reason(str(ASK["reason"])) == "net:127.0.0.1:3000/health 5/5"
    assert ask_reason("a failing local service\nsecond line") == "a failing local service"


async def test_the_selected_session_stays_selected_when_a_new_one_comes_in_above() -> None:
    sessions = list(SESSIONS)
    app = fixed(sessions)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(lambda: len(rows(app)) == 2, 30, "the fixed list")
        app.query_one("#sessions", DataTable).move_cursor(row=1)
        await pilot.pause()
        assert app.selected() == f"gemini/{UUID}"
        sessions.insert(0, {**SESSIONS[0], "session": "c-new", "recording": "/tmp/new.jsonl"})
        app.action_refresh()
        await pilot.pause()
        assert len(rows(app)) == 3 and app.selected() == f"gemini/{UUID}"


async def test_long_ids_and_folders_are_cut_so_the_verdict_fits_80_columns() -> None:
    app = fixed(SESSIONS)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(lambda: len(rows(app)) == 2, 30, "the fixed list")
        await pilot.pause()
        gemini = rows(app)[1]
        assert gemini[1] == "…long-project-name" and gemini[2] == "3f1c2a9e…"
        table = app.query_one("#sessions", DataTable)
        assert table.virtual_size.width <= 80, "the last verdict is pushed off the screen"


async def test_the_footer_offers_quit_first_replay_and_the_answers_only_while_an_ask_waits() -> None:
    app = fixed(SESSIONS)
    async with app.run_test(size=(60, 20)) as pilot:
        await wait_until(lambda: len(rows(app)) == 2, 30, "the fixed list")
        without = ["replay", "quit", "refresh"]  # the list's own enter comes first in the chain of keys
        await wait_until(lambda: footer_keys(app) == without, 30, "the footer without an ask")
        app.took([ASK])
        await wait_until(lambda: "allow once" in footer_keys(app), 30, "the answer keys")
        assert "quit" in footer_keys(app)[:2], "a narrow footer keeps its first keys"
        assert app.has_class("cramped"), "at 20 rows an ask leaves the window room, not the scores"
        shown = str(app.query_one("#ask").render())
        assert "session 3f1c2a9e…" in shown and "rule repeat:net: net:127.0.0.1:3000/health 5/5" in shown
        assert "replay" not in footer_keys(app)
        await pilot.press("enter")  # no replay while an ask waits: nobody would answer it
        await pilot.pause()
        assert app.is_running
        app.took([])
        await wait_until(lambda: "replay" in footer_keys(app), 30, "replay offered again")
        await pilot.press("enter")
    assert app.return_value == "/tmp/g.jsonl"  # the asking session was selected


async def test_the_session_of_the_ask_the_keys_answer_is_the_one_selected() -> None:
    app = fixed(SESSIONS)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(lambda: len(rows(app)) == 2, 30, "the fixed list")
        later = {**ASK, "id": "a2", "agent": "claude", "session": "c-1", "cwd": "/tmp/alpha"}
        app.took([ASK, later])  # two wait: the keys answer the oldest, so its session is the one shown
        await pilot.pause()
        assert app.selected() == f"gemini/{UUID}"
        app.took([later])  # the oldest was answered: the next one's session is shown
        await pilot.pause()
        assert app.selected() == "claude/c-1"


async def test_an_ask_from_a_session_not_listed_yet_selects_it_once_it_is() -> None:
    sessions = list(SESSIONS[:1])
    app = fixed(sessions)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(lambda: len(rows(app)) == 1, 30, "the first session")
        app.took([ASK])  # its session's first call asks before the list has its row
        await pilot.pause()
        sessions.append(SESSIONS[1])
        app.action_refresh()
        await wait_until(lambda: len(rows(app)) == 2, 30, "the asking session listed")
        assert app.selected() == f"gemini/{UUID}"


async def test_on_a_40x10_terminal_the_ask_still_shows_its_keys() -> None:
    app = fixed(SESSIONS)
    async with app.run_test(size=(40, 10)) as pilot:
        await wait_until(lambda: len(rows(app)) == 2, 30, "the fixed list")
        app.took([ASK])
        await pilot.pause()
        seen = app.query_one("#ask").region
        assert seen.height > 1, "the ask panel is not on the screen"
        first = str(app.query_one("#ask").render()).splitlines()[0]
        assert first.startswith("ASK  a allow once") and " d deny · 12 s left" in first


@pytest.mark.parametrize("size", [(60, 20), (80, 24), (120, 40)], ids=["60x20", "80x24", "120x40"])
@pytest.mark.parametrize("ask", [False, True], ids=["list", "ask"])
async def test_the_screen_fits_its_width_and_cuts_only_with_a_mark(size: tuple[int, int], ask: bool) -> None:
    """At 60 columns the list scrolled sideways to show `deny (repeat` and the window's fingerprints ran out
    of sight unmarked: every row fits, each verdict whole, and what is cut ends in `…`.
    """

    def exempt(agent: str, session: str) -> dict[str, object]:  # a turn whose local repeats the person allowed
        data = detail(agent, session)
        return {**data, "scores": {**data["scores"], "local_exempt": True}}  # type: ignore[dict-item]

    providers = Providers(sessions=lambda: list(SESSIONS), detail=exempt, follow_asks=False, clock=lambda: 1000.0)
    app = WatchApp(refresh_s=3600, providers=providers)
    async with app.run_test(size=size) as pilot:
        await _settled(app, ask)(pilot)
        assert cut_sideways(app.screen) == []
        shown = [strip.text for strip in app.screen._compositor.render_strips()]
        if not ask or size[1] >= 32:  # a short terminal leaves the scores out for the ask
            assert any("allowed this turn" in row for row in shown), shown
        if not ask:
            assert any(row.rstrip().endswith("deny (repeat:exact)") for row in shown), shown
            assert any(row.rstrip().endswith("ask (repeat:net)") for row in shown), shown
        window = app.query_one("#window", WindowTable)
        assert window.row_count == 3
        # the fingerprints as the window has them, whole or cut in the middle with a mark
        fingerprints = [str(window.get_row_at(i)[-1]) for i in range(3)]
        whole = [fp for fp, *_ in WINDOWS[UUID if ask else "c-1"]]
        for got, fp in zip(fingerprints, whole, strict=True):
            head, mark, tail = got.partition("…")
            assert got == fp or (mark and fp.startswith(head) and fp.endswith(tail.lstrip())), (got, fp)
            assert any(got in row for row in shown), (got, shown)


async def test_on_a_narrow_terminal_the_refused_count_joins_the_calls() -> None:
    app = fixed(SESSIONS)
    async with app.run_test(size=(60, 20)) as pilot:
        await wait_until(lambda: len(rows(app)) == 2, 30, "the fixed list")
        assert rows(app)[0] == ["claude", "/tmp/alpha", "c-1", "6 ✗2", "deny (repeat:exact)"]
        assert rows(app)[1][3] == "5", "no refusal, no mark"
        await pilot.resize_terminal(80, 24)
        await wait_until(lambda: len(rows(app)[0]) == 6, 30, "the full set of columns back")
        assert rows(app)[0][3:] == ["6", "2", "deny (repeat:exact)"]


def _settled(app: WatchApp, ask: bool) -> Any:
    async def before(pilot: Any) -> None:
        await wait_until(lambda: len(rows(app)) == 2, 30, "the fixed list")
        if ask:
            app.took([ASK])
        window = app.query_one("#window", DataTable)
        await wait_until(lambda: window.row_count == 3, 30, "the window's rows")
        await wait_until(lambda: bool(footer_keys(app)), 30, "the footer's keys")
        await pilot.pause()
        await pilot.pause()

    return before


@pytest.mark.parametrize("size", [(80, 24), (120, 40)], ids=["80x24", "120x40"])
@pytest.mark.parametrize("ask", [False, True], ids=["list", "ask"])
def test_snapshot(snap_compare: Any, size: tuple[int, int], ask: bool) -> None:
    app = fixed(SESSIONS)
    assert snap_compare(app, terminal_size=size, run_before=_settled(app, ask))
