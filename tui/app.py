"""`BreakerApp`: the monitor, built by one factory from plain inputs (settings + a source).

The source decides the mode (live or replay) and its capabilities decide which actions exist; the
keys, the footer, the help screen and the command palette all read `tui.keys`, so they agree.
Items from the source are batched: each arrives in an inbox, one message drains it. The stream is
written as it drains (writing costs what arrived; Textual draws at most once per its own frame), the
output pane once per frame (`[ui] refresh_hz`), the panels a few times a second.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import signal
import time
from collections import deque
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, cast

from rich.text import Text
from textual import on, work
from textual.css.query import NoMatches
from textual.driver import Driver
from textual.drivers.linux_driver import LinuxDriver
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Tab, Tabs
from textual.widgets._tabs import Underline

from themes import STYLESHEET, THEMES, palette
from tui import keys
from tui.actions import STOPPING, STOPPING_SOON, Actions
from tui.frontend import FrontEnd
from tui.screens.approval import ApprovalScreen
from tui.screens.main import MainScreen
from tui.terminal import TerminalDriver, TerminalGone
from tui.widgets.line import Fitted
from tui.widgets.pulse import Pulse
from tui.widgets.scores import summary
from tui.widgets.scrubber import scrubber
from tui.widgets.stream import cap_text, clip, short_id
from tui.widgets.timeline import Timeline
from wrapper.exits import Exit
from wrapper.safetext import inert, markup_safe
from wrapper.settings import Settings
from wrapper.weakening import report, status_word

if TYPE_CHECKING:  # the first frame is drawn before the engine and the harnesses behind these are imported
    from tui.player import ReplaySource
    from tui.sources import Source
    from wrapper.items import (
        Answer,
        ApprovalClosed,
        ApprovalItem,
        EngineItem,
        Item,
        Question,
        ResultItem,
        StatusItem,
        TripItem,
        VerdictItem,
    )

EXIT_INTERNAL = Exit.INTERNAL
# a plain command reads what is typed as its own input (`Capabilities.input`): the box says so, not "message"
INPUT_PLACEHOLDER = ("type a line for the command's input · enter sends it", "input for the command", "input")
PANEL_PERIOD_S = 0.2
# A fast stream allocates a few hundred thousand container objects a second; at Python's default
# (700) the youngest generation is collected 250 times a second and whatever is alive then is
# promoted, to be walked again by full collections (30 ms and more each on the 2-core machine). The
# rows the stream drops are freed by reference counting (`tui.widgets.rowcache`), so a larger
# youngest generation is cheap: a handful of collections a second of at most ~14 ms, none full.
GC_YOUNG = 10_000
OUTPUT_BACKLOG_CHARS = 65536  # child output kept per frame; the pane shows the newest


class Inbox(Message):
    """Items are waiting in the app's inbox (one message however many arrived)."""


class BreakerApp(FrontEnd, Actions):
    """The live monitor and the replay player: same screen, different source and keys."""

    CSS_PATH = str(STYLESHEET)
    TITLE = "breaker-tui"
    ENABLE_COMMAND_PALETTE = True

    def __init__(self, source: Source, settings: Settings, theme: str | None = None, observe: bool = False) -> None:
        super().__init__()
        self.source = source
        self.settings = settings
        self.mode = source.mode
        self.caps = source.capabilities
        self.selected_agent = ""
        self.output_toggled = False  # once the person toggles the pane, it stays as they left it
        self.child_status: int | None = None  # the child's own exit status (None: it did not end by itself)
        self.start_error = ""
        self.internal_error = ""
        self.terminal_lost = ""  # why the terminal went away, once it has
        self._initial_theme = theme or settings.ui.theme
        self._observe = observe
        self._loosened = status_word(settings)  # "" unless the config enforces less than the defaults
        self._last_trip: TripItem | None = None
        self._busy_shown = False  # whether the footer was last told a turn runs (`_follow_turn`)
        self.prompts_pending = 0
        self.cancel_after_prompt = False
        self.prompt_order = asyncio.Lock()
        self._notices = 0  # decisions shown on the notice line this turn
        self._inbox: deque[tuple[Item, float]] = deque()
        self._inbox_posted = False
        self._last_paint = 0.0
        self._gc_threshold: tuple[int, int, int] | None = None  # Python's, while the app runs with GC_YOUNG
        self._frame_error = ""  # the last error writing the stream before a frame (shown once)
        self._last_panels = 0.0
        self._out: deque[str] = deque()
        self._out_chars = 0
        self._out_skipped = 0
        self._out_opens = False  # output meant for the person is waiting: the pane opens for it
        self._log_lines = 0  # lines of the agent's own log (an ACP agent's stderr), folded into a count
        self._log_mid = False  # the log's last piece ended mid-line
        self._approval: tuple[ApprovalScreen, asyncio.Future[Answer]] | None = None  # the one shown
        self._questions: deque[tuple[Question, asyncio.Future[Answer]]] = deque()  # waiting behind it
        # questions the screen closed itself (the child stopped, restarted, the terminal gone), whose end the
        # stream said with its reason: the harness's own report of that denial follows and is not said again
        self._closed_here: deque[str] = deque(maxlen=256)
        self._tabs_added: set[str] = set()
        # a live turn's clock on the status line; scripted sources (tests, snapshots) inject their own
        self.pulse: Pulse | None = Pulse() if source.kind == "live" else None
        self.timeline = Timeline()  # the turn's steps, verdicts and trips, on the window panel's title
        self.source.approver = self.ask_operator
        self.source.on_open = self._source_opened
        self.sub_title = inert(source.title, keep_newlines=False)
        self.front_init()
        # the theme before the stylesheet is first read: set once the app runs, it would make Textual
        # parse every style again before the first frame
        for t in THEMES:
            self.register_theme(t)
        with contextlib.suppress(Exception):  # an unknown name: said by `on_mount`, which falls back
            self.theme = self._initial_theme

    def get_driver_class(self) -> type[Driver]:
        """Textual's choice, but our Linux driver: it notices a terminal that went away (`tui.terminal`)."""
        cls = super().get_driver_class()
        return TerminalDriver if cls is LinuxDriver else cls

    @on(TerminalGone)
    def _terminal_gone(self, message: TerminalGone) -> None:
        """Nobody can see this screen or answer it any more: end the run as SIGHUP does.

        The child's group is stopped, the run directory removed and the recording closed
        (`wrapper.signals`). A question still waiting is denied, so nothing runs unanswered.
        """
        if self.terminal_lost:
            return
        self.terminal_lost = message.why
        self._close_questions(lambda q: True, "the terminal went away")
        if not self.source.hang_up():  # a replay, or a session still starting: `close` ends it
            if self.source.signalled is None:
                self.source.signalled = signal.SIGHUP
            self.exit(return_code=0)

    # -- layout --------------------------------------------------------------------------------
    def get_default_screen(self) -> Screen[Any]:
        """The main screen, with the keys of this source's mode."""
        return MainScreen(self.settings, self.mode, self._typing() and self.mode == keys.LIVE, self._placeholder())

    def _typing(self) -> bool:
        """Whether the person can type to the child: a message to an agent, or a line to a command's input."""
        return self.caps.prompt or self.caps.input

    def _placeholder(self) -> tuple[str, ...]:
        """The prompt's placeholder, full and short (the box shows the longest that fits its width)."""
        if self.caps.input and not self.caps.prompt:
            return INPUT_PLACEHOLDER
        return ("message the agent · F1 help", "message")

    def on_mount(self) -> None:
        """Themes and keys (the main screen calls `attach` once its widgets exist)."""
        if self.theme != self._initial_theme:  # an unknown name in the config (`__init__` could not set it)
            name = markup_safe(self._initial_theme, keep_newlines=False)
            self.notify(f"unknown theme {name!r}; using breaker-dark", severity="warning", markup=False)
            self.theme = "breaker-dark"
        if self.settings.keys:
            self.set_keymap(self.settings.keys)

    def attach(self, main: MainScreen) -> None:
        """The main screen is composed: hold its widgets, start the timers and the source."""
        self.main = main
        w = main.widgets()
        self.w_stream, self.w_output, self.w_prompt = w["stream"], w["output"], w["prompt"]
        self.w_tabs, self.w_scores, self.w_window = w["tabs"], w["scores"], w["window"]
        self.w_banner, self.w_status, self.w_summary = w["banner"], w["status"], w["summary"]
        self.w_notice = w["notice"]
        self.w_plan, self.w_steps, self.w_complete = w["plan"], w["steps"], w["complete"]
        main.before_frame = self._before_frame
        self._clear_banner()  # the title
        self._apply_colours()
        if not self.source.ready:
            self._paint_panels()  # the first frame says what is starting (a frame's wait for the timer is one too many)
        if self.mode == keys.LIVE and (self._loosened.startswith("OBSERVING") or self.settings.held_back):
            # the stderr lines are hidden by the screen: the person reads them here too
            self._notify(" · ".join(report(self.settings)), "config loosened", "warning", 30)
        if self._observe and self.mode == keys.LIVE:
            self.source.set_enforcing(False)
            self.refresh_bindings()  # the footer offers resume, not pause
        self.set_interval(1 / self.settings.ui.refresh_hz, self._tick)
        self.call_after_refresh(self._freeze_startup)
        self.call_after_refresh(self.drive)

    def _source_opened(self) -> None:
        """The session opened after the first frame: its capabilities replace the guess the frame was drawn with."""
        self.caps = self.source.capabilities
        # a quit while the session opened: the screen is being taken down, and has nothing to correct
        if not hasattr(self, "main") or not self.main.is_attached:
            return
        if not self._typing() and self.mode == keys.LIVE:
            self.main.drop_prompt()
        elif self.caps.input and not self.caps.prompt:
            self.main.input_only(INPUT_PLACEHOLDER)
        self.refresh_bindings()

    def _freeze_startup(self) -> None:
        """What lives as long as the app (modules, widgets, styles) is set aside from the garbage collector.

        A full collection walks every tracked object: tens of milliseconds for a started Textual app,
        a stall every delta waiting for the screen sits through. Frozen, only what the session made
        since is walked. `on_unmount` gives them back, so a closed app can be collected. The youngest
        generation is made larger while the app runs (`GC_YOUNG`).
        """
        gc.collect()
        gc.enable()  # the command line turns it off while the screen starts (`tui.cli`)
        gc.freeze()
        self._gc_threshold = gc.get_threshold()
        gc.set_threshold(GC_YOUNG, *self._gc_threshold[1:])

    @work(exclusive=True, group="source")
    async def drive(self) -> None:
        """Pull items from the source into the inbox, in order."""
        # a signal shuts the session down (wrapper.signals), then the app exits with 128 + its number
        self.source.on_signal = lambda sig: self.exit(return_code=0)
        try:
            await self.source.run(self._receive)
        except Exception as e:  # the monitor never crashes because the agent misbehaves
            from wrapper.items import StatusItem

            self.internal_error = f"the session stopped unexpectedly: {e!r}"
            self._receive(StatusItem("error", self.internal_error))

    def _receive(self, item: Item) -> None:
        self._inbox.append((item, time.perf_counter()))
        if not self._inbox_posted:
            self._inbox_posted = True
            self.post_message(Inbox())

    def _apply_colours(self) -> None:
        theme = self.current_theme
        pal = palette(theme)
        colours = (pal.cool, pal.warm, pal.hot)
        self.w_scores.colours = colours
        self.w_window.colours = colours
        self.w_stream.palette = pal

    def watch_theme(self, _: str) -> None:
        """Colours follow the theme."""
        if hasattr(self, "w_scores"):
            with contextlib.suppress(Exception):
                self._apply_colours()

    # -- items -------------------------------------------------------------------------------
    @on(Inbox)
    def _drain(self) -> None:
        self._inbox_posted = False
        while self._inbox:
            item, at = self._inbox.popleft()
            try:
                self._on_item(item, at)
            except Exception as e:  # one bad item never takes the screen down
                self.w_stream.line(Text(f"· could not show an item: {inert(repr(e))}", "bold"))
        with contextlib.suppress(NoMatches):
            if hasattr(self, "w_stream") and self.w_stream.is_attached:
                if self.main.frames_write:  # the next frame writes it: once a frame, however many batches
                    self.w_stream.frame_due()
                    self.main.draw_soon()
                else:  # whole screens over the main one: none of its frames is coming, written as it arrives
                    self.w_stream.flush()
        self._tick()

    def _before_frame(self) -> None:
        """The main screen is about to draw: the stream writes what arrived since the last frame."""
        try:
            if self.w_stream.is_attached:
                self.w_stream.flush()
        except Exception as e:  # one bad line never takes the screen down; said once, not every frame
            if repr(e) != self._frame_error:
                self._frame_error = repr(e)
                self.w_stream.line(Text(f"· could not show the stream: {inert(repr(e))}", "bold"))

    def _tick(self) -> None:
        """Paint if something changed and a frame has passed since the last paint."""
        now = time.perf_counter()
        if now - self._last_paint < 1 / self.settings.ui.refresh_hz * 0.9:
            return
        self._last_paint = now
        self._follow_turn()
        # the output pane paints every frame; the panels (scores, window, status) a few times a second
        with contextlib.suppress(NoMatches):  # the screen is being torn down while a timer fires
            # the stream is written by the main screen's frames when it has them (`_before_frame`)
            self.refresh_view(panels=now - self._last_panels >= PANEL_PERIOD_S, stream=not self.main.frames_write)

    def _follow_turn(self) -> None:
        """A turn started or ended (an item, or a prompt sent): the footer offers cancel only while one runs."""
        busy = bool(self.prompts_pending) or (self.source.ready and self.source.info.busy)
        if busy != self._busy_shown:
            self._busy_shown = busy
            self.refresh_bindings()

    def _on_item(self, item: Item, at: float) -> None:
        self.timeline.saw(item)
        if self.pulse is not None and self.source.ready:  # the clock starts with a busy turn's first item
            i = self.source.info
            self.pulse.busy(i.busy and i.child == "running")
            self.pulse.saw(item)
        handle = _handler(type(item))
        if handle is not None:
            handle(self, item, at)

    def _on_engine(self, item: EngineItem, at: float) -> None:
        from engine import events as ev  # items come after the first frame: so do the engine's modules

        e = item.event
        self.w_stream.event(e, at)
        if isinstance(e, ev.TurnStart):
            self._notices = 0  # the notice line counts the turn's decisions: a new turn starts it over
            self.w_notice.update("")
            self.w_notice.display = False
        if isinstance(e, ev.TurnStart | ev.TurnEnd) and self._last_trip is not None:
            self._clear_banner()  # a trip belongs to its turn: the banner goes with it

    def _on_verdict(self, item: VerdictItem) -> None:
        self.w_stream.verdict(item)
        self.note_verdict(item)
        if item.verdict.kind == "deny":
            self._notice(_denial_notice(item))

    def _on_result(self, item: ResultItem) -> None:
        # the agent's own record of the call, when it sent one (an ACP agent relays what its calls returned)
        relayed = None if item.call_id in self._derived else self.calls.get(item.call_id)
        self.w_stream.result(item, relayed)
        self.note_result(item)

    def _on_trip(self, item: TripItem) -> None:
        self.w_stream.trip(item)
        self._show_trip(item)

    def _output(self, text: str, stream: str = "terminal") -> None:
        """Child output is buffered (bounded) and written once per frame, like the stream.

        An agent's own log (`stream` "log": an ACP agent's stderr, its stdout being the protocol) goes to
        the pane without opening it: the status line counts its lines, and a failed exit opens it.
        """
        if stream == "log":
            if text:
                self._log_lines += text.count("\n") - text.endswith("\n") + (not self._log_mid)
                self._log_mid = not text.endswith("\n")
        else:
            self._out_opens = True
        self._out.append(text)
        self._out_chars += len(text)
        while self._out_chars > OUTPUT_BACKLOG_CHARS and len(self._out) > 1:
            self._out_skipped += len(self._out[0])
            self._out_chars -= len(self._out.popleft())

    def _flush_output(self) -> None:
        if not self._out:
            return
        text = "".join(self._out)
        self._out.clear()
        self._out_chars = 0
        clean = inert(text[-OUTPUT_BACKLOG_CHARS:]).rstrip("\n")
        if self._out_skipped:
            self.w_output.write(Text(f"… {self._out_skipped:,} characters skipped (output flood)", "italic"))
            self._out_skipped = 0
        if not clean.strip():
            return
        self.w_output.write(Text(clean))
        opens, self._out_opens = self._out_opens, False
        if opens and not self.output_toggled and not self.w_output.display:
            self.w_output.display = True

    def _status_item(self, item: StatusItem) -> None:
        if item.kind == "rewind":  # a replay went back: the screen starts over
            self.w_stream.clear()
            self.w_output.clear()
            self._out.clear()
            self._out_chars = 0
            self._log_lines, self._log_mid = 0, False
            self._clear_banner()
            self.front_clear()
            return
        self.w_stream.status(item)
        if item.kind in ("started", "exited"):
            self.refresh_bindings()  # the footer follows the child: no kill or cancel once it has exited
        if item.kind == "started":
            self.child_status = None
        elif item.kind == "exited":
            info = getattr(self.source.info, "exit", None)
            caused_by_us = info is not None and getattr(info, "sent", None) is not None
            code = int(item.data.get("code", 0) or 0)
            self.child_status = None if caused_by_us else code
            if self.child_status and self._log_lines and not self.output_toggled:
                self._flush_output()  # a failed agent's log (a crash trace) is shown, not just counted
                self.w_output.display = True
            self._close_questions(lambda q: True, "the agent exited")
            self._unsay(STOPPING)  # the stream says how it ended
            self._unsay(STOPPING_SOON)
            if self._last_trip is not None:
                self._clear_banner()
        elif item.kind == "error":
            if item.data.get("cannot_start"):
                self.start_error = item.text
                self.exit(3)
                return
            self._notify(item.text, "error", "error", 8)

    def _log_part(self) -> list[tuple[str, str, int]]:
        """The folded agent log's line count and the key that shows it (while the pane is closed)."""
        if not self._log_lines or self.w_output.display:
            return []
        key = keys.shown_key(keys.BY_ACTION["toggle_output"], self.settings.keys).replace("ctrl+", "^")
        # after the tokens: at 80 columns the tokens give way first, at 60 this goes too
        return [(f" · agent log {self._log_lines:,} · {key}", "dim", 3)]

    def _clear_banner(self) -> None:
        """The banner row shows the title again."""
        self._last_trip = None
        self.w_banner.update(
            Text.assemble(
                self.title, (f" — {self.sub_title}" if self.sub_title else "", "dim"), justify="center", end=""
            )
        )
        self.w_banner.remove_class("tripped")

    def _show_trip(self, item: TripItem) -> None:
        self._last_trip = item
        t = item.trip
        what = f"{clip(t.rule, 30)} on {short_id(t.agent)}'s {t.stream} stream · {clip(item.sent, 50)}"
        hint = self._trip_keys() if self.mode == keys.LIVE else ""
        self.w_banner.update(Fitted(Text("⚡ TRIP ", "bold"), Text(what), Text(hint, "bold")))
        self.w_banner.add_class("tripped")
        # counted on the notice line; shown there only if it is showing already (the banner says it)
        self._notice(
            f"⚡ loop detected: {clip(t.rule, 30)} ({clip(t.evidence(), 60)}) → {clip(item.sent, 50)}", show=False
        )

    def _trip_keys(self) -> str:
        """The keys the banner offers: only those this source has, as the keymap names them."""
        offered = [
            f"{keys.shown_key(keys.BY_ACTION[action], self.settings.keys)} {label}"
            for action, label in (("cancel_turn", "cancel"), ("kill", "kill"))
            if keys.available(keys.BY_ACTION[action], self.mode, self.caps)
        ]
        return "  " + " · ".join([*offered, "F1 keys"])

    def _notice(self, text: str, show: bool = True) -> None:
        """One line over the prompt for the newest decision, with how many the turn has had.

        Decisions come in bursts during a loop; a toast each would stack over the stream and the
        panels the person wants to read. The stream keeps every one of them. Not `show`: counted, and
        shown only if the line is showing already (making it appear is a layout pass).
        """
        self._notices += 1
        if not (show or self.w_notice.display):
            return
        count = f"{self._notices} this turn · " if self._notices > 1 else ""  # first: a long text is cut at its end
        self.w_notice.display = True
        line = Text.assemble((count, "bold"), text, no_wrap=True, overflow="ellipsis", end="")
        line.truncate(max(10, (self.w_notice.size.width or self.size.width) - 2), overflow="ellipsis")
        self.w_notice.update(line)

    def refresh_view(self, panels: bool = True, stream: bool = True) -> None:
        """Coalesced repaint: stream (unless not `stream`) and output text; with `panels`, also scores, window,
        tabs and the status line.
        """
        if not hasattr(self, "w_stream") or not self.w_stream.is_attached:
            return
        if stream:
            self.w_stream.flush()
        self._flush_output()
        if panels:
            self._last_panels = time.perf_counter()
            self._paint_panels()

    def _paint_panels(self) -> None:
        if not self.source.ready:  # the session is still opening: the status line says so, the panels wait
            doing = f"starting {self.source.title}… {inert(self.source.stage, keep_newlines=False)}".rstrip()
            self.w_status.update(Text(doing, no_wrap=True, overflow="ellipsis", end=""))
            return
        info = self.source.info
        tabs = self.w_tabs
        if tabs.query("#tabs-list"):  # gone while the app tears down, when the timer may still fire
            for n, agent in enumerate(info.agents):
                tid = f"agent-{n}"
                if tid not in self._tabs_added:
                    self._tabs_added.add(tid)
                    tabs.add_tab(Tab(("main" if n == 0 else f"sub {n}") + f" · {short_id(agent)}", id=tid))
            _settle_underline(tabs)
        self.main.set_class(len(info.agents) <= 1, "single-agent")
        if not self.selected_agent and info.agents:
            self.selected_agent = info.agents[0]
        snap = self.source.monitor.breaker.snapshot()
        scores = snap.get(self.selected_agent) if self.selected_agent else (snap.agents[0] if snap.agents else None)
        if self.main.narrow and not self.main.panels_toggled:
            self.w_summary.update(summary(scores, self.w_summary.size.width or self.size.width))
        else:
            self.w_scores.show(scores, max(6, min(16, (self.w_scores.size.width - 32) or 16)))
            self.w_window.show(scores)
            line = self.timeline.text(max(0, self.w_window.size.width - 14))
            title = f"window · {line}" if line else "window"
            if self.w_window.border_title != title:  # setting it repaints the panel, even to the same text
                self.w_window.border_title = title
        self.w_status.update(self._status_text(snap.enforcing))

    def _status_text(self, enforcing: bool) -> Text:
        i = self.source.info
        pal = palette(self.current_theme)
        src = self.source
        if src.kind == "replay":
            src = cast("ReplaySource", src)
            end = "LIVE, at the end so far" if src.live else "at the end"
            state = "paused" if src.paused else (end if src.done else "playing")
            head: tuple[str, str] = (f"REPLAY {src.position}/{src.total} {state} ×{src.speed:g}", f"bold {pal.tool}")
        elif (verdict_path := _verdict_path(i)) is not None:
            # ENFORCING comes from the live channel only: a bridge that said hello and still answers
            head = (verdict_path, f"bold {pal.error if i.unmonitored else pal.warning}")
        else:
            # a config that enforces less than the defaults is never full ENFORCING (wrapper.weakening)
            if enforcing and self._loosened:
                head = (self._loosened, f"bold {pal.warning}")
            else:
                head = ("ENFORCING", f"bold {pal.ok}") if enforcing else ("OBSERVING ONLY", f"bold {pal.warning}")
        # a working agent's child is running: "working…" says both, and leaves the mode room at 60 columns
        working = i.busy and i.child == "running"
        child = "working…" if working else f"child {i.child}"
        model = inert(i.model, keep_newlines=False)[:24] or "—"
        # a bridge that went away with its child is a normal end, not news
        bridge = "" if i.bridge in ("connected", "none") or i.child != "running" else f" · bridge {i.bridge}"
        life = self._pulse_parts(working, pal.warning)
        if life:
            life[0] = (life[0][0] + bridge, *life[0][1:])
        # (text, style, rank): on a narrow terminal the highest ranks go first, so the state, the
        # child and the turn stay readable at 60 columns
        asks_off = [(" · ASKS OFF", f"bold {pal.warning}", 1)] if self.asks_off() else []
        width = self.w_status.size.width or self.size.width
        scrub = self._scrubber_part(width, pal.tool)
        # a plain command has no session, model, mode, turns or tokens: nothing of an agent's is shown for it
        agent = [
            (f" · {short_id(i.session_id)}" if i.session_id else " · no session", "bold", 5),
            (f" · {model}", "", 4),
            # the mode outlives the tokens: shift+tab's answer must be seen at 60 columns too
            (self.mode_status(), "", 2),
            (f" · turn {i.turn} step {i.step}", "", 2),
            (f" · {i.input_tokens:,}↑ {i.output_tokens:,}↓", "", 3),
        ]
        parts = [
            (head[0], head[1], 0),
            *scrub,
            *asks_off,
            *(agent if self.caps.agent else []),
            *(life or [(f" · {child}{bridge}", "", 1)]),
            *self._log_part(),
        ]
        while len(parts) > 1 and sum(len(t) for t, _, _ in parts) > width:
            parts.remove(max(parts, key=lambda p: p[2]))
        return Text.assemble(*((t, st) for t, st, _ in parts), no_wrap=True, overflow="ellipsis", end="")

    def _scrubber_part(self, width: int, style: str) -> list[tuple[str, str, int]]:
        """A replay's position as a scrubber with a mark at each intervention (`tui.widgets.scrubber`)."""
        src = self.source
        if src.kind != "replay":
            return []
        src = cast("ReplaySource", src)
        return [(" " + scrubber(src.position, src.total, src.player.marks, max(10, min(40, width // 4))), style, 2)]

    def _pulse_parts(self, working: bool, warning: str) -> list[tuple[str, str, int]]:
        """The turn's clock, streamed count and silence (`tui.widgets.pulse`) as status-line parts."""
        if self.pulse is None:
            return []
        i = self.source.info
        if self.caps.prompt and not i.session_id and i.child != "exited":  # an agent still opening its session
            return [(f" · {self.pulse.starting()}", "", 1)]
        self.pulse.busy(working)
        self.pulse.asking(self._approval is not None)  # the agent waits for the person: no model silence
        return [
            (f" · {text}", f"bold {warning}" if warn else "", 1 if warn or n == 0 else 3)
            for n, (text, warn) in enumerate(self.pulse.parts())
        ]

    # -- approvals ---------------------------------------------------------------------------
    async def ask_operator(self, q: Question) -> Answer:
        """Queue the question and wait for the person's answer (deny if it is closed first).

        One modal at a time: questions that arrive while one is shown wait behind it, and the modal
        says how many. A flood of questions costs a queue entry each, never a screen each.
        """
        fut: asyncio.Future[Answer] = asyncio.get_running_loop().create_future()
        self._questions.append((q, fut))
        if self._approval is None:
            self._next_question()
        else:
            self._approval[0].set_waiting(len(self._questions))
        return await fut

    def _next_question(self) -> None:
        while self._questions and self._approval is None:
            q, fut = self._questions.popleft()
            if fut.done():
                continue
            prompt = self.w_prompt if self.w_prompt.display and not self.w_prompt.disabled else None
            screen = ApprovalScreen(q, prompt, waiting=len(self._questions))

            def done(answer: Answer | None, fut: asyncio.Future[Answer] = fut) -> None:
                self._approval = None
                if not fut.done():
                    fut.set_result(answer or "deny")
                self.call_later(self._next_question)

            self._approval = (screen, fut)
            self.refresh_view()  # what led to the question is painted under the modal first
            self.push_screen(screen, done)
            self.bell()

    def _approval_closed(self, item: ApprovalClosed) -> None:
        """The bridge stopped waiting: close the matching question, shown or queued, and say why."""
        self._close_questions(lambda q: item.id in ("", q.id, q.call_id or ""), item.reason)

    def _on_approval(self, item: ApprovalItem) -> None:
        """An approval asked or answered, on the stream; the denial of a question the screen closed was said."""
        if item.answer is not None and item.question.id and item.question.id in self._closed_here:
            self._closed_here.remove(item.question.id)
            return
        self.w_stream.approval(item)

    def close_questions(self, reason: str) -> None:
        """Deny every question waiting for the person, the one shown included, saying why."""
        self._close_questions(lambda q: True, reason)

    def _close_questions(self, match: Any, reason: str) -> None:
        closed: list[Question] = []
        for q, fut in list(self._questions):
            if match(q) and not fut.done():
                fut.set_result("deny")
                closed.append(q)
        self._questions = deque((q, f) for q, f in self._questions if not f.done())
        if self._approval is not None and match(self._approval[0].question):
            closed.append(self._approval[0].question)
            self._approval[0].close_unanswered()
        elif self._approval is not None:
            self._approval[0].set_waiting(len(self._questions))
        for q in closed:
            if q.id:
                self._closed_here.append(q.id)
            what = f"approval for {clip(q.tool, 40) or 'a call'} closed unanswered: {clip(reason, 120)}"
            self.w_stream.line(Text(f"  ✖ {what}", "bold"))
            self._notice(what)

    # -- actions -----------------------------------------------------------------------------
    async def on_unmount(self) -> None:
        """Leave nothing running; what `_freeze_startup` set aside can be collected again."""
        gc.unfreeze()
        if self._gc_threshold is not None:
            gc.set_threshold(*self._gc_threshold)
        await self.source.close()

    def exit_status(self) -> int:
        """0 after quit, kill or restart; the child's own status when it ended by itself; 3 / 70 on failure."""
        if self.start_error or (self.source.ready and getattr(self.source.info, "run_unmonitored", "")):
            return 3  # could not start, or the session was stopped as NOT MONITORED
        if self.source.signalled is not None:
            return 128 + int(self.source.signalled)
        if self.internal_error or self.return_code not in (None, 0, 3):
            return EXIT_INTERNAL
        return self.child_status or 0


def _verdict_path(i: Any) -> str | None:
    """What the status line says instead of ENFORCING while no live monitor vets the calls, or None."""
    if i.unmonitored:
        return "NOT MONITORED"
    if i.child != "running" or i.bridge == "connected":
        return None
    return {"none": "OBSERVING (output only)", "waiting": "NOT MONITORED YET"}.get(i.bridge, "NOT MONITORED")


def _denial_notice(item: VerdictItem) -> str:
    """The notice line for a denial: what kind it was, of which call (a call that already ran says so)."""
    v = item.verdict
    hits = clip(", ".join(f"{h.fp} {h.next}/{cap_text(h.cap)}" for h in v.hits), 90)
    if item.ran:
        return f"⚠ {clip(item.tool, 30)} ran without asking, then tripped: {hits}"
    why = "repeat" if v.source == "repeat" else "keeps failing"
    return f"⛔ denied {clip(item.tool, 30)} ({why})" + (f": {hits}" if hits else "")


Handler = Callable[[BreakerApp, Any, float], None]
_HANDLERS: dict[type, Handler | None] = {}


def _handler(kind: type) -> Handler | None:
    """What the screen does with an item of this class (None: nothing), looked up once per class.

    A table rather than an `isinstance` ladder; built at the first item, because the item classes
    come with the engine, which is imported after the first frame.
    """
    if not _HANDLERS:
        from wrapper import items as i

        _HANDLERS.update(
            {
                i.EngineItem: BreakerApp._on_engine,
                i.ToolDeltaItem: None,  # the call's arguments as they stream: shown once the call is complete
                i.VerdictItem: lambda app, item, _: app._on_verdict(item),
                i.ResultItem: lambda app, item, _: app._on_result(item),
                i.TripItem: lambda app, item, _: app._on_trip(item),
                i.ApprovalItem: lambda app, item, _: app._on_approval(item),
                i.ApprovalClosed: lambda app, item, _: app._approval_closed(item),
                i.OutputItem: lambda app, item, _: app._output(item.text, item.stream),
                i.StatusItem: lambda app, item, _: app._status_item(item),
                i.CallItem: lambda app, item, _: app.on_call(item),
                i.PlanItem: lambda app, item, _: app.on_plan(item),
                i.CommandsItem: lambda app, item, _: app.on_commands(item),
                i.ChoicesItem: lambda app, item, _: app.on_choices(item),
            }
        )
    if kind not in _HANDLERS:  # a subclass: the handler of its nearest known base
        _HANDLERS[kind] = next((_HANDLERS[c] for c in kind.__mro__ if c in _HANDLERS), None)
    return _HANDLERS[kind]


def create_app(source: Source, settings: Settings, theme: str | None = None, observe: bool = False) -> BreakerApp:
    """The one factory the CLI, the replay command and the tests share."""
    return BreakerApp(source, settings, theme=theme, observe=observe)


def _settle_underline(tabs: Tabs) -> None:
    """Place the active tab's underline again if it is collapsed at the left edge.

    Textual places it when the tab mounts, before the tab is laid out and has its width; it moves
    again only on a resize or a new active tab, which a steady side panel may never bring.
    """
    start, end = tabs.query_one(Underline)._highlight_range  # (0, 0) while it is hidden
    if tabs.active and end <= start:
        tabs._highlight_active(animate=False)
