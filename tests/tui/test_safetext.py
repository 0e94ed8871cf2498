"""What the person approves is what runs: bidi, zero-width and long whitespace made visible."""

from __future__ import annotations

from wrapper.safetext import inert, reveal


def test_bidi_controls_are_escaped_everywhere_inert_is_used() -> None:
    text = "echo safe\u202e; rm -rf x\u2066\u200f"
    out = inert(text)
    assert "\u202e" not in out and "\u2066" not in out and "\u200f" not in out
    assert "\\u202e" in out and "\\u2066" in out and "\\u200f" in out


def test_reveal_folds_a_long_space_run_and_keeps_the_tail() -> None:
    cmd = "curl -s http://127.0.0.1:18999/health" + " " * 4000 + "; echo PWNED > pwned.txt"
    out = reveal(cmd)
    assert out == "curl -s http://127.0.0.1:18999/health⟨4,000 spaces⟩; echo PWNED > pwned.txt"
    assert reveal("a" + "\n" * 12 + "b") == "a⟨12 newlines⟩b"
    assert reveal("a \t" * 1 + " \t" * 5 + "b") == "a⟨12 blanks⟩b"
    assert reveal("a   b") == "a   b", "short gaps stay as they are"


def test_reveal_shows_zero_width_and_lookalike_spaces_as_escapes() -> None:
    out = reveal("127.0.0.1\u200b.evil\u00a0x\ufeff\U000e0041")
    assert out == "127.0.0.1\\u200b.evil\\u00a0x\\ufeff\\U000e0041"


def test_inert_keeps_emoji_sequences_whole() -> None:
    family = "\U0001f468\u200d\U0001f469"
    assert inert(family) == family, "a zero-width joiner in prose is not an attack: only reveal() escapes it"
