"""A fingerprint too long for the window panel is cut in its middle, to the cell, with a mark."""

from __future__ import annotations

from rich.cells import cell_len

from tui.widgets.window import fit


def test_a_long_fingerprint_keeps_its_kind_and_its_end() -> None:
    assert fit('exact:bash:{"command":"make test"}', 26) == 'exact:bash:{…:"make test"}'
    assert fit('read {"file_path":"src/a.py"}', 26).endswith('src/a.py"}'), "the file tells one read from another"
    assert fit("short", 26) == "short"


def test_wide_characters_are_counted_in_cells() -> None:
    for cells in range(3, 30):
        got = fit("日本語のファイル名" * 3, cells)
        assert cell_len(got) == cells and "…" in got, (cells, got)
