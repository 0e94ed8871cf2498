"""The watch's session column tells apart the sessions it lists, whatever the agent's id scheme."""

from __future__ import annotations

import uuid

from tui.watch import SESSION_CELLS, session_label


def _uuid7(millis: int, tail: int) -> str:
    """A version-7 UUID as Codex makes them: 48 bits of milliseconds first, then random bits."""
    value = (millis << 80) | (0x7 << 76) | (0b10 << 62) | tail
    return str(uuid.UUID(int=value))


def test_two_codex_sessions_started_a_second_apart_read_apart() -> None:
    now = 1_796_000_000_000
    a, b = _uuid7(now, 0x1234_5678_9ABC), _uuid7(now + 1_000, 0x0FED_CBA9_8765)
    assert a[:8] == b[:8]  # what a head cut would show for both
    assert session_label(a) != session_label(b)
    assert len(session_label(a)) == SESSION_CELLS


def test_random_uuids_and_other_ids_keep_their_start() -> None:
    claude = "4c513ed3-6b9a-4f0d-a0c5-58f41e2ddd9b"
    assert session_label(claude) == claude[: SESSION_CELLS - 1] + "…"
    assert session_label("short") == "short"
