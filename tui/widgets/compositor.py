"""Textual's compositor, drawing a frame from only the widgets the frame's changes touch.

A partial frame (the streamed log scrolled, a line repainted) is drawn by Textual from every widget
whose *clip* meets the changed area: for a widget placed directly on the screen or in a full-width
container, that is the screen, so the title row, the footer, the status line, the prompt and the
side column were rendered and cut into pieces every frame, only for their pieces to be thrown away
(a frame writes only the changed spans). On the 2-core machine that was two thirds of the cost of
a frame of a fast stream, and the log's four ancestors, drawn behind it, as much again. Here a
widget is rendered for a partial frame only when its visible region (its region within its clip)
meets the changed area, and nothing behind a widget that covers all of it.

The frame written is the same: a frame writes the changed spans, all inside that area; every piece
of a row (between two widget edges) meeting a span is covered by the same widgets along its length,
so the front one meets the area too and is drawn, as Textual would; a widget covering the whole
area is in front of everything behind it there. A test holds the frames equal to Textual's.
"""

from __future__ import annotations

from collections.abc import Iterable

from textual._compositor import Compositor
from textual.geometry import Region
from textual.strip import Strip


class FrameCompositor(Compositor):
    """`Compositor`, with a partial frame drawn from the widgets whose visible region meets it."""

    def _get_renders(self, crop: Region | None = None) -> Iterable[tuple[Region, Region, list[Strip]]]:
        """As Textual's (front to back), but a widget outside `crop` (though its clip meets it) is not
        rendered, nor anything behind a widget that covers all of `crop` (the log's ancestors, when
        only the log changed): a widget paints every cell of its region, and the front one wins.
        """
        if not crop:
            yield from super()._get_renders(crop)
            return
        overlaps = crop.overlaps
        for widget, (region, clip) in self.visible_widgets.items():
            visible = region if clip.contains_region(region) else region.intersection(clip)
            if not (visible.width and visible.height and overlaps(visible)):
                continue
            yield (
                region,
                clip,
                widget.render_lines(Region(visible.x - region.x, visible.y - region.y, visible.width, visible.height)),
            )
            if visible.contains_region(crop):
                return
