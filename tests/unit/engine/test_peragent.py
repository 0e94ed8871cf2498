"""The per-agent get-or-create: made once per agent, then the same object."""

from __future__ import annotations

from engine.peragent import state_of


def test_state_is_made_once_per_agent_and_kept() -> None:
    made: list[int] = []

    def new() -> list[int]:
        made.append(1)
        return []

    table: dict[str, list[int]] = {}
    first = state_of(table, "a", new)
    first.append(7)
    assert state_of(table, "a", new) is first
    assert state_of(table, "b", new) is not first
    assert len(made) == 2
    assert table == {"a": [7], "b": []}
