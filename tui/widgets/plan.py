"""The agent's plan as a live checklist above the stream: hidden until the agent sends its first plan.

ACP's `plan` update carries the whole list each time, so the view is replaced whole. A long plan
is capped in height (it scrolls); the border says how many steps are done. Agent text is inert.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual.widgets import Static

from themes import Palette
from tui.widgets.stream import DEFAULT_PALETTE
from wrapper.safetext import inert

if TYPE_CHECKING:  # only for annotations: the first frame is drawn before these are imported
    from wrapper.items import PlanItem

MARKS = {"completed": "✔", "in_progress": "▶", "pending": "·"}


def plan_text(item: PlanItem, p: Palette = DEFAULT_PALETTE) -> Text:
    """One row per step: a mark (✔ done, ▶ in progress, · pending), the step, and `· high priority` when so.

    The priority is said in words, dimmed after the step: a bare `!` read as an error or an alarm.
    """
    out = Text(no_wrap=False, end="")
    for n, e in enumerate(item.entries):
        mark = MARKS.get(e.status, "?")
        style = {"completed": p.ok, "in_progress": f"bold {p.warning}"}.get(e.status, p.muted)
        out.append(f"{mark} ", style)
        out.append(inert(e.content, keep_newlines=False), f"strike {p.muted}" if e.status == "completed" else "")
        if e.priority == "high":
            out.append(" · high priority", p.muted)
        if n < len(item.entries) - 1:
            out.append("\n")
    return out


def plan_summary(item: PlanItem) -> str:
    """`plan 1/3 · ▶ the step in progress`: the plan in a few words (the border, a narrow screen)."""
    done = sum(e.status == "completed" for e in item.entries)
    now = next((e.content for e in item.entries if e.status == "in_progress"), "")
    return f"{done}/{len(item.entries)}" + (f" · ▶ {inert(now, keep_newlines=False)[:60]}" if now else "")


class PlanView(Static):
    """The checklist; `show` replaces it with the agent's newest plan."""

    DEFAULT_CSS = """
    PlanView { height: auto; max-height: 8; overflow-y: auto; border: round $panel; padding: 0 1;
               border-title-color: $primary; display: none; }
    """

    def __init__(self, **kw: Any) -> None:
        super().__init__("", **kw)
        self.border_title = "plan"
        self.palette = DEFAULT_PALETTE
        self.item: PlanItem | None = None

    def show(self, item: PlanItem) -> None:
        """The agent's newest plan (an empty one hides the view)."""
        self.item = item
        self.display = bool(item.entries)
        self.border_subtitle = plan_summary(item).split(" · ")[0]
        self.update(plan_text(item, self.palette))
