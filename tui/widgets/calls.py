"""The tool calls of the session as a list of steps, one row per call id, updated in place.

ACP agents report a call in pieces (`tool_call`, then `tool_call_update`s, sometimes the permission
request in between); `CallItem` carries the whole record each time, so a row is replaced rather
than a line appended, and a long turn reads as a list of steps. Enter or a click on a row opens the
call (`tui.screens.call`): its unified diff and its whole output. The list is bounded.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual.message import Message
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from themes import Palette
from tui.widgets.stream import DEFAULT_PALETTE, clip

if TYPE_CHECKING:  # only for annotations: the first frame is drawn before these are imported
    from wrapper.items import CallItem

MAX_CALLS = 500
ICONS = {"execute": "$", "edit": "✎", "delete": "✗", "move": "→", "read": "▤", "search": "⌕", "fetch": "⇣"}
STATUS = {"pending": "⌛", "in_progress": "…", "completed": "✔", "failed": "✘"}


def is_shell(tool: str) -> bool:
    """Whether a tool name is a shell's, as the engine reads it (its title is then the command alone)."""
    from engine.tools.progress import SHELL_TOOLS  # imported here: the first frame is drawn before the engine

    return tool in SHELL_TOOLS


def kind_of_tool(tool: str, args: Any) -> str:
    """The ACP kind a call reads as (its icon in the steps): execute and edit as the engine decides them (a
    shell tool; a call that changes the workspace), then read, search or fetch by the tool's name, else other.
    """
    from engine.tools.progress import mutates  # imported here, as above

    if is_shell(tool):
        return "execute"
    if mutates(tool, args):
        return "edit"
    name = tool.lower()
    return next((kind for kind, words in _KIND_WORDS if any(w in name for w in words)), "other")


_KIND_WORDS = (
    ("read", ("read", "view", "cat", "open")),
    ("search", ("search", "grep", "glob", "find", "list", "ls")),
    ("fetch", ("fetch", "http", "url", "web")),
)


def lines_of(text: str) -> int:
    """How many lines `text` has (a final newline does not start one)."""
    return 0 if not text else text.count("\n") + (not text.endswith("\n"))


def call_summary(c: CallItem, p: Palette = DEFAULT_PALETTE, width: int = 60) -> Text:
    """`✎ notes.txt ✔ +1 −1` / `$ make test ✘ exit 2 · 40 lines`: one call on one row."""
    mark = STATUS.get(c.status, "?")
    style = {"completed": p.ok, "failed": p.error}.get(c.status, p.warning)
    t = Text(no_wrap=True, overflow="ellipsis", end="")
    t.append(f"{ICONS.get(c.kind, '⚙')} ", f"bold {p.tool}")
    t.append(clip(c.title or c.call_id, max(10, width)))
    t.append(f" {mark}", style)
    for d in c.diffs[:3]:
        t.append(f" +{d.added}", p.ok).append(f" −{d.removed}", p.error)
    if c.exit_code not in (None, 0):
        t.append(f" exit {c.exit_code}", p.error)
    n = lines_of(c.output)
    if n:
        t.append(f" · {n} line{'s' if n != 1 else ''}", p.muted)
    return t


def openable(c: CallItem) -> bool:
    """Whether opening the call shows more than its row: a diff, or output."""
    return bool(c.diffs or c.output)


class StepsList(OptionList):
    """One option per call id (its id is the call id); `show` adds or replaces it."""

    DEFAULT_CSS = """
    StepsList { height: 1fr; min-height: 3; border: round $panel; border-title-color: $primary; }
    """

    class Open(Message):
        """Open this call (enter or a click on its row)."""

        def __init__(self, call_id: str) -> None:
            super().__init__()
            self.call_id = call_id

    def __init__(self, **kw: Any) -> None:
        super().__init__(**kw)
        self.border_title = "steps"
        self.palette = DEFAULT_PALETTE
        self.calls: OrderedDict[str, CallItem] = OrderedDict()

    def show(self, c: CallItem) -> None:
        """A call changed: its row is replaced (or added at the end)."""
        new = c.call_id not in self.calls
        self.calls[c.call_id] = c
        prompt = call_summary(c, self.palette, max(10, (self.size.width or 60) - 22))
        if new:
            if len(self.calls) > MAX_CALLS:
                old, _ = self.calls.popitem(last=False)
                self.remove_option(old)
            self.add_option(Option(prompt, id=c.call_id))
            self.border_subtitle = f"{len(self.calls)} calls"
        else:
            self.replace_option_prompt(c.call_id, prompt)

    def load(self, calls: OrderedDict[str, CallItem]) -> None:
        """Show every call of `calls` (a modal copy of the panel)."""
        for c in calls.values():
            self.show(c)
        if calls:
            self.highlighted = len(calls) - 1

    def clear_calls(self) -> None:
        """Forget every call (a replay going back)."""
        self.calls.clear()
        self.clear_options()
        self.border_subtitle = ""

    def _on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        if event.option.id is not None:
            self.post_message(self.Open(event.option.id))
