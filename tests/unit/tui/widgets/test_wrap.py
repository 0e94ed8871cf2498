"""A line that grows, wrapped incrementally, has the rows of the same text wrapped at once."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from rich._wrap import divide_line
from rich.console import Console
from rich.text import Text
from textual.strip import Strip

from tui.widgets.wrap import GrowingLine, _wrap_plain, breaks, wrap_rows

CONSOLE = Console(width=200, color_system="truecolor", file=open("/dev/null", "w"))  # noqa: SIM115
pieces = st.lists(
    st.text(alphabet=st.sampled_from("ab cd  efghij\u00e9\u4e2d\u2502\u2026-"), min_size=1, max_size=60),
    min_size=1,
    max_size=30,
)


def _rows(strips: list[Strip]) -> list[tuple[str, list[Any]]]:
    return [(s.text, [seg.style for seg in s]) for s in strips]


@settings(max_examples=300, deadline=None)
@given(pieces, st.integers(min_value=1, max_value=40), st.sampled_from(["", "italic #d7af5f"]))
def test_growing_line_wraps_like_the_whole_text(parts: list[str], width: int, style: str) -> None:
    line = GrowingLine()
    text = "\u2502 "
    for part in parts:
        text += part
        first = line.update(Text(text, style), CONSOLE, width)
        whole = wrap_rows(Text(text, style), CONSOLE, width)
        assert _rows(line.rows) == _rows(whole), f"{text!r} at {width}"
        assert 0 <= first < len(whole)


def test_only_the_last_row_is_wrapped_again_when_text_is_appended() -> None:
    line = GrowingLine()
    assert line.update(Text("│ " + "word " * 40), CONSOLE, 20) == 0
    rows = len(line.rows)
    assert rows > 5
    assert line.update(Text("│ " + "word " * 41), CONSOLE, 20) == rows - 1, "the rows before the last are kept"
    assert line.update(Text("│ other"), CONSOLE, 20) == 0, "not a longer version: wrapped whole"
    assert line.update(Text("│ other", "bold"), CONSOLE, 20) == 0, "another style: wrapped whole"
    assert line.update(Text("│ other and more", "bold"), CONSOLE, 30) == 0, "another width: wrapped whole"
    assert line.update(None, CONSOLE, 30) == 0 and line.rows == []


ascii_lines = st.text(alphabet=st.sampled_from("ab cd  efg-.,;:!?'\"()[]{}<>~*"), min_size=1, max_size=300)


@settings(max_examples=500, deadline=None)
@given(ascii_lines, st.integers(min_value=1, max_value=90), st.sampled_from(["", "italic #d7af5f", "bold"]))
def test_the_plain_ascii_wrap_gives_rich_s_own_rows(plain: str, width: int, style: str) -> None:
    text = Text(plain, style)
    fast = _wrap_plain(text, CONSOLE, width)
    assert fast is not None, "printable ASCII in one style takes the fast path"
    options = CONSOLE.options.update(width=width, no_wrap=False, overflow="fold", height=None)
    slow = [Strip(line) for line in CONSOLE.render_lines(Text(plain, style), options, pad=False)]
    assert _rows(fast) == _rows(slow), f"{plain!r} at {width}"
    assert [s.cell_length for s in fast] == [s.cell_length for s in slow]


def test_other_lines_are_left_to_rich() -> None:
    assert _wrap_plain(Text("tab\there"), CONSOLE, 20) is None
    assert _wrap_plain(Text("caf\u00e9"), CONSOLE, 20) is None, "not ASCII: cells may differ from characters"
    assert _wrap_plain(Text.assemble(("a", "bold"), " b"), CONSOLE, 20) is None, "more than one style"
    assert _wrap_plain(Text(""), CONSOLE, 20) is None


@settings(max_examples=1000, deadline=None)
@given(ascii_lines, st.integers(min_value=1, max_value=90))
def test_the_ascii_breaks_are_rich_s_own(plain: str, width: int) -> None:
    assert breaks(plain, width) == divide_line(plain, width, fold=True), f"{plain!r} at {width}"


def test_breaks_fall_back_to_rich_where_a_character_is_not_one_cell() -> None:
    for plain in ("日本語のテキスト " * 5, "tab\there and there", "caf\u00e9 " * 9):
        assert breaks(plain, 12) == divide_line(plain, 12, fold=True)
