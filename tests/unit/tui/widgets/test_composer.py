"""The prompt's placeholder fits its box: a form whole or its leading phrases, never a phrase cut."""

from __future__ import annotations

import pytest

from tui.widgets.composer import fit_placeholder

FORMS = ("message the agent · F1 help", "message")


@pytest.mark.parametrize(
    ("width", "shown"),
    [
        (80, "message the agent · F1 help"),
        (27, "message the agent · F1 help"),
        (26, "message the agent"),
        (17, "message the agent"),
        (16, "message"),
        (7, "message"),
        (6, ""),
    ],
)
def test_the_first_form_or_phrases_that_fit(width: int, shown: str) -> None:
    assert fit_placeholder(FORMS, width) == shown


def test_when_nothing_fits_whole_the_last_form_is_cut_at_a_word() -> None:
    assert fit_placeholder(("send a message to the agent",), 14) == "send a…"
    assert fit_placeholder((), 10) == ""
