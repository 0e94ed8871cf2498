"""The person's actions, in one place: what each key, palette entry and button does.

`Actions` is the app minus the feed: the methods behind the bindings in `tui.keys`, the command
palette (built from the same table), `check_action` and the help screen. `BreakerApp` adds the
source, the inbox and the painting. A key exists or not by the mode and the source (`exists`: F1
help and the palette list every key that exists, with what it does); the footer follows the state
and shows only what can act now (`acts_now`: no `esc cancel` while no turn runs).
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, cast

from textual import actions, on
from textual.actions import ActionParseResult
from textual.app import App, SystemCommand
from textual.binding import BindingType
from textual.screen import Screen
from textual.widgets import RichLog, Tabs

from themes import THEMES
from tui import keys
from tui.saying import Saying
from tui.screens.help import HelpScreen
from tui.screens.main import MainScreen
from tui.widgets.composer import Composer
from tui.widgets.stream import StreamView
from wrapper.harness.capabilities import Capabilities
from wrapper.safetext import inert
from wrapper.settings import Settings

if TYPE_CHECKING:  # only for annotations: the first frame is drawn before these are imported
    from tui.player import ReplaySource
    from tui.sources import Source


# the actions that act on the session: not offered while it is still opening (the first frame is drawn before)
NEEDS_SESSION = frozenset(
    {"cancel_turn", "kill", "restart", "toggle_enforcing", "reset_windows", "next_agent", "show_sessions", "cycle_mode"}
)


OPENING = "the session is still opening"
STOPPING = "stopping the child…"  # said on ctrl+k; taken back once the child's exit is known
STOPPING_SOON = "ctrl+k: the child is stopped as soon as it has started…"  # a kill asked while it starts


class Actions(Saying, App[int]):
    """Every action a person can take; the state it acts on is set up by `BreakerApp`."""

    # the emergency keys act over every screen pushed on the main one (`tui.keys.EVERY_SCREEN`): the main
    # screen's own bindings are not looked at while another screen is on top
    BINDINGS: ClassVar[list[BindingType]] = [*keys.every_screen_bindings()]

    source: Source
    settings: Settings
    mode: str
    caps: Capabilities
    main: MainScreen
    w_stream: StreamView
    w_output: RichLog
    w_tabs: Tabs
    selected_agent: str
    output_toggled: bool
    prompts_pending: int  # messages sent from the box that the session does not have yet
    cancel_after_prompt: bool  # esc while one was on its way: cancel once it is there
    prompt_order: asyncio.Lock  # the messages reach the session in the order they were typed

    def _notify(self, text: str, title: str, severity: Any, timeout: float) -> None:
        """A toast with agent text in it: inert, never parsed as markup."""
        self.notify(inert(text, keep_newlines=False), title=title, severity=severity, timeout=timeout, markup=False)

    def refresh_view(self, panels: bool = True, stream: bool = True) -> None:
        """Repaint (the app's painting)."""

    def close_questions(self, reason: str) -> None:
        """Deny every question waiting for the person, the one shown included, saying why (`BreakerApp`)."""

    def completing(self) -> bool:
        """Whether the slash-command list is open (`tui.frontend`)."""
        return False

    def has_modes(self) -> bool:
        """Whether the agent offers modes to cycle (`tui.frontend`)."""
        return False

    def choice_commands(self) -> Iterable[SystemCommand]:
        """The agent's settings in the palette (`tui.frontend`)."""
        return ()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """A key is active, and on the footer, when it exists here (`exists`) and can act now (`acts_now`).

        False both hides it from the footer and leaves the key to the focused widget (escape closes
        the slash-command list). F1 help and the command palette list what exists, whatever the state.
        """
        return self.exists(action) and self.acts_now(action)

    def exists(self, action: str) -> bool:
        """Whether the action is one of this mode's and this source's (the help and the palette list it)."""
        if action == "cycle_mode" and not self.has_modes():
            return False  # no modes (dsh, an agent that offers none): shift+tab stays the focus key
        allowed = keys.action_allowed(action, self.mode, self.caps)
        return True if allowed is None else allowed

    def acts_now(self, action: str) -> bool:
        """Whether the action can do something in the present state (the footer follows the state)."""
        return not self.why_not_now(action)

    def why_not_now(self, action: str) -> str:
        """Why the action can do nothing in the present state, or "" when it can."""
        if action == "cancel_turn" and self.completing():
            return "escape closes the command list first"
        if action == "cancel_turn" and self.prompts_pending:
            return ""  # a message on its way is a turn about to run: the cancel follows it (`_deliver`)
        if action in NEEDS_SESSION and not self.source.ready:
            return OPENING  # nothing to stop, switch or reset yet
        if action in ("kill", "cancel_turn") and self.source.info.child == "exited":
            return "the child has exited (ctrl+r restarts it)"  # the footer offers restart and quit
        if action == "cancel_turn" and not self.source.info.busy:
            return "no turn is running"  # the footer offers it again with the next turn
        return ""

    async def run_action(
        self, action: str | ActionParseResult, default_namespace: Any = None, namespaces: Any = None
    ) -> bool:
        """Textual's, but a session key pressed while the session opens is not passed on as if unbound.

        `check_action` keeps those keys off the footer while nothing can take them, and Textual then hands
        the key to the focused widget: ctrl+k pressed in the first second or so after `breaker-tui -- AGENT`
        started went to the prompt box (its delete-to-end-of-line) and the agent ran on. Now a kill waits for
        the child and stops it the moment it has started; the other session keys say why they do nothing.
        """
        parsed = actions.parse(action) if isinstance(action, str) else action
        name = parsed[1]
        on_app = parsed[0] == "app" or (not parsed[0] and default_namespace in (None, self))
        if on_app and self.exists(name) and self.why_not_now(name) == OPENING:
            if name == "kill":
                await self.action_kill()
            else:
                label = next((k.label for k in keys.KEYS if k.action == name), name)
                self.say(f"{label}: {OPENING}; press it again once it has")
            return True
        return await super().run_action(action, default_namespace, namespaces)

    def _refused(self, what: str) -> None:
        note = self.source.notes.pop() if self.source.notes else f"{what} is not available here"
        self._notify(note, "", "warning", 4)

    async def action_cancel_turn(self) -> None:
        """Cancel the agent's current turn (the child keeps running); a message on its way is cancelled once sent."""
        if self.prompts_pending and not (self.source.ready and self.source.info.busy):
            # the session does not have the message yet: a cancel now would reach no turn, or none at all
            self.cancel_after_prompt = True
            self.say("cancel sent after the prompt reaches the agent")
            return
        await self._cancel_now()

    async def _cancel_now(self) -> None:
        if await self.source.cancel():
            self.say("cancel sent")
        else:
            self._refused("cancel")

    async def action_kill(self) -> None:
        """Kill the child (SIGINT, then SIGKILL after the grace period).

        A question the child asked is denied first: an answer given while it stops (or to a modal left
        open) would answer a call of a child that is going away.
        """
        self.close_questions("the child is being stopped")
        self.say(STOPPING)
        if not await self.source.kill():
            self._refused("kill")
        elif getattr(self.source, "kill_waits", False):  # pressed while the session opened: it waits for the child
            self.say(STOPPING_SOON)

    async def action_restart(self) -> None:
        """Restart the child on the same session (its questions are denied first, as for a kill)."""
        self.close_questions("the child is being restarted")
        if await self.source.restart():
            self.say("restarted")
        else:
            self._refused("restart")

    def label_now(self, key_id: str | None, label: str) -> str:
        """A key's footer label in the present state: while observing, ctrl+e resumes enforcement."""
        if key_id == "enforce" and self.source.ready and not self.source.monitor.breaker.enforcing:
            return "resume"
        return label

    def action_toggle_enforcing(self) -> None:
        """Pause enforcement (observe only) or resume it."""
        on = not self.source.monitor.breaker.enforcing
        self.source.set_enforcing(on)
        self.refresh_bindings()  # the footer offers the other half: pause or resume
        self.notify(
            "enforcement resumed" if on else "enforcement paused: observing only",
            severity="information" if on else "warning",
        )
        self.refresh_view()

    def action_reset_windows(self) -> None:
        """Forget every agent's sliding window."""
        self.source.reset_windows()
        self.say("sliding windows reset")
        self.refresh_view()

    def action_toggle_reasoning(self) -> None:
        """Show or fold reasoning, the blocks already shown included."""
        stream = self.w_stream
        stream.set_reasoning(not stream.show_reasoning)
        self.say("reasoning shown" if stream.show_reasoning else "reasoning folded")

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

    def action_toggle_panels(self) -> None:
        """Show or hide the side panel (stacked under the stream on narrow terminals)."""
        self.main.toggle_panels()
        self.refresh_view()

    def action_cycle_theme(self) -> None:
        """Switch between the bundled themes."""
        names = [t.name for t in THEMES]
        self.theme = names[(names.index(self.theme) + 1) % len(names)] if self.theme in names else names[0]

    def action_help(self) -> None:
        """The keys of the current mode."""
        if isinstance(self.screen, HelpScreen):
            return
        about = (
            "A recording plays through a fresh engine: the scores and the window are those at the current step."
            if self.mode == keys.REPLAY
            else f"Source: {self.caps.name}. Actions it cannot take are not offered."
        )
        rows = keys.help_rows(self.mode, self.caps, self.settings.keys, self._offered)
        self.push_screen(HelpScreen(self.mode, rows, about))

    def _offered(self, key: keys.Key) -> bool:
        """Whether `key` exists on the main screen (the help and the palette list it, whatever the state)."""
        return self.exists(key.action.split("(", 1)[0])

    def _player(self) -> ReplaySource | None:
        # by its kind, not its class: the replay player is imported only by the replay command
        return cast("ReplaySource", self.source) if self.source.kind == "replay" else None

    def action_replay_pause(self) -> None:
        """Replay: play or pause."""
        if p := self._player():
            p.toggle_pause()

    def action_replay_step(self, n: int = 1) -> None:
        """Replay: `n` steps forward (negative: back)."""
        if p := self._player():
            p.step(n)

    def action_replay_trip(self, direction: int = 1) -> None:
        """Replay: to the next (1) or previous (-1) trip or denial."""
        if (p := self._player()) and not p.jump(direction):
            self._refused("jump")

    def action_replay_seek(self, target: int) -> None:
        """Replay: to a step (-1: the end)."""
        if p := self._player():
            p.seek(target)

    def action_replay_speed(self, factor: float) -> None:
        """Replay: multiply the speed."""
        if p := self._player():
            p.change_speed(factor)

    @on(Composer.Submitted, "#prompt")
    def _submit(self, event: Composer.Submitted) -> None:
        """Enter in the prompt box: the whole text (every line of it) goes to the agent.

        It is sent in the background (`_deliver`): a session may take a while to have it (an ACP agent
        still starting), and the keys, esc first, must work meanwhile.
        """
        text = event.text.strip()
        if self.caps.input and not self.caps.prompt:
            text = event.text  # a line for a command's input goes as typed: an empty one is an answer too
        elif not text:
            return
        if self.source.first_pending:  # a demo's own prompt goes first: enter adds a line until it has gone
            event.composer.insert("\n")
            self._notify("the demo's prompt goes first: enter sends once it has", "", "information", 4)
            return
        if self.source.ready and self.source.info.child == "exited":  # keep what was typed: nothing can take it now
            self._notify("the child has exited: ctrl+r restarts it, ctrl+q quits", "", "warning", 6)
            return
        event.composer.value = ""
        event.composer.remember(text)
        working = self.source.ready and self.source.info.busy and self.source.info.child == "running"
        self.prompts_pending += 1
        self.refresh_bindings()  # esc cancel is offered at once
        self.run_worker(self._deliver(text, working), group="prompts")

    async def _deliver(self, text: str, working: bool) -> None:
        """Send one message, in the order they were typed; then the cancel asked for while it was on its way."""
        async with self.prompt_order:
            try:
                sent = await self.source.prompt(text)
            finally:
                self.prompts_pending -= 1
        cancel = self.cancel_after_prompt and not self.prompts_pending  # after the last one on its way
        if not self.prompts_pending:
            self.cancel_after_prompt = False
        if not sent:
            self._refused("prompting")
        elif working:  # the agent takes it after this turn: shown now, or the box seems to have eaten it
            self.w_stream.queued(text)
            self.w_stream.flush()  # a hung turn brings no item that would write it
        if sent and cancel:
            await self._cancel_now()
        self.refresh_bindings()

    def get_system_commands(self, screen: Screen[Any]) -> Iterable[SystemCommand]:
        """Every action of the current mode in the command palette (the same table as the keys)."""
        yield from super().get_system_commands(screen)
        for k in keys.KEYS:
            if k.id in ("help.char", "quit") or not keys.available(k, self.mode, self.caps):
                continue
            if not self._offered(k):
                continue  # e.g. no modes to cycle: the agent's modes are listed one by one below
            name, _, arg = k.action.partition("(")
            method = getattr(self, f"action_{name}")
            args = [float(a) if "." in a else int(a) for a in arg.rstrip(")").split(",") if a]
            shown = keys.shown_key(k, self.settings.keys)  # after `[keys]` remapping, as the footer shows it
            call = _bind(self._when_it_acts(name, k.label, method), args)
            yield SystemCommand(k.help[:1].upper() + k.help[1:], f"key: {shown}", call)
        yield from self.choice_commands()

    def _when_it_acts(self, action: str, label: str, method: Any) -> Any:
        """`method`, run from the palette only when it can act now (the key would not fire either); else why not."""

        def run(*args: Any) -> Any:
            if why := self.why_not_now(action):
                self._notify(f"{label}: {why}", "", "warning", 4)
                return None
            return method(*args)

        return run

    def deliver_screenshot(
        self, filename: str | None = None, path: str | None = None, time_format: str | None = None
    ) -> str | None:
        """Screenshots go to the downloads folder when there is one, else next to the recordings."""
        if path is None:
            from platformdirs import user_downloads_dir

            from wrapper.paths import state_dir

            downloads = Path(user_downloads_dir())
            target = downloads if downloads.is_dir() else state_dir() / "screenshots"
            target.mkdir(parents=True, exist_ok=True)
            path = str(target)
        self.notify(f"screenshot saved in {inert(path, keep_newlines=False)}", markup=False)
        return super().deliver_screenshot(filename, path, time_format)


def _bind(method: Any, args: list[Any]) -> Any:
    def call() -> Any:
        return method(*args)

    return call
