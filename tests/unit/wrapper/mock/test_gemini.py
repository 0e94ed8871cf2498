"""The mock's Gemini API answers Gemini CLI in the shapes a real Gemini model does."""

from __future__ import annotations

from wrapper.mock.gemini import THOUGHT_SUBJECT, sample, thoughts
from wrapper.mock.scenarios import LOOP_SENTENCE


def test_a_side_call_gets_a_score_its_checker_accepts() -> None:
    """Gemini CLI's router says "from 1-100" only in its description and rejects 0 (a ZodError on stderr)."""
    schema = {
        "type": "OBJECT",
        "properties": {"complexity_reasoning": {"type": "STRING"}, "complexity_score": {"type": "INTEGER"}},
    }
    assert sample(schema) == {"complexity_reasoning": "mock", "complexity_score": 1}
    assert sample({"type": "number", "minimum": 5}) == 5


def test_thoughts_are_whole_sentences_under_a_subject() -> None:
    """Gemini CLI sends ACP `**subject**` and the trimmed text of each thought part: a 40-character piece
    cut mid-word showed as `****` and lost its spaces.
    """
    got = thoughts(["Let me look at notes.txt once more (look", " 4)."])
    assert got == [f"**{THOUGHT_SUBJECT}**\n\nLet me look at notes.txt once more (look 4)."]


def test_a_looping_stream_stays_a_stream_of_thoughts() -> None:
    pieces = [LOOP_SENTENCE.format(i=i) for i in range(50)]
    assert len(thoughts(pieces)) == 50
    flood = ["*** " * 10] * 40  # no sentence ends: cut by length, so the stream still arrives in pieces
    assert len(thoughts(flood)) >= 8
