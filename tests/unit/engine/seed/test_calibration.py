"""`breaker-tui calibrate` reproduces the seed's calibration tables, row for row."""

from __future__ import annotations

import re

import pytest

from engine.seed.report import lens_a_table, lens_b_blocks, lens_b_sweep
from tests.conftest import SHARED

SEED = SHARED / "design" / "seed-breakers.md"


def _seed_rows(marker: str) -> list[str]:
    text = SEED.read_text()
    block = text[text.index(marker) :]
    block = block[block.index("```") + 3 :]
    return [ln for ln in block[: block.index("```")].splitlines() if ln.strip() and not ln.startswith("case")]


def _norm(line: str) -> list[str]:
    return line.split()


@pytest.mark.skipif(not SEED.exists(), reason="../shared is not beside the checkout")
def test_lens_a_table_matches_the_seed() -> None:
    seed = [_norm(r) for r in _seed_rows("Measured at blockChars=128")]
    ours = [_norm(r) for r in lens_a_table().splitlines()[2:12]]
    assert ours == seed


@pytest.mark.skipif(not SEED.exists(), reason="../shared is not beside the checkout")
def test_lens_b_block_table_matches_the_seed() -> None:
    seed = [_norm(r) for r in _seed_rows("Per-block table: first block")]
    ours = [_norm(r) for r in lens_b_blocks().splitlines()[2:]]
    assert ours == seed


@pytest.mark.skipif(not SEED.exists(), reason="../shared is not beside the checkout")
def test_lens_b_sweep_matches_the_seed() -> None:
    text = SEED.read_text()
    sweep = text[text.index("| evidenceMin \\ streak") :].splitlines()[2:6]
    seed = [re.findall(r"(\d+)/(\d+)", row) for row in sweep]
    ours = [re.findall(r"(\d+)/(\d+)", row) for row in lens_b_sweep().splitlines()[2:6]]
    assert ours == seed
    assert "with the meaning gate 0 clean corpora trip; without it 3 trip" in lens_b_sweep()
