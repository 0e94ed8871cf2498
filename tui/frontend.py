"""What an ACP agent offers a person beyond its stream: the plan, the steps, slash commands, its settings.

A mixin of `BreakerApp` (it shares the app's widgets): the items `AcpMonitor` emits for display
(`CallItem`, `PlanItem`, `CommandsItem`, `ChoicesItem`) land here, and so do the person's uses of
them: opening a call (ctrl+d, or enter / a click in the steps list, ctrl+g), completing a slash
command after `/` or a file after `@` in the prompt, switching the agent's mode or model from the
command palette or cycling its modes with shift+tab, and the past sessions (ctrl+l, `tui.resuming`).

A mode that never asks is the breaker's concern: in it a repeated call can only be cancelled after it
ran. Picking one asks for a confirmation first, shift+tab never lands on one, and the status line says
ASKS OFF while it is on.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterable
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual import on
from textual.app import App, SystemCommand
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from tui.mentions import Tree, matching_paths, mention_word, replace_word
from tui.resuming import Resuming
from tui.screens.call import CallScreen, ConfirmScreen, StepsScreen
from tui.widgets.calls import MAX_CALLS, StepsList, is_shell, kind_of_tool, openable
from tui.widgets.composer import Composer
from tui.widgets.line import Line
from tui.widgets.plan import PlanView
from tui.widgets.stream import StreamView, clip, short_args
from wrapper.safetext import inert

if TYPE_CHECKING:  # only for annotations: the first frame is drawn before these are imported
    from tui.sources import Source
    from wrapper.items import (
        CallItem,
        Choice,
        ChoicesItem,
        CommandsItem,
        PlanItem,
        ResultItem,
        SlashCommand,
        VerdictItem,
    )

MAX_COMPLETIONS = 50


def matching(commands: Iterable[SlashCommand], typed: str) -> list[SlashCommand]:
    """The commands whose name contains `typed` (case-insensitive): those that start with it first."""
    t = typed.lower()
    hits = [c for c in commands if t in c.name.lower()]
    hits.sort(key=lambda c: (not c.name.lower().startswith(t), c.name.lower()))
    return hits[:MAX_COMPLETIONS]


def completion_word(text: str) -> str | None:
    """What follows `/` when the prompt is a command name being typed (no space, one line), else None."""
    if not text.startswith("/") or any(ch.isspace() for ch in text):
        return None
    return text[1:]


class FrontEnd(Resuming, App[int]):
    """The plan, the steps, the slash commands and the choices of the agent (see the module docstring)."""

    source: Source
    w_stream: StreamView
    w_prompt: Composer
    w_plan: PlanView
    w_steps: StepsList
    w_complete: OptionList

    def front_init(self) -> None:
        """The state this mixin keeps (called from the app's `__init__`)."""
        self.calls: OrderedDict[str, CallItem] = OrderedDict()
        self._derived: set[str] = set()  # calls recorded from their verdict and result (no `CallItem` came)
        self._announced: set[str] = set()  # calls whose diff has a line in the stream
        self.commands: tuple[SlashCommand, ...] = ()
        self.choices: ChoicesItem | None = None
        self._completions: list[tuple[str, str]] = []  # (the prompt once completed, the command's hint)
        self._tree: Tree | None = None  # the working directory's paths, for `@`

    def front_clear(self) -> None:
        """Forget the calls and the plan (a replay going back starts over)."""
        self.calls.clear()
        self._derived.clear()
        self._announced.clear()
        self.w_steps.clear_calls()
        self.w_steps.display = False
        self.w_plan.display = False

    # -- items ---------------------------------------------------------------------------------
    def on_call(self, c: CallItem) -> None:
        """A call changed: its row in the steps; the first diff of an edit gets a line in the stream."""
        self._derived.discard(c.call_id)  # the source's own record replaces one made from the verdict
        self._keep(c)
        self.w_steps.palette = self.w_stream.palette
        self.w_steps.show(c)
        self.w_steps.display = True
        if c.diffs and c.call_id not in self._announced:
            self._announced.add(c.call_id)
            p = self.w_stream.palette
            for d in c.diffs[:5]:
                line = Text(f"  ✎ {clip(d.path, 80)} ", p.tool)
                line.append(f"+{d.added}", p.ok).append(f" −{d.removed}", p.error)
                line.append("  (ctrl+d opens the diff, ctrl+g lists the steps)", p.muted)
                self.w_stream.line(line)

    def _keep(self, c: CallItem) -> None:
        """Remember the call's newest record (bounded: the oldest go first)."""
        self.calls[c.call_id] = c
        self.calls.move_to_end(c.call_id)
        while len(self.calls) > MAX_CALLS:
            old, _ = self.calls.popitem(last=False)
            self._derived.discard(old)

    def note_verdict(self, item: VerdictItem) -> None:
        """A judged call, recorded for ctrl+g and ctrl+d when its source sends no record of its own (dsh reports
        calls to the engine only): what it was, and the denial when it was refused.
        """
        if item.call_id in self.calls and item.call_id not in self._derived:
            return
        from wrapper.items import CallItem  # imported here: the first frame is drawn before the wrapper

        denied = item.verdict.kind == "deny" and not item.ran
        title = f"{item.tool}  {short_args(item.args)}" if not is_shell(item.tool) else short_args(item.args)
        record = CallItem(
            item.agent, item.call_id, title, kind_of_tool(item.tool, item.args), "failed" if denied else "pending",
            output=item.verdict.message if denied else "",
        )  # fmt: skip
        self._derived.add(item.call_id)
        self._keep(record)

    def note_result(self, item: ResultItem) -> None:
        """The result of a call recorded from its verdict: its whole output and how it ended."""
        c = self.calls.get(item.call_id) if item.call_id in self._derived else None
        if c is None:
            return
        from engine.tools.progress import exit_status  # imported here, as above

        failed = item.is_error or c.status == "failed"  # a refused call's result is the refusal
        code = exit_status(item.tool, item.text, None)
        self._keep(replace(c, status="failed" if failed else "completed", output=item.text or c.output, exit_code=code))

    def on_plan(self, item: PlanItem) -> None:
        """The agent's plan, replaced whole."""
        self.w_plan.palette = self.w_stream.palette
        self.w_plan.show(item)

    def on_commands(self, item: CommandsItem) -> None:
        """The agent's slash commands: completed after `/` in the prompt."""
        self.commands = item.commands
        self._complete(self.w_prompt.text)

    def on_choices(self, item: ChoicesItem) -> None:
        """The agent's settings as they now are (the palette lists them; the status line shows the mode)."""
        self.choices = item

    def mode_choice(self) -> Choice | None:
        """The agent's mode setting, if it has one."""
        if self.choices is None:
            return None
        return next((c for c in self.choices.choices if c.category == "mode"), None)

    def asks_off(self) -> bool:
        """Whether the agent is in a mode that never asks (the breaker can then only cancel)."""
        mode = self.mode_choice()
        return self.choices is not None and mode is not None and mode.current in self.choices.silent

    def mode_status(self) -> str:
        """` · mode Default` for the status line, or ""."""
        mode = self.mode_choice()
        if mode is None:
            return ""
        name = next((o.name for o in mode.options if o.value == mode.current), mode.current)
        return f" · mode {inert(name, keep_newlines=False)[:20]}"

    # -- opening calls ---------------------------------------------------------------------------
    def action_open_call(self) -> None:
        """Open the newest call with a diff or output (its whole output, scrollable)."""
        for c in reversed(self.calls.values()):
            if openable(c):
                self.push_screen(CallScreen(c, self.w_stream.palette, relayed=c.call_id not in self._derived))
                return
        self.say("no tool call with a diff or output yet")

    def action_show_steps(self) -> None:
        """Every call of the session, one row each; enter or a click opens one."""
        if not self.calls:
            self.say("no tool calls yet")
            return
        self.push_screen(StepsScreen(self.calls, self.w_stream.palette))

    @on(StepsList.Open)
    def _open_step(self, event: StepsList.Open) -> None:
        c = self.calls.get(event.call_id)
        if c is not None:
            self.push_screen(CallScreen(c, self.w_stream.palette, relayed=c.call_id not in self._derived))

    def has_modes(self) -> bool:
        """Whether the agent has a mode to cycle to (shift+tab)."""
        return bool(self._next_modes())

    def _next_modes(self) -> list[str]:
        """The modes after the current one, in the agent's order, without those that never ask."""
        mode = self.mode_choice()
        if mode is None or self.choices is None:
            return []
        values = [o.value for o in mode.options]
        at = values.index(mode.current) if mode.current in values else -1
        ring = values[at + 1 :] + values[: at + 1]
        return [v for v in ring if v != mode.current and v not in self.choices.silent]

    def action_cycle_mode(self) -> None:
        """shift+tab: the agent's next mode (as Toad and Claude Code cycle them), skipping those that never ask.

        A mode that never asks costs the breaker its refusal before a call runs, so it is never one key
        press away: the palette offers it, after a confirmation.
        """
        mode, nxt = self.mode_choice(), self._next_modes()
        if mode is None or not nxt:
            self.say("the agent offers no other mode that asks")
            return
        self.pick_choice(mode.id, nxt[0])

    # -- slash and @ completion ------------------------------------------------------------------
    def completing(self) -> bool:
        """Whether the completion list is open (then escape closes it instead of cancelling the turn)."""
        return bool(self._completions) and self.w_complete.display

    @on(Composer.Changed, "#prompt")
    def _prompt_changed(self, event: Composer.Changed) -> None:
        self._complete(event.text_area.text)

    def _complete(self, text: str) -> None:
        if not hasattr(self, "w_complete"):
            return
        p = self.w_stream.palette
        rows: list[tuple[Text, str, str]] = []  # (shown, the prompt once completed, hint)
        word = completion_word(text)
        if word is not None:
            hits = matching(self.commands, word)
            if len(hits) == 1 and f"/{hits[0].name}" == text:
                hits = []  # typed in full: nothing to complete
            for c in hits:
                row = Text(f"/{inert(c.name, keep_newlines=False)}", "bold")
                if c.description:
                    row.append("  " + clip(c.description, 90), p.muted)
                rows.append((row, f"/{c.name} ", c.hint))
        elif (typed := mention_word(text)) is not None and (tree := self._paths()) is not None:
            for path in matching_paths(tree.paths(), typed):
                if path != typed:
                    rows.append((Text(f"@{inert(path, keep_newlines=False)}", "bold"), replace_word(text, path), ""))
        self._completions = [(new, hint) for _, new, hint in rows]
        box = self.w_complete
        box.clear_options()
        for shown, _, _ in rows:
            box.add_option(Option(shown))
        box.display = bool(rows)
        self._set_completing(bool(rows))
        if rows:
            box.highlighted = 0

    def _paths(self) -> Tree | None:
        """The working directory's tree (a live source that takes prompts only)."""
        root = self.source.workdir()
        if root is None:
            return None
        if self._tree is None or self._tree.root != root:
            self._tree = Tree(root)
        return self._tree

    def _set_completing(self, on: bool) -> None:
        """Open or closed, the footer says so: while the list is open, escape closes it (`check_action`).

        Textual asks `check_action` again only when told to; a list opened by a paste, with no key
        event after it, left `esc cancel` in the footer.
        """
        if self.w_prompt.completing != on:
            self.w_prompt.completing = on
            self.refresh_bindings()

    @on(Composer.CompleteKey)
    def _complete_key(self, event: Composer.CompleteKey) -> None:
        box = self.w_complete
        if event.key in ("up", "down") and self._completions:
            n = len(self._completions)
            box.highlighted = ((box.highlighted or 0) + (1 if event.key == "down" else -1)) % n
        elif event.key == "escape":
            self._completions = []
            box.display = False
            self._set_completing(False)
        elif event.key in ("tab", "enter") and self._completions:
            new, c_hint = self._completions[box.highlighted or 0]
            self.w_prompt.value = new  # a folder (`@dir/`) opens the list again, inside it
            hint = self.screen.query("#prompt-hint")
            if c_hint and hint:
                hint.first(Line).update(f"{clip(c_hint, 40)} · ⏎ send")

    # -- the agent's settings ----------------------------------------------------------------------
    def choice_commands(self) -> Iterable[SystemCommand]:
        """`Mode: Plan`, `Model: sonnet`, ... in the command palette, one per value the agent offers."""
        if self.choices is None:
            return
        silent = self.choices.silent
        for ch in self.choices.choices:
            for o in ch.options:
                if o.value == ch.current:
                    continue
                title = f"{inert(ch.name, keep_newlines=False)[:30]}: {inert(o.name, keep_newlines=False)[:40]}"
                warn = (
                    " · never asks: the breaker can only cancel" if ch.category == "mode" and o.value in silent else ""
                )
                help_text = (
                    clip(o.description, 80) + warn if o.description else f"switch the agent's {ch.category}{warn}"
                )
                yield SystemCommand(title, help_text, _picker(self, ch.id, o.value))

    def pick_choice(self, choice_id: str, value: str) -> None:
        """Switch a setting; a mode that never asks only after the person confirms it."""
        ch = next((c for c in self.choices.choices if c.id == choice_id), None) if self.choices else None
        if ch is None:
            return
        if ch.category == "mode" and self.choices is not None and value in self.choices.silent:
            from wrapper.items import SILENT_NOTICE

            name = next((o.name for o in ch.options if o.value == value), value)
            text = SILENT_NOTICE.format(mode=inert(name, keep_newlines=False)) + ". Switch anyway?"

            def done(yes: bool | None) -> None:
                if yes:
                    self.run_worker(self.source.set_choice(choice_id, value), group="choice")

            self.push_screen(ConfirmScreen(text), done)
            return
        self.run_worker(self.source.set_choice(choice_id, value), group="choice")


def _picker(app: FrontEnd, choice_id: str, value: str) -> Any:
    def pick() -> None:
        app.pick_choice(choice_id, value)

    return pick
