from hypothesis import given
from hypothesis import strategies as st

from wrapper.safetext import inert, markup_safe


def test_escape_sequences_are_removed_and_controls_shown() -> None:
    assert inert("\x1b]0;TITLE\x07\x1b[2Jok") == "ok"
    assert inert("a\x00b") == "a\\x00b"
    assert inert("red \x1b[31mX\x1b[0m") == "red X"
    assert inert("line1\nline2\tx", keep_newlines=False) == "line1 line2 x"
    assert inert("\ud800x") == "\ufffdx"


def test_markup_is_escaped() -> None:
    from rich.text import Text

    s = markup_safe("tr '[/]' '_' [bold]x[/bold]")
    assert Text.from_markup(s).plain == "tr '[/]' '_' [bold]x[/bold]"


@given(st.text())
def test_never_raises_and_never_leaves_escape(text: str) -> None:
    out = inert(text)
    assert "\x1b" not in out
    assert not any("\x80" <= c <= "\x9f" for c in out)
    out.encode("utf-8")
