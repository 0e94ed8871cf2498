"""What the ACP decisions return: a `Reaction` (show, answer, cancel, re-prompt, ask the person)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from wrapper.items import Item, Question

REJECT_KINDS = ("reject_once", "reject_always")


@dataclass
class Reaction:
    """What to do about one message: show `items`, answer with `reply`, maybe cancel and re-prompt."""

    items: list[Item] = field(default_factory=list)
    reply: dict[str, Any] | None = None  # the result for the agent's request
    cancel: bool = False
    followup: str | None = None  # one prompt to send once the cancelled turn has ended
    question: Question | None = None  # the person must answer (then call `answered`)
    alarm: str | None = None  # a call we refused ran anyway: stop the agent (fail closed) and say so


def selected(option_id: str | None) -> dict[str, Any]:
    """A permission answer: the chosen option, or `cancelled` when the agent offered none that fits."""
    if option_id is None:
        return {"outcome": {"outcome": "cancelled"}}
    return {"outcome": {"outcome": "selected", "optionId": option_id}}
