"""The loops corpus (`tests/data/loops/`) is what its generator makes from the real sessions.

Each of its traces is the opening of a real session of `tests/data/real/` and a stretch made from that
session's own calls (`tests/data/loops/make.py`). Re-making them must give the committed files byte for
byte, so the corpus cannot drift from its recipe (a hand edit, or a base session that changed).
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

LOOPS = Path(__file__).resolve().parents[3] / "data" / "loops"


def test_the_committed_corpus_is_what_make_writes(tmp_path: Path) -> None:
    spec = importlib.util.spec_from_file_location("loops_make", LOOPS / "make.py")
    assert spec is not None and spec.loader is not None
    make = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(make)
    make.main(tmp_path)
    made = {p.name: p.read_bytes() for p in tmp_path.glob("*.jsonl")}
    committed = {p.name: p.read_bytes() for p in LOOPS.glob("*.jsonl")}
    assert sorted(made) == sorted(committed)
    assert [n for n in made if made[n] != committed[n]] == []
    assert sum(n.startswith("loop-") for n in made) >= 50 and sum(n.startswith("legit-") for n in made) >= 50
