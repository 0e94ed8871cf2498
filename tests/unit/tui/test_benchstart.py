"""The start-up benchmark's reading of a terminal: when the first word, the marker and the first frame came."""

from __future__ import annotations

from tui.benchstart import ALT_SCREEN, FIRST_SCREEN, Watch, report

FRAME = ALT_SCREEN + b"\x1b[1;1H" + b"\x1b[7m" + b"x" * 120 + b"\x1b[0m"


def test_a_frame_is_a_frame_s_worth_of_text_on_the_alternate_screen() -> None:
    w = Watch(None)
    w.take(b"breaker-tui: starting sh\r\n" + b"y" * 500, 0.1)  # text, but not on the alternate screen
    assert w.word == 0.1 and not w.frame and not w.done()
    w.take(ALT_SCREEN + b"\x1b[2J\x1b[H", 0.2)  # the screen taken, nothing drawn yet
    assert not w.done()
    w.take(FRAME[len(ALT_SCREEN) :], 0.5)
    assert w.frame == 0.5 and w.done()


def test_with_a_marker_the_screen_is_up_once_the_marker_is_drawn() -> None:
    w = Watch(FIRST_SCREEN)
    w.take(FRAME, 0.4)
    assert not w.done()
    w.take(b"\x1b[24;1H\x1b[1m^q\x1b[0m quit", 0.6)  # the marker split by escapes still counts
    assert w.done() and (w.frame, w.marked) == (0.4, 0.6)


def test_the_report_gives_ratios_to_the_floor_and_to_toad() -> None:
    figures = {
        "load_1m_before": 1.0,
        "load_1m_after": 1.5,
        "python_pass_s": 0.02,
        "version_s": 0.1,
        "help_s": 0.05,
        "first_word_s": 0.05,
        "first_screen_s": 0.8,
        "first_frame_s": 0.8,
        "toad_first_frame_s": 1.6,
    }
    text = "\n".join(report(figures, "80x24"))
    assert "40.0x python -c pass" in text and "80.0x python -c pass" in text
    assert "breaker-tui / Toad, first frame: 0.50x" in text and "load     average 1.00 before" in text
