"""`breaker-tui watch`: every live hooked session (Claude Code, Codex, Gemini CLI in their own terminals).

The sessions live in the per-user `breaker-tui serve`, not in this process: the screen asks the server
for its list (a `list` request on its socket) every second and shows one row per session; the selected
session's scores, window of fingerprints and timeline come from a `detail` request and are drawn by the
main screen's own panels. The asks the engine raises wait in the server: this screen keeps a `watch`
connection open, shows the oldest waiting ask above the list, and answers it (a, t, d, the main screen's
keys). Enter on a row ends the screen with that session's recording, which the command line then plays in
`replay`.

The list and detail requests are passed in (`Providers`), so the screen can be drawn from fixed data
without a server (its snapshots); the command line and the Pilot tests use the real server.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any, ClassVar

from rich.table import Table
from rich.text import Text
from textual import work
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.css.query import NoMatches
from textual.widgets import DataTable, Footer, Static
from textual.widgets.data_table import RowDoesNotExist

from engine.scores import AgentScores, WindowRow
from tui.widgets.line import Line
from tui.widgets.scores import ScoresPanel, heat
from tui.widgets.timeline import ALLOWED, ASKED, DENIED, Timeline
from tui.widgets.window import WindowTable
from wrapper.hooks.client import NoVerdict, live_sessions, session_detail
from wrapper.hooks.watching import AskLink
from wrapper.safetext import inert

COLUMNS = ("agent", "project", "session", "calls", "refused", "last verdict")
# below the width the full set needs, the refused count joins the calls (`6 ✗2`, the timeline's glyph), then
# the project, the last verdict and the session give way, each to its floor, in that order, cut with `…`
NARROW = ("agent", "project", "session", "calls", "last verdict")
GIVE_WAY = {"project": 6, "last verdict": 8, "session": 5}
CELL_PAD = 2  # a DataTable cell's padding, one each side
SCROLLBAR = 2  # the list's vertical scrollbar, there when the rows outgrow its quarter of the screen
SESSION_CELLS = 9  # Claude's and Gemini's session ids are 36-character UUIDs: the first 8 tell them apart
PROJECT_CELLS = 18  # the folder's tail is kept: it names the project
ROOMY_HEIGHT = 32  # below this many rows an ask hides the scores, so the window it is about stays in view
REFRESH_S = 1.0
START_HINT = (
    "A hooked agent's first tool call starts the server and shows its session here: "
    "`breaker-tui hooks install claude` (or codex, gemini), then use that agent; "
    "`breaker-tui hooks status` says what is hooked."
)
RECONNECT_S = 1.0  # how often a watch with no server tries again
GLYPHS = {"allow": ALLOWED, "deny": DENIED, "ask": ASKED}


def thinking_limits() -> tuple[float, int]:
    """The person's [thinking] deg_meaning_ratio_max and tool_failure_deny_after (the panel's colours), or defaults."""
    from wrapper import settings as S
    from wrapper.paths import config_file

    try:
        th = S.load(config_file()).engine.thinking
    except Exception:  # a config the server will refuse too; the panels only colour with these
        th = S.Settings().engine.thinking
    return th.deg_meaning_ratio_max, th.tool_failure_deny_after


def project_label(cwd: str) -> str:
    """The project folder, with the home folder shortened to ~."""
    home = os.path.expanduser("~")
    return "~" + cwd[len(home) :] if cwd and home != "/" and cwd.startswith(home) else cwd


def clip_head(text: str, cells: int) -> str:
    """`text` in at most `cells` characters, its start kept (`…` marks the cut)."""
    return text if len(text) <= cells else text[: cells - 1] + "…"


def session_label(session: str) -> str:
    """A session id in `SESSION_CELLS` characters: its start, or its end for a time-ordered UUID (version 7,
    Codex's), whose first characters are the same for every session started within a minute or so.
    """
    if len(session) == 36 and session.count("-") == 4 and session[14] == "7":
        return clip_tail(session, SESSION_CELLS)
    return clip_head(session, SESSION_CELLS)


def clip_tail(text: str, cells: int) -> str:
    """`text` in at most `cells` characters, its end kept (`…` marks the cut)."""
    return text if len(text) <= cells else "…" + text[len(text) - cells + 1 :]


def list_layout(rows: list[dict[str, object]], width: int) -> tuple[tuple[str, ...], dict[str, int]]:
    """The list's columns and each one's width, so that the table fits `width` cells without scrolling sideways.

    The full set when it fits; else the narrower one (`NARROW`), whose columns then give way (`GIVE_WAY`).
    """
    for names in (COLUMNS, NARROW):
        cells = [row_cells(r, names) for r in rows]
        widths = {n: max([len(n), *(len(c[i]) for c in cells)]) for i, n in enumerate(names)}
        if sum(widths.values()) + CELL_PAD * len(names) <= width:
            return names, widths
    over = sum(widths.values()) + CELL_PAD * len(names) - width
    for name, floor in GIVE_WAY.items():
        cut = min(over, max(0, widths[name] - floor))
        widths[name] -= cut
        over -= cut
    return names, widths


def row_cells(r: dict[str, object], names: tuple[str, ...]) -> list[str]:
    """A session's cells under the columns `names`, uncut (the project already in its `PROJECT_CELLS`)."""
    calls = str(r.get("calls"))
    if "refused" not in names and r.get("denials"):  # the narrow set: the refused count beside the calls
        calls += f" {DENIED}{r.get('denials')}"
    every = {
        "agent": str(r.get("agent")),
        "project": clip_tail(project_label(str(r.get("cwd") or "")), PROJECT_CELLS),
        "session": session_label(str(r.get("session"))),
        "calls": calls,
        "refused": str(r.get("denials")),
        "last verdict": str(r.get("last")),
    }
    return [inert(every[n], keep_newlines=False) for n in names]


def clip(name: str, text: str, cells: int) -> str:
    """A cell cut to its column: the project keeps its end (the folder's name), the others their start."""
    return clip_tail(text, cells) if name == "project" else clip_head(text, cells)


@dataclass(frozen=True)
class Providers:
    """Where the screen gets its sessions and a session's detail: the running server unless told otherwise."""

    sessions: Callable[[], list[dict[str, object]]] = field(default=live_sessions)
    detail: Callable[[str, str], dict[str, object]] = field(default=session_detail)
    follow_asks: bool = True  # keep a watch connection to the server for its asks
    clock: Callable[[], float] = field(default=time.time)


def scores_of(data: Any) -> AgentScores | None:
    """The engine's scores as the server sent them (JSON), rebuilt for the panels; None when absent or unreadable."""
    if not isinstance(data, dict):
        return None
    try:
        fields: dict[str, Any] = {k: tuple(v) if isinstance(v, list) else v for k, v in data.items()}
        fields["window"] = tuple(WindowRow(**r) for r in data.get("window") or ())
        fields["failures"] = tuple((str(s), int(n)) for s, n in data.get("failures") or ())
        fields["cycle"] = tuple((str(c), int(n)) for c, n in data.get("cycle") or ())
        return AgentScores(**fields)
    except (TypeError, ValueError):
        return None  # a server of another version: the panels say they wait rather than fail


def ask_text(asks: list[dict[str, Any]], now: float) -> Text:
    """The oldest waiting ask: the keys and the time left, then whose call, the call, and why it is asked.

    The keys come first so that the smallest terminal, which cuts the panel's end, still shows them.
    """
    a = asks[0]
    left = max(0, round(float(a.get("deadline") or now) - now))
    more = f" (+{len(asks) - 1} more waiting)" if len(asks) > 1 else ""
    project = clip_tail(project_label(str(a.get("cwd") or "")), PROJECT_CELLS)
    where = f"{a.get('agent')} · {project} · session {session_label(str(a.get('session')))}"
    t = Text()
    t.append("ASK ", "bold reverse #d7af5f")
    for key, what in (("a", "allow once"), ("t", "allow for the turn"), ("d", "deny")):
        t.append(f" {key}", "bold")
        t.append(f" {what} ·")
    t.append(f" {left} s left{more}\n")
    t.append(inert(where, keep_newlines=False) + "\n", "bold")
    args = a.get("args")
    call = args.get("command") if isinstance(args, dict) and isinstance(args.get("command"), str) else args
    t.append(f"{a.get('tool')}  ", "bold")
    t.append(inert(str(call), keep_newlines=False)[:400] + "\n")
    t.append(f"rule {a.get('rule') or '?'}: " + inert(ask_reason(str(a.get("reason") or "")), keep_newlines=False))
    return t


def calls_table(s: AgentScores, colours: tuple[str, str, str], failure_limit: int, room: int = 0) -> Table:
    """The scores a hook can feed: the calls refused and asked, the local policy, the calls that keep failing.

    The local policy goes on a row of its own when the calls' row would not fit `room` cells (0: any width),
    rather than lose its end to an ellipsis (`local repeats: allowed this…`).
    """
    grid = Table.grid(padding=(0, 1))
    grid.add_column(width=11, min_width=11, no_wrap=True)
    grid.add_column(no_wrap=True, overflow="ellipsis")
    local = "allowed this turn" if s.local_exempt else "refused this turn" if s.local_refused else "ask"
    colour = colours[2] if s.denials or s.ran_tripped else colours[0]
    counts = f"refused {s.denials} · asked {s.asks}"
    if not room or len(f"{counts} · local repeats: {local}") <= room:
        grid.add_row(Text("calls", "bold"), Text(f"{counts} · local repeats: {local}", colour))
    else:
        grid.add_row(Text("calls", "bold"), Text(counts, colour))
        grid.add_row(Text("local", "bold"), Text(f"repeats: {local}", colour))
    for sig, n in s.failures[-4:]:
        sig_text = inert(sig, keep_newlines=False)[:60]
        grid.add_row(Text("failing", "bold"), Text(f"{n}× {sig_text}", heat(n, failure_limit, colours)))
    return grid


class CallScores(ScoresPanel):
    """The main screen's scores panel holding only what a hook feeds it: tool calls, never the model's text.

    The reasoning size and the trips come from the text lenses, which a hook never feeds: shown, they
    would read as "no reasoning" for an agent whose reasoning breaker-tui does not see.
    """

    def show(self, s: AgentScores | None, width: int = 16) -> None:
        super().show(s, width)
        if s is not None:
            room = max(0, self.content_region.width - 12)  # what the label column and its gap leave
            table = calls_table(s, self.colours, self.failure_limit, room)
            self.query_one("#misc", Line).update(table, height=table.row_count)


def state_line(n: int) -> str:
    """The line above the list: how many sessions, and what to do when there are none."""
    if n == 0:
        return f"No live hook session yet.\n{START_HINT}"
    return f"{n} live hook session{'s' if n != 1 else ''} · ↑↓ select · ⏎ replay its recording"


def ask_reason(reason: str) -> str:
    """What the ask is about in one line: the fingerprints at their cap (`net:…/health 6/5`), else its first line.

    The engine's question opens with a sentence every local-address ask shares; the fingerprints it lists
    are what tells one ask from another.
    """
    lines = [line.strip() for line in reason.splitlines() if line.strip()]
    hits = [line.removeprefix("- ").strip() for line in lines if line.startswith("- ")]
    return (" · ".join(hits) if hits else (lines[0] if lines else ""))[:300]


class WatchApp(App[str]):
    """One row per live hook session, the selected one's panels below, its asks on top; enter opens its recording."""

    TITLE = "breaker-tui watch"
    CSS = """
    #state { height: auto; max-height: 8; }
    WatchApp.empty #scores, WatchApp.empty #window { display: none; }  /* no session: nothing to show there */
    #ask { height: auto; border-left: outer #d7af5f; background: $boost; padding: 0 1; display: none; }
    #ask.waiting { display: block; }
    #sessions { height: auto; max-height: 25%; min-height: 3; }
    #scores { height: auto; border-top: solid $primary-darken-2; }
    /* a hook sees the calls only, never the text the repetition and degeneracy lenses score */
    #scores #rep, #scores #deg { display: none; }
    WatchApp.cramped #scores { display: none; }
    #window { height: 1fr; min-height: 4; border: round $primary-darken-2; }
    """
    ENABLE_COMMAND_PALETTE = False  # nothing to pick there: its footer cell went to the keys
    BINDINGS: ClassVar[list[BindingType]] = [
        # quit before the answers: a narrow footer keeps its first keys
        Binding("q", "quit", "quit", priority=True),
        # the main screen's approval keys (a, t, d); y and n, the keys this screen first had, still answer
        Binding("a", "answer('allow-once')", "allow once"),
        Binding("t", "answer('allow-turn')", "allow turn"),
        Binding("d", "answer('deny')", "deny"),
        Binding("y", "answer('allow-once')", "allow once", show=False),
        Binding("n", "answer('deny')", "deny", show=False),
        # priority: the list (a DataTable) has its own hidden enter; this one is in the footer
        Binding("enter", "open", "replay", priority=True),
        Binding("r", "refresh", "refresh"),
    ]

    def __init__(self, refresh_s: float = REFRESH_S, providers: Providers | None = None) -> None:
        super().__init__()
        self.refresh_s = refresh_s
        self.providers = providers or Providers()
        self.meaning_max, self.failure_limit = thinking_limits()
        self.recordings: dict[str, str] = {}  # row key -> recording path
        self.asks: list[dict[str, Any]] = []  # the waiting asks, oldest first, as the server last sent them
        self.asking: str | None = None  # the oldest ask's session, until the list shows it and it is selected
        self.link: AskLink | None = None
        self.rows: list[dict[str, object]] = []  # the sessions as last listed, laid out again on a resize
        self.layout: tuple[tuple[str, int], ...] = ()  # the list's columns and their widths

    def compose(self) -> ComposeResult:
        yield Static("", id="state")
        yield Static("", id="ask")
        yield DataTable(id="sessions", cursor_type="row", zebra_stripes=True)
        yield CallScores(self.meaning_max, self.failure_limit, id="scores")
        yield WindowTable(id="window")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#window", WindowTable).border_title = "window"
        self.action_refresh()
        self.set_interval(self.refresh_s, self.action_refresh)
        if self.providers.follow_asks:
            self.follow_asks()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """The answer keys only while an ask waits (the footer shows them then), replay only while none does."""
        if action == "answer":
            return bool(self.asks)
        if action == "open":  # leaving for the replay while an ask waits would leave it to time out
            return self.selected() is not None and not self.asks
        return True

    # -- the sessions, and the selected one's panels ----------------------------------------------------------
    def action_refresh(self) -> None:
        try:
            state = self.query_one("#state", Static)
        except NoMatches:  # a tick that came while the screen was being taken down
            return
        try:
            rows = self.providers.sessions()
        except NoVerdict as e:
            state.update(f"{e}.\n{START_HINT}")
            rows = []
        else:
            state.update(state_line(len(rows)))
        self.set_class(not rows, "empty")
        self._show(rows)
        self._detail()
        self._show_ask()

    def _show(self, rows: list[dict[str, object]]) -> None:
        table = self.query_one("#sessions", DataTable)
        keep, row = self.selected(), table.cursor_row
        self.rows = rows
        scrolls = len(rows) + 1 > max(3, self.size.height // 4)  # the list's max-height: a quarter of the screen
        names, widths = list_layout(rows, self.size.width - (SCROLLBAR if scrolls else 0))
        layout = tuple((n, widths[n]) for n in names)
        table.clear(columns=layout != self.layout)
        if layout != self.layout:  # fixed widths: a column never grows past what the layout gave it
            self.layout = layout
            for name, room in layout:
                table.add_column(clip_head(name, room), width=room)
        self.recordings = {}
        for r in rows:
            key = f"{r.get('agent')}/{r.get('session')}"
            self.recordings[key] = str(r.get("recording") or "")
            cells = row_cells(r, names)
            table.add_row(*(clip(n, c, widths[n]) for n, c in zip(names, cells, strict=True)), key=key)
        if rows:  # the same session stays selected when a new one comes in above it
            table.move_cursor(row=min(row, len(rows) - 1))
            if keep is not None:
                self.select(keep)
            if self.asking is not None and self.select(self.asking):  # the ask came before its session's row
                self.asking = None
        self.refresh_bindings()

    def selected(self) -> str | None:
        """The selected row's key (`agent/session`), None when the list is empty."""
        table = self.query_one("#sessions", DataTable)
        if table.row_count == 0:
            return None
        key = table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value
        return str(key) if key else None

    def select(self, key: str) -> bool:
        """The cursor on session `key` (`agent/session`) when it is listed (whether it is): its panes then show
        the ask's context.
        """
        table = self.query_one("#sessions", DataTable)
        try:
            row = table.get_row_index(key)
        except RowDoesNotExist:  # not listed yet (the list refreshes every second): the cursor stays
            return False
        table.move_cursor(row=row)
        return True

    def _detail(self) -> None:
        key = self.selected()
        data: dict[str, object] = {}
        if key is not None:
            agent, _, session = key.partition("/")
            try:
                data = self.providers.detail(agent, session)
            except NoVerdict:
                data = {}
        scores = scores_of(data.get("scores"))
        turn, steps = data.get("turn"), data.get("steps")
        if scores is not None and isinstance(turn, int):  # the engine sees no turn start: the server counts prompts
            scores = replace(scores, turn=turn)
        panel = self.query_one("#scores", CallScores)
        panel.show(scores, max(6, min(16, (panel.size.width - 32) or 16)))
        window = self.query_one("#window", WindowTable)
        window.show(scores)
        timeline = Timeline()
        timeline.turn = turn if isinstance(turn, int) else 0
        timeline.glyphs = [GLYPHS.get(str(s), ASKED) for s in steps] if isinstance(steps, list) else []
        line = timeline.text(max(0, window.size.width - 14))
        title = f"window · {line}" if line else "window"
        if window.border_title != title:
            window.border_title = title

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        if event.data_table.id == "sessions" and event.data_table.is_attached:
            with contextlib.suppress(NoMatches):  # a move's news that arrives as the screen is taken down
                self._detail()

    def action_open(self) -> None:
        key = self.selected()
        if key and self.recordings.get(key) and not self.asks:  # the list's own enter (a click) comes here too
            self.exit(self.recordings[key])

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        if event.data_table.id == "sessions":
            self.action_open()

    # -- the asks ---------------------------------------------------------------------------------------------
    @work(exclusive=True, group="asks")
    async def follow_asks(self) -> None:
        """Keep a watch connection to the server (again whenever it ends) and show each list of asks it sends."""
        while True:
            link = AskLink()
            try:
                await link.open()
            except OSError:
                await asyncio.sleep(RECONNECT_S)
                continue
            self.link = link
            async for asks in link.updates():
                self.took(asks)
            link.close()
            self.link, self.asks = None, []
            self._show_ask()
            await asyncio.sleep(RECONNECT_S)

    def took(self, asks: list[dict[str, Any]]) -> None:
        """The server's waiting asks (oldest first): shown, a bell for a new one, the oldest one's session selected.

        The keys answer the oldest ask, so the panes below show that ask's session.
        """
        fresh = bool(asks) and (not self.asks or asks[-1].get("id") != self.asks[-1].get("id"))
        head = bool(asks) and (not self.asks or asks[0].get("id") != self.asks[0].get("id"))
        self.asks = asks
        self._show_ask()
        if fresh:
            self.bell()
        if head:
            key = f"{asks[0].get('agent')}/{asks[0].get('session')}"
            # a session's first call may ask before the list has shown it: selected when its row comes
            self.asking = None if self.select(key) else key
        elif not asks:
            self.asking = None

    def _show_ask(self) -> None:
        try:
            panel = self.query_one("#ask", Static)
        except NoMatches:  # the server's news came while the screen was being taken down
            return
        if self.asks:
            panel.update(ask_text(self.asks, self.providers.clock()))
        panel.set_class(bool(self.asks), "waiting")
        self.set_class(bool(self.asks) and self.size.height < ROOMY_HEIGHT, "cramped")
        self.refresh_bindings()

    def on_resize(self) -> None:
        # after the App's own handler, which this one runs before, has taken the new size
        self.call_later(self._resized)

    def _resized(self) -> None:
        self._show_ask()
        with contextlib.suppress(NoMatches):  # a resize that comes as the screen is taken down
            self._show(self.rows)

    async def action_answer(self, say: str) -> None:
        """The person's answer to the oldest waiting ask (the server takes the first answer of any watch)."""
        if not self.asks or self.link is None:
            return
        await self.link.answer(str(self.asks[0].get("id")), say)
