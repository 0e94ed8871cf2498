"""The seed comparison bench measures like with like: the rebuilt seed lens trips as the engine does."""

from __future__ import annotations

import json
from pathlib import Path

from wrapper.bench.seed import _engine_floods, _node_json, flood_samples, quoted_url_calls


def test_the_rebuilt_seed_lens_and_the_engine_trip_the_same_rules_on_the_flood_corpus(tmp_path: Path) -> None:
    samples = flood_samples(1)
    path = tmp_path / "floods.json"
    path.write_text(json.dumps(samples))
    js = _node_json("seed_degeneracy.mjs", str(path), "1")
    _, rules = _engine_floods(samples, 0)
    assert rules == js["rules"]
    assert len(rules) == 11 and all(r in ("emoji-flood", "symbol-flood", "degenerate-output") for r in rules)


def test_quoted_url_calls_are_all_distinct_and_quoted() -> None:
    calls = quoted_url_calls(50)
    commands = [args["command"] for _, args in calls]
    assert len(set(commands)) == 50
    assert all("'" in c and '"' in c and "https://" in c for c in commands)
