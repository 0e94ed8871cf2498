"""`BreakerApp`: the monitor's screen, built by one factory from plain inputs (settings + a source)."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Iterable
from typing import Any

from rich.text import Text
from textual import on, work
from textual.app import App, ComposeResult, SystemCommand
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Footer, Header, Input, RichLog, Static, Tab, Tabs

from engine import events as ev
from themes import STYLESHEET, THEMES, score_colours
from tui.screens.approval import ApprovalScreen
from tui.sources import LiveSource, ReplaySource, Source
from tui.widgets.scores import ScoresPanel
from tui.widgets.stream import StreamView
from tui.widgets.window import WindowTable
from wrapper.items import (
    Answer,
    ApprovalItem,
    EngineItem,
    Item,
    OutputItem,
    Question,
    ResultItem,
    StatusItem,
    ToolDeltaItem,
    TripItem,
    VerdictItem,
)
from wrapper.normalize import strip_ansi
from wrapper.settings import Settings
from wrapper.sources import Loaded


class SessionItem(Message):
    """One item from the source, delivered in order through the app's message queue."""

    def __init__(self, item: Item) -> None:
        super().__init__()
        self.item = item
        self.at = time.perf_counter()  # arrival from the source, for the display-lag benchmark


class BreakerApp(App[int]):
    """The live monitor (and the replay viewer: same screen, different source)."""

    CSS_PATH = str(STYLESHEET)
    TITLE = "breaker-tui"
    BINDINGS = [
        Binding("escape", "cancel_turn", "cancel turn", id="cancel"),
        Binding("ctrl+k", "kill", "kill", id="kill"),
        Binding("ctrl+r", "restart", "restart", id="restart"),
        Binding("ctrl+e", "toggle_enforcing", "pause/enforce", id="enforce"),
        Binding("ctrl+w", "reset_windows", "reset windows", id="reset"),
        Binding("ctrl+t", "toggle_reasoning", "reasoning", id="reasoning"),
        Binding("ctrl+n", "next_agent", "next agent", id="agent"),
        Binding("ctrl+o", "toggle_output", "child output", id="output"),
        Binding("ctrl+y", "cycle_theme", "theme", id="theme", show=False),
        Binding("space", "replay_pause", "play/pause", id="replay.pause", show=False),
        Binding("full_stop", "replay_step", "step", id="replay.step", show=False),
        Binding("plus", "replay_faster", "faster", id="replay.faster", show=False),
        Binding("minus", "replay_slower", "slower", id="replay.slower", show=False),
        Binding("n", "replay_next_trip", "next trip", id="replay.next", show=False),
    ]

    def __init__(self, source: Source, settings: Settings, theme: str | None = None, observe: bool = False) -> None:
        super().__init__()
        self.source = source
        self.settings = settings
        self.exit_code = 0
        self.selected_agent = ""
        self.output_toggled = False  # once the person toggles the pane, it stays as they left it
        self._initial_theme = theme or settings.ui.theme
        self._observe = observe
        self._last_trip: TripItem | None = None
        self.source.approver = self.ask_operator
        self.sub_title = source.title

    # -- layout --------------------------------------------------------------------------------
    def compose(self) -> ComposeResult:
        yield Header(show_clock=False)
        yield Static("", id="banner")
        with Horizontal(id="main"):
            with Vertical(id="left"):
                yield StreamView(self.settings.ui.max_stream_lines, self.settings.ui.show_reasoning, id="stream")
                yield RichLog(max_lines=self.settings.ui.max_output_lines, wrap=True, min_width=20, id="output")
                yield Input(placeholder=self._placeholder(), id="prompt")
            with Vertical(id="right"):
                yield Tabs(id="agents")
                yield ScoresPanel(id="scores")
                yield WindowTable(id="window")
        yield Static("", id="status")
        yield Footer()

    def _placeholder(self) -> str:
        if self.source.kind == "replay":
            return "replay: space play/pause · . step · +/- speed · n next trip"
        return "message the agent, enter to send · esc cancels the turn · ctrl+p for every action"

    def on_mount(self) -> None:
        """Themes, timers, and the worker that drives the source."""
        # the main screen's widgets, held directly: a modal on top must not hide them from updates
        self.w_stream = self.query_one("#stream", StreamView)
        self.w_output = self.query_one("#output", RichLog)
        self.w_prompt = self.query_one("#prompt", Input)
        self.w_tabs = self.query_one("#agents", Tabs)
        self.w_scores = self.query_one("#scores", ScoresPanel)
        self.w_window = self.query_one("#window", WindowTable)
        self.w_banner = self.query_one("#banner", Static)
        self.w_status = self.query_one("#status", Static)
        for t in THEMES:
            self.register_theme(t)
        try:
            self.theme = self._initial_theme
        except Exception:  # an unknown theme name in the config: say so, keep the default
            self.notify(f"unknown theme {self._initial_theme!r}; using breaker-dark", severity="warning")
            self.theme = "breaker-dark"
        self._apply_colours()
        self.w_window.border_title = "window"
        self.w_output.border_title = "child output"
        self.w_output.display = False  # shown once the child prints something
        self.w_stream.border_title = "stream"
        if self.source.kind == "replay":
            self.w_prompt.disabled = True
        if self._observe:
            self.source.set_enforcing(False)
        self.set_interval(1 / self.settings.ui.refresh_hz, self.refresh_view)
        self.call_after_refresh(self._start)

    def _start(self) -> None:
        self.drive()

    @work(exclusive=True, group="source")
    async def drive(self) -> None:
        """Pull items from the source and post them, in order, to the app's queue."""
        try:

            def emit(item: Item) -> None:
                self.post_message(SessionItem(item))

            await self.source.run(emit)
        except Exception as e:  # the monitor never crashes because the agent misbehaves
            self.post_message(SessionItem(StatusItem("error", f"the session stopped unexpectedly: {e!r}")))

    def _apply_colours(self) -> None:
        theme = self.current_theme
        colours = score_colours(theme)
        self.w_scores.colours = colours
        self.w_window.colours = colours

    def watch_theme(self, _: str) -> None:
        """Score colours follow the theme."""
        if self.is_running:  # the widgets exist once the app runs (`is_mounted` is a method: always true)
            with contextlib.suppress(Exception):
                self._apply_colours()

    # -- items -------------------------------------------------------------------------------
    @on(SessionItem)
    def _on_item(self, message: SessionItem) -> None:
        item = message.item
        stream = self.w_stream
        if isinstance(item, EngineItem):
            e = item.event
            stream.event(e, message.at)
            if isinstance(e, ev.TurnStart) and self._last_trip is not None:
                self._last_trip = None
                self.w_banner.update("")
                self.w_banner.remove_class("tripped")
        elif isinstance(item, ToolDeltaItem):
            return
        elif isinstance(item, VerdictItem):
            stream.verdict(item)
            if item.verdict.kind == "deny":
                hits = ", ".join(h.fp for h in item.verdict.hits) or item.verdict.source
                self.notify(f"denied {item.tool}: {hits}", title="repeat blocked", severity="warning", timeout=4)
        elif isinstance(item, ResultItem):
            stream.result(item)
        elif isinstance(item, TripItem):
            stream.trip(item)
            self._show_trip(item)
        elif isinstance(item, ApprovalItem):
            stream.approval(item)
        elif isinstance(item, OutputItem):
            clean = strip_ansi(item.text).rstrip("\n")
            if not clean.strip():
                return
            self.w_output.write(Text(clean))
            if not self.output_toggled and not self.w_output.display:
                self.w_output.display = True
        elif isinstance(item, StatusItem):
            stream.status(item)
            if item.kind == "exited":
                self.exit_code = int(item.data.get("code", 0) or 0)
            if item.kind == "error":
                self.notify(item.text, severity="error", timeout=8)

    def _show_trip(self, item: TripItem) -> None:
        self._last_trip = item
        t = item.trip
        banner = self.w_banner
        banner.update(
            Text.assemble(
                ("⚡ TRIP ", "bold"),
                (f"{t.rule} ", "bold"),
                f"on {t.agent[:20]}'s {t.stream} stream · {t.evidence()} · action: {item.sent}   ",
                ("esc", "bold"),
                " cancel turn  ",
                ("ctrl+k", "bold"),
                " kill  ",
                ("ctrl+r", "bold"),
                " restart  ",
                ("ctrl+e", "bold"),
                " pause enforcement  ",
                ("ctrl+w", "bold"),
                " reset windows",
            )
        )
        banner.add_class("tripped")
        self.notify(f"{t.rule}: {item.sent}", title="loop detected", severity="error", timeout=6)

    def refresh_view(self) -> None:
        """Coalesced repaint: stream text, scores, window, tabs, status line."""
        if not self.w_stream.is_attached:
            return
        self.w_stream.flush()
        info = self.source.info
        tabs = self.w_tabs
        if tabs.query("#tabs-list"):  # gone while the app tears down, when the timer may still fire
            known = {str(t.id) for t in tabs.query(Tab)}
            for n, agent in enumerate(info.agents):
                tid = f"agent-{n}"
                if tid not in known:
                    tabs.add_tab(Tab(("main" if n == 0 else f"sub {n}") + f" · {agent[-8:]}", id=tid))
        if not self.selected_agent and info.agents:
            self.selected_agent = info.agents[0]
        snap = self.source.monitor.breaker.snapshot()
        scores = snap.get(self.selected_agent) if self.selected_agent else (snap.agents[0] if snap.agents else None)
        self.w_scores.show(scores, max(6, min(16, (self.w_scores.size.width - 32) or 16)))
        self.w_window.show(scores)
        self.w_status.update(self._status_text(snap.enforcing))

    def _status_text(self, enforcing: bool) -> Text:
        i = self.source.info
        parts: list[Any] = [
            ("ENFORCING" if enforcing else "OBSERVING ONLY", "bold green" if enforcing else "bold yellow"),
            (f" · …{i.session_id[-8:] or 'no session'}", "bold"),
            f" · {i.model or '—'} · turn {i.turn} step {i.step} · {i.input_tokens:,}↑ {i.output_tokens:,}↓ tokens"
            f" · child {i.child}" + ("" if i.bridge in ("connected", "none") else f" · bridge {i.bridge}"),
        ]
        src = self.source
        if isinstance(src, ReplaySource):
            state = "paused" if src.paused else "playing"
            parts.append(f" · replay {src.position}/{src.total or '?'} {state} ×{src.speed:g}")
        return Text.assemble(*parts)

    # -- approvals ---------------------------------------------------------------------------
    async def ask_operator(self, q: Question) -> Answer:
        """Show the approval modal and wait for the person's answer."""
        fut: asyncio.Future[Answer] = asyncio.get_running_loop().create_future()

        def done(answer: Answer | None) -> None:
            if not fut.done():
                fut.set_result(answer or "deny")

        self.push_screen(ApprovalScreen(q), done)
        self.bell()
        return await fut

    # -- actions -----------------------------------------------------------------------------
    def _refused(self, what: str) -> None:
        note = self.source.notes.pop() if self.source.notes else f"{what} is not available here"
        self.notify(note, severity="warning")

    async def action_cancel_turn(self) -> None:
        """Cancel the agent's current turn (the child keeps running)."""
        if await self.source.cancel():
            self.notify("cancel sent")
        else:
            self._refused("cancel")

    async def action_kill(self) -> None:
        """Kill the child (SIGINT, then SIGKILL after the grace period)."""
        self.notify("stopping the child…")
        if not await self.source.kill():
            self._refused("kill")

    async def action_restart(self) -> None:
        """Restart the child on the same session."""
        if await self.source.restart():
            self.notify("restarted")
        else:
            self._refused("restart")

    def action_toggle_enforcing(self) -> None:
        """Pause enforcement (observe only) or resume it."""
        on = not self.source.monitor.breaker.enforcing
        self.source.set_enforcing(on)
        self.notify(
            "enforcement resumed" if on else "enforcement paused: observing only",
            severity="information" if on else "warning",
        )

    def action_reset_windows(self) -> None:
        """Forget every agent's sliding window."""
        self.source.reset_windows()
        self.notify("sliding windows reset")

    def action_toggle_reasoning(self) -> None:
        """Show or fold reasoning."""
        stream = self.w_stream
        stream.show_reasoning = not stream.show_reasoning
        self.notify("reasoning shown" if stream.show_reasoning else "reasoning folded")

    def action_next_agent(self) -> None:
        """Switch the scores and window to the next agent."""
        agents = self.source.info.agents
        if not agents:
            return
        i = agents.index(self.selected_agent) if self.selected_agent in agents else -1
        self.selected_agent = agents[(i + 1) % len(agents)]
        self.w_tabs.active = f"agent-{(i + 1) % len(agents)}"

    @on(Tabs.TabActivated, "#agents")
    def _tab(self, event: Tabs.TabActivated) -> None:
        tid = str(event.tab.id or "")
        if tid.startswith("agent-"):
            n = int(tid.split("-", 1)[1])
            if n < len(self.source.info.agents):
                self.selected_agent = self.source.info.agents[n]

    def action_toggle_output(self) -> None:
        """Show or hide the child's raw output pane."""
        self.output_toggled = True
        self.w_output.display = not self.w_output.display

    def action_cycle_theme(self) -> None:
        """Switch between the bundled themes."""
        names = [t.name for t in THEMES]
        self.theme = names[(names.index(self.theme) + 1) % len(names)] if self.theme in names else names[0]

    def action_replay_pause(self) -> None:
        """Replay: play or pause."""
        if isinstance(self.source, ReplaySource):
            self.source.toggle_pause()

    def action_replay_step(self) -> None:
        """Replay: one item forward."""
        if isinstance(self.source, ReplaySource):
            self.source.step()

    def action_replay_faster(self) -> None:
        """Replay: double the speed."""
        if isinstance(self.source, ReplaySource):
            self.source.faster()

    def action_replay_slower(self) -> None:
        """Replay: halve the speed."""
        if isinstance(self.source, ReplaySource):
            self.source.slower()

    def action_replay_next_trip(self) -> None:
        """Replay: run to the next trip or denial."""
        if isinstance(self.source, ReplaySource):
            self.source.next_trip()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Replay keys only in replays; space and letters stay with the prompt box otherwise."""
        if action.startswith("replay_"):
            return isinstance(self.source, ReplaySource)
        return True

    @on(Input.Submitted, "#prompt")
    async def _submit(self, event: Input.Submitted) -> None:
        text = event.value.strip()
        if not text:
            return
        event.input.value = ""
        if not await self.source.prompt(text):
            self._refused("prompting")

    def get_system_commands(self, screen: Screen[Any]) -> Iterable[SystemCommand]:
        """Every action in the command palette."""
        yield from super().get_system_commands(screen)
        yield SystemCommand(
            "Cancel the turn", "Stop the agent's current turn; it keeps running", self.action_cancel_turn
        )
        yield SystemCommand("Kill the child", "SIGINT, then SIGKILL after the grace period", self.action_kill)
        yield SystemCommand("Restart on the same session", "Kill and relaunch with --resume <id>", self.action_restart)
        yield SystemCommand(
            "Pause / resume enforcement", "Observe only, or enforce again", self.action_toggle_enforcing
        )
        yield SystemCommand("Reset windows", "Forget every agent's sliding window", self.action_reset_windows)
        yield SystemCommand("Toggle reasoning", "Show or fold the reasoning stream", self.action_toggle_reasoning)
        yield SystemCommand("Switch agent", "Scores and window of the next agent", self.action_next_agent)
        yield SystemCommand("Toggle child output", "Show or hide the raw output pane", self.action_toggle_output)
        yield SystemCommand("Cycle breaker theme", "breaker-dark / breaker-light", self.action_cycle_theme)
        if isinstance(self.source, ReplaySource):
            yield SystemCommand("Replay: play / pause", "", self.action_replay_pause)
            yield SystemCommand("Replay: step", "", self.action_replay_step)
            yield SystemCommand("Replay: next trip", "", self.action_replay_next_trip)

    async def on_unmount(self) -> None:
        """Leave nothing running."""
        await self.source.close()


def create_app(source: Source, settings: Settings, theme: str | None = None, observe: bool = False) -> BreakerApp:
    """The one factory the CLI, the replay command and the tests share."""
    return BreakerApp(source, settings, theme=theme, observe=observe)


def run_app(
    argv: list[str],
    settings: Settings,
    theme: str | None = None,
    observe: bool = False,
    env: dict[str, str] | None = None,
    cwd: str | None = None,
    first_prompt: str | None = None,
    title: str = "",
    acp: bool = False,
) -> int:
    """Run a command under the monitor with the screen; returns the child's exit status."""
    source = LiveSource(argv, settings, env=env, cwd=cwd, first_prompt=first_prompt, title=title, acp=acp)
    app = create_app(source, settings, theme, observe)
    app.run()
    return app.exit_code


def run_replay(loaded: Loaded, settings: Settings, speed: float = 1.0, paused: bool = False) -> int:
    """Play a recording through the same screen."""
    app = create_app(ReplaySource(loaded, settings, speed, paused), settings)
    app.run()
    return 0
