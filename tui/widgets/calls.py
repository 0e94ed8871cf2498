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
    """`✎ notes.txt ✔ +1 −1` / `$ make test ✘ exit 2 · 40 lines`: one call on one row of `width` cells.

    The title is what gives way: the status, the diff counts, the exit code and the line count after it are
    what a row is read for, so they stay whole and the title is clipped to the cells they leave.
    """
    mark = STATUS.get(c.status, "?")
    style = {"completed": p.ok, "failed": p.error}.get(c.status, p.warning)
    tail = Text(no_wrap=True, end="")
    tail.append(f" {mark}", style)
    for d in c.diffs[:3]:
        tail.append(f" +{d.added}", p.ok).append(f" −{d.removed}", p.error)
    if c.exit_code not in (None, 0):
        tail.append(f" exit {c.exit_code}", p.error)
    n = lines_of(c.output)
    if n:
        tail.append(f" · {n} line{'s' if n != 1 else ''}", p.muted)
    t = Text(no_wrap=True, overflow="ellipsis", end="")
    t.append(f"{ICONS.get(c.kind, '⚙')} ", f"bold {p.tool}")
    t.append(clip(c.title or c.call_id, max(10, width - 2 - tail.cell_len)))
    t.append_text(tail)
    return t


def openable(c: CallItem) -> bool:
    """Whether opening the call shows more than its row: a diff, or output."""
    return bool(c.diffs or c.output)


class StepsList(OptionList):
    """One option per call id (its id is the call id); `show` adds or replaces it."""

    DEFAULT_CSS = """
    StepsList { height: 1fr; min-height: 3; border: round $panel; border-title-color: $primary;
        text-wrap: nowrap; text-overflow: ellipsis; }
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
        self._width = 0  # the row width the rows were made for

    def show(self, c: CallItem) -> None:
        """A call changed: its row is replaced (or added at the end)."""
        new = c.call_id not in self.calls
        self.calls[c.call_id] = c
        prompt = call_summary(c, self.palette, self._row_width())
        if new:
            if len(self.calls) > MAX_CALLS:
                old, _ = self.calls.popitem(last=False)
                self.remove_option(old)
            self.add_option(Option(prompt, id=c.call_id))
            self.border_subtitle = f"{len(self.calls)} calls"
        else:
            self.replace_option_prompt(c.call_id, prompt)

    def _row_width(self) -> int:
        """The cells a row has: the list's inside (its border and scrollbar off), or a guess before it is laid out."""
        inside = self.scrollable_content_region.width
        return max(10, inside - 1 if inside else (self.app.size.width * 9) // 10 - 5)

    def on_resize(self) -> None:
        """Each row is made for the width it has: made again when that changes (a modal is laid out after `load`)."""
        width = self._row_width()
        if width == self._width:
            return
        self._width = width
        for c in self.calls.values():
            self.replace_option_prompt(c.call_id, call_summary(c, self.palette, width))

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
