"""The main screen: what the person watches (stream, scores, window, status) and the keys of the mode.

The prompt box is a multi-line composer (`tui.widgets.composer`) with a hint beside it. Its bindings
are the table in `tui.keys`; the app's `check_action` decides which are live for the
current source, so the footer, the help and the keys always agree. Below `[ui] narrow_below`
columns the side panel collapses to a one-line summary, and `ctrl+b` swaps the stream for the panel
view (the window first, then the scores), so the fingerprint window is reachable at 60x20. The
prompt box, the notice line and the status line stay under either.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from textual import events, on
from textual.app import ComposeResult
from textual.binding import ActiveBinding
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.widgets import Footer, OptionList, RichLog, Tabs

from tui import keys
from tui.widgets.calls import StepsList
from tui.widgets.composer import Composer
from tui.widgets.compositor import FrameCompositor
from tui.widgets.line import Line
from tui.widgets.plan import PlanView
from tui.widgets.scores import ScoresPanel
from tui.widgets.stream import StreamView
from tui.widgets.window import WindowTable
from wrapper.settings import Settings

# Textual draws a screen from its update timer (`Screen._on_timer_update`, at most `TEXTUAL_FPS` times a
# second, once something on it is dirty). What only matters to the next frame (writing the streamed
# text) runs there, once a frame, rather than once per batch of items; without the hook (another
# Textual), the app writes as items arrive.
FRAME_HOOK = callable(getattr(Screen, "_on_timer_update", None))
# Items arriving draw a frame at once when the last is this old (at most 120 a second), rather than
# waiting for Textual's timer: a fast stream gets the frames it needs to show every row.
FRAME_S = 1 / 120


class KeysFooter(Footer):
    """Textual's footer, with its keys in the screen's first frame.

    Textual's own composes them only once the screen has published its bindings, a frame or two
    after the first: the first frame would show no way to quit.
    """

    def __init__(self) -> None:
        super().__init__(compact=True, show_command_palette=False)
        self.set_reactive(Footer._bindings_ready, True)


class MainScreen(Screen[None]):
    """The monitor's one screen; modals (approval, help) go on top of it."""

    BINDINGS = keys.bindings()

    def __init__(self, settings: Settings, mode: str, prompt: bool, placeholder: tuple[str, ...]) -> None:
        super().__init__(id="main-screen")
        self._compositor = FrameCompositor()  # a frame renders what it changes (`tui.widgets.compositor`)
        self.settings = settings
        self.mode = mode
        self.has_prompt = prompt
        self.placeholder = placeholder
        self.panels_toggled = False  # the person's choice overrides the automatic layout
        self.before_frame: Callable[[], None] | None = None  # run just before each frame is drawn
        self.last_frame = 0.0
        self.frames = 0  # frames drawn
        self._early: list[str] | None = []  # keys typed before the prompt first had the focus (`on_key`)

    @property
    def active_bindings(self) -> dict[str, ActiveBinding]:
        """Textual's, each labelled as the app's state has it now (`label_now`: ctrl+e resumes while observing)."""
        active = super().active_bindings
        keys.labelled_now(active, getattr(self.app, "label_now", None))
        return active

    def _on_timer_update(self) -> None:
        """A frame is due: what it must show is written first (`before_frame`), then Textual draws it."""
        self.last_frame = time.perf_counter()
        self.frames += 1
        if self.before_frame is not None and self.is_current:
            self.before_frame()
        super()._on_timer_update()

    def draw_soon(self) -> None:
        """Draw a frame now if one is due (`FRAME_S` since the last), else leave it to Textual's timer."""
        if time.perf_counter() - self.last_frame >= FRAME_S and self.frames_write and not self.app._batch_count:
            self._on_timer_update()

    @property
    def frames_write(self) -> bool:
        """Whether the next frame writes what arrived (this screen is drawn and has the hook)."""
        return FRAME_HOOK and self.before_frame is not None and self.is_current

    def compose(self) -> ComposeResult:
        # the classes for the terminal's width before the widgets are styled: set later, they would
        # restyle every widget once more before the first frame
        self._layout_classes(self.app.size.width, update=False)
        ui = self.settings.ui
        th = self.settings.engine.thinking
        # The title row, which a trip turns into its banner: no row appears or goes, so a trip in a
        # fast stream costs a repaint, not a layout pass of the whole screen (40-90 ms on 2 cores).
        yield Line("", id="banner")
        with Horizontal(id="main"):
            with Vertical(id="left"):
                yield PlanView(id="plan")
                yield StreamView(ui.max_stream_lines, ui.show_reasoning, id="stream")
                yield RichLog(max_lines=ui.max_output_lines, wrap=True, markup=False, min_width=20, id="output")
            with Vertical(id="right"):
                yield Tabs(id="agents")
                yield ScoresPanel(th.deg_meaning_ratio_max, th.tool_failure_deny_after, id="scores")
                yield WindowTable(id="window")
                yield StepsList(id="steps")
        yield Line("", id="notice")
        yield OptionList(id="complete")
        with Horizontal(id="prompt-row"):
            yield Composer(placeholder=self.placeholder, id="prompt")
            yield Line("", id="prompt-hint")
        yield Line("", id="summary")
        yield Line("", id="status")
        yield KeysFooter()

    def on_mount(self) -> None:
        """Titles, the prompt's focus, and the layout for the current width."""
        banner = self.query_one("#banner")
        # the title row is one row: a title too long for it ends in `…` (wrapped, its second row was cut away,
        # and a replay's read `breaker-tui — replay:` with the file's name gone)
        banner.styles.text_wrap, banner.styles.text_overflow = "nowrap", "ellipsis"
        self.query_one("#window").border_title = "window"
        self.query_one("#output").border_title = "child output"
        self.query_one("#stream").border_title = "stream"
        output = self.query_one("#output")
        output.display = False  # shown once the child prints something
        self.query_one("#steps").display = False  # shown once the agent reports a call it keys by id
        complete = self.query_one("#complete", OptionList)
        complete.display = False  # the slash commands that match what is typed after `/`
        complete.can_focus = False  # the prompt keeps the focus; its keys move the highlight
        prompt = self.query_one("#prompt", Composer)
        if not self.has_prompt:
            self.drop_prompt()
        else:
            prompt.focus()
            self.call_after_refresh(self._take_early)
            self._hint()
        self._layout(self.size.width)
        attach = getattr(self.app, "attach", None)
        if attach is not None:
            attach(self)

    def input_only(self, placeholder: tuple[str, ...]) -> None:
        """The box takes lines for a plain command's input, not messages: its placeholder says so."""
        prompt = self.query_one("#prompt", Composer)
        prompt.placeholders = placeholder
        prompt.on_resize()

    def drop_prompt(self) -> None:
        """No prompt box: the source takes no messages (a plain command, a replay)."""
        self.has_prompt = False
        prompt = self.query_one("#prompt", Composer)
        self.query_one("#prompt-row").display = False
        prompt.display = False
        prompt.disabled = True
        self.query_one("#stream #log").focus()

    def on_resize(self, event: events.Resize) -> None:
        """Narrow terminals collapse the side panel."""
        self._layout(event.size.width)

    @property
    def narrow(self) -> bool:
        """Whether the side panel is collapsed by width."""
        return self.has_class("narrow")

    def _layout_classes(self, width: int, update: bool = True) -> bool:
        """The layout's classes for `width`, in one batch (each change restyles the whole screen); stacked?"""
        narrow = 0 < width < self.settings.ui.narrow_below
        stacked = narrow and self.panels_toggled
        classes = {"narrow": narrow, "stacked": stacked, "no-panel": not narrow and self.panels_toggled}
        self.update_classes({**classes, "replay": self.mode == keys.REPLAY}, update=update)
        return stacked

    def _layout(self, width: int) -> None:
        stacked = self._layout_classes(width)
        right, window, scores = self.query_one("#right"), self.query_one("#window"), self.query_one("#scores")
        # the panel view of a narrow terminal puts the window first: it gets the room the scores leave
        first = right.children.index(window) < right.children.index(scores)
        if stacked and not first:
            right.move_child(window, before=scores)
        elif not stacked and first:
            right.move_child(window, after=scores)

    def toggle_panels(self) -> None:
        """Narrow: the panel view (window and scores) instead of the stream, and back; wide: hide or show it."""
        self.panels_toggled = not self.panels_toggled
        self._layout(self.size.width)

    @on(Composer.Changed, "#prompt")
    def _hint(self) -> None:
        """The row beside the box says how to send and add a line (and how many lines there are)."""
        self.query_one("#prompt-hint", Line).update(self.query_one("#prompt", Composer).hint())

    def on_key(self, event: events.Key) -> None:
        """A key typed before the prompt had the focus goes into the prompt, not nowhere.

        What a person types while the monitor starts waits in the terminal, and Textual reads it the
        moment it takes the terminal: before this screen is mounted and the prompt focused. Textual
        then hands such a key to the screen, and the prompt never sees it (seen: the first second of
        `breaker-tui demo` typed into nothing). Until the prompt has had the focus once, such keys are
        kept and put in it then. After that, the rule that tells them apart: the prompt takes every
        printable key, enter and ctrl+j itself, so none reaches the screen *from* it; one that reaches
        the screen while the prompt has the focus was dispatched before it had it. An early enter adds
        a line rather than sending: nothing goes to the agent that the person has not seen.
        """
        text = event.character if event.is_printable else "\n" if event.key in ("enter", "ctrl+j") else None
        if not self.has_prompt or not text:
            return
        prompt = self.query_one("#prompt", Composer)
        if prompt.has_focus:
            prompt.insert(text)
        elif self._early is not None:
            self._early.append(text)
        else:
            return
        event.stop()
        event.prevent_default()

    def _take_early(self) -> None:
        """The prompt has the focus: what was typed before goes in, and keys go to it from now on."""
        early, self._early = self._early, None
        if early:
            self.query_one("#prompt", Composer).insert("".join(early))

    @on(Composer.ScrollStream)
    def _scroll_stream(self, event: Composer.ScrollStream) -> None:
        """pageup / pagedown in the prompt box scroll the stream; the box keeps the focus."""
        log = self.query_one("#stream #log")
        if event.direction < 0:
            log.scroll_page_up(animate=False)
        else:
            log.scroll_page_down(animate=False)

    def widgets(self) -> dict[str, Any]:
        """The widgets the app updates, by name."""
        return {
            "stream": self.query_one("#stream", StreamView),
            "output": self.query_one("#output", RichLog),
            "prompt": self.query_one("#prompt", Composer),
            "tabs": self.query_one("#agents", Tabs),
            "scores": self.query_one("#scores", ScoresPanel),
            "window": self.query_one("#window", WindowTable),
            "banner": self.query_one("#banner", Line),
            "status": self.query_one("#status", Line),
            "summary": self.query_one("#summary", Line),
            "notice": self.query_one("#notice", Line),
            "plan": self.query_one("#plan", PlanView),
            "steps": self.query_one("#steps", StepsList),
            "complete": self.query_one("#complete", OptionList),
        }
