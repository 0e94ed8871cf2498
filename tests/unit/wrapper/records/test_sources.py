"""Readers: dsh's zstd session logs (concatenated frames), recordings with damaged lines, bad input."""

from __future__ import annotations

from pathlib import Path

import pytest
import zstandard

from tests.conftest import SHARED
from wrapper.harness.dsh.replay import Replayer
from wrapper.items import VerdictItem
from wrapper.records.sources import SourceError, load

RAW = SHARED / "samples" / "dsh" / "session.raw.jsonl"


@pytest.mark.skipif(not RAW.exists(), reason="../shared is not beside the checkout")
def test_zstd_log_of_several_frames_reads_like_the_plain_one(tmp_path: Path) -> None:
    data = RAW.read_bytes()
    half = data.index(b"\n", len(data) // 2) + 1
    c = zstandard.ZstdCompressor()
    z = tmp_path / "session.jsonl.zstd"
    z.write_bytes(c.compress(data[:half]) + c.compress(data[half:]))  # one frame per write batch, as dsh does
    plain, packed = load(RAW), load(z)
    assert packed.kind == plain.kind == "dsh"
    assert list(packed.records) == list(plain.records)
    verdicts = [s.item for s in Replayer(packed).steps() if isinstance(s.item, VerdictItem)]
    assert [v.verdict.kind for v in verdicts] == ["allow"]


def test_damaged_lines_are_counted_not_fatal(tmp_path: Path) -> None:
    f = tmp_path / "s.jsonl"
    f.write_text('{"type":"session","id":"s1"}\nnot json\n{"type":"turn/start","seq":1,"data":{"turn":1}}\n')
    loaded = load(f)
    assert loaded.kind == "dsh" and loaded.bad_lines == 1 and len(list(loaded.records)) == 1


@pytest.mark.parametrize("content", [b"", b"\n\n", b"[1,2]\n", b'{"hello": 1}\n', b"\x28\xb5\x2f\xfd garbage"])
def test_bad_input_is_a_clear_error(tmp_path: Path, content: bytes) -> None:
    f = tmp_path / "bad.jsonl"
    f.write_bytes(content)
    with pytest.raises(SourceError) as e:
        load(f)
    assert str(f) in str(e.value)


def test_missing_file_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(SourceError, match="cannot read it"):
        load(tmp_path / "nope.jsonl")
