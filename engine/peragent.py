"""The per-agent state tables the rules keep: one get-or-create, written once.

Each rule object (the monologue, the cycles, the default rules) keeps its own state per agent (dsh
session) in a dict, made on the agent's first event.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")


def state_of(table: dict[str, T], agent: str, new: Callable[[], T]) -> T:
    """The agent's entry in `table`, made by `new()` and stored on its first use."""
    a = table.get(agent)
    if a is None:
        a = table[agent] = new()
    return a
