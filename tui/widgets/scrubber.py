"""The replay's position as a scrubber: the recording as a bar, what has played filled, a mark at each
intervention (a denial, an ask, a trip) and a knob at the position, so `70/94` becomes a place in the
session and the next denial is something you can see coming.
"""

from __future__ import annotations

PLAYED, AHEAD, MARK, KNOB = "━", "─", "◆", "●"


def scrubber(position: int, total: int, marks: list[int], width: int) -> str:
    """`width` cells for positions 1..`total`: played, to come, `MARK` where an intervention is, `KNOB` here."""
    if width <= 0 or total <= 0:
        return ""

    def cell_of(p: int) -> int:
        return min(width - 1, max(0, (p - 1) * width // total))

    cells = [PLAYED if i < cell_of(position) or position >= total else AHEAD for i in range(width)]
    for m in marks:
        if 1 <= m <= total:
            cells[cell_of(m)] = MARK
    if position > 0:
        cells[cell_of(position)] = KNOB
    return "".join(cells)
