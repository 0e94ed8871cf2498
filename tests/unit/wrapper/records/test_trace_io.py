"""The trace reader: every bad input is a TraceError naming the line; memory is bounded; FIFOs refused."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
import zstandard
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.trace import TraceError, TraceEvent, TraceMeta
from tests.conftest import SHARED
from wrapper.records.trace_io import first_object, is_trace_line, iter_lines, open_trace

WORK = SHARED / "detection" / "work"


def _write(tmp_path: Path, *lines: Any, name: str = "t.jsonl") -> Path:
    p = tmp_path / name
    p.write_text("".join((ln if isinstance(ln, str) else json.dumps(ln)) + "\n" for ln in lines))
    return p


def _read(path: Path, limit: int = 1 << 20) -> tuple[TraceMeta | None, list[TraceEvent]]:
    with open_trace(path, limit) as t:
        return t.meta, list(t.events)


def _error(path: Path, limit: int = 1 << 20) -> TraceError:
    with pytest.raises(TraceError) as e:
        _read(path, limit)
    return e.value


def test_reads_a_corpus_trace_with_its_meta_and_line_numbers() -> None:
    path = next(WORK.glob("work-000-*.jsonl"))
    meta, events = _read(path)
    assert meta is not None and meta.expected == "no_loop"
    assert events[0].index == 0 and events[0].line == 2, "line numbers are the file's, meta included"
    assert [e.index for e in events] == list(range(len(events)))
    assert all(e.kind == "call" for e in events)


def test_a_trace_without_meta_blank_lines_crlf_and_no_final_newline(tmp_path: Path) -> None:
    p = tmp_path / "t.jsonl"
    p.write_bytes(b'{"t":"user","text":"hi"}\r\n\n   \n{"t":"think","text":"x"}')
    meta, events = _read(p)
    assert meta is None
    assert [(e.kind, e.line, e.index) for e in events] == [("user", 1, 0), ("think", 4, 1)]


def test_invalid_json_names_the_line(tmp_path: Path) -> None:
    e = _error(_write(tmp_path, {"t": "user", "text": "a"}, "{not json"))
    assert e.line == 2 and "not valid JSON" in e.args[0]


@pytest.mark.parametrize(
    ("obj", "what"),
    [
        ({"t": "call", "tool": "bash", "exit": "1"}, "`exit` must be an integer"),
        ({"t": "call", "tool": 5}, "`tool`"),
        ({"t": "call", "tool": "bash", "output": ["x"]}, "`output` must be a string"),
        ({"t": "call", "tool": "bash", "error": "yes"}, "`error` must be true or false"),
        ({"t": "think", "text": 3}, "`text` must be a string"),
        ({"t": "shout"}, "`t` must be one of"),
        ([1, 2], "must be a JSON object"),
        ({"t": "call", "tool": "bash", "exit": float("nan")}, "NaN"),
    ],
)
def test_wrong_field_types_name_the_line_and_the_field(tmp_path: Path, obj: Any, what: str) -> None:
    e = _error(_write(tmp_path, {"t": "user", "text": "a"}, obj))
    assert e.line == 2 and what in e.args[0], e.args[0]


def test_meta_only_on_the_first_line(tmp_path: Path) -> None:
    e = _error(_write(tmp_path, {"t": "meta", "name": "a"}, {"t": "meta", "name": "b"}))
    assert e.line == 2 and "meta" in e.args[0]
    e = _error(_write(tmp_path, {"t": "user", "text": "a"}, {"t": "meta", "name": "b"}))
    assert e.line == 2


@pytest.mark.parametrize("content", [b"", b"\n\n  \n"])
def test_an_empty_file_is_an_error(tmp_path: Path, content: bytes) -> None:
    p = tmp_path / "e.jsonl"
    p.write_bytes(content)
    assert "empty" in _error(p).args[0]
    assert first_object(p) is None


def test_a_line_over_the_limit_is_refused_without_reading_it_whole(tmp_path: Path) -> None:
    p = _write(tmp_path, {"t": "user", "text": "a"}, {"t": "think", "text": "x" * 5000})
    e = _error(p, limit=1000)
    assert e.line == 2 and "longer than 1,000 bytes" in e.args[0] and "max_line_bytes" in e.args[0]
    # with no newline at all the reader stops after about one chunk past the limit
    q = tmp_path / "oneline.jsonl"
    q.write_bytes(b"a" * (1 << 20))
    with q.open("rb") as fh:
        lines = iter_lines(fh, 1000)
        with pytest.raises(TraceError):
            next(lines)
        assert fh.tell() <= 1 << 17


@pytest.mark.timeout(10)
def test_a_fifo_is_refused_without_hanging(tmp_path: Path) -> None:
    fifo = tmp_path / "f.jsonl"
    os.mkfifo(fifo)
    assert "FIFO" in _error(fifo).args[0]
    assert "directory" in _error(tmp_path).args[0]
    assert "no such file" in _error(tmp_path / "missing.jsonl").args[0]


def test_not_utf8_and_too_deep_are_errors(tmp_path: Path) -> None:
    p = tmp_path / "b.jsonl"
    p.write_bytes(b'{"t":"user","text":"\xff"}\n')
    assert "UTF-8" in _error(p).args[0]
    deep = _write(tmp_path, '{"t":"call","tool":"x","args":' + "[" * 100_000 + "]" * 100_000 + "}")
    assert _error(deep).line == 1


def test_zstd_traces_are_read_as_a_stream(tmp_path: Path) -> None:
    raw = b"".join(json.dumps({"t": "think", "text": f"step {i}"}).encode() + b"\n" for i in range(50))
    p = tmp_path / "t.jsonl.zst"
    p.write_bytes(zstandard.ZstdCompressor().compress(raw))
    _, events = _read(p)
    assert len(events) == 50 and events[-1].text == "step 49"
    p.write_bytes(zstandard.ZstdCompressor().compress(raw)[:40])
    assert isinstance(_error(p), TraceError)


def test_events_are_produced_lazily_before_a_later_bad_line(tmp_path: Path) -> None:
    p = _write(tmp_path, {"t": "user", "text": "a"}, {"t": "think", "text": "b"}, "{broken")
    seen: list[str] = []
    with pytest.raises(TraceError), open_trace(p) as t:
        for e in t.events:
            seen.append(e.text)
    assert seen == ["a", "b"]


def test_format_sniffing() -> None:
    assert is_trace_line({"t": "call", "tool": "bash"})
    assert is_trace_line({"t": "meta"})
    assert not is_trace_line({"k": "meta", "format": "breaker-tui-recording"})
    assert not is_trace_line({"type": "session"})
    assert not is_trace_line({"t": "hello", "plugin": "x"})


_json_leaf = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20)
_json = st.recursive(
    _json_leaf, lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
)
_fields = st.fixed_dictionaries(
    {"t": st.sampled_from(["meta", "user", "request", "think", "answer", "call", "x", 1, None])},
    optional={
        "tool": _json,
        "args": _json,
        "text": _json,
        "output": _json,
        "exit": _json,
        "error": _json,
        "agent": _json,
        "config": _json,
        "judge_from": _json,
        "expected": _json,
    },
)
_line = st.one_of(
    _fields.map(json.dumps),
    _json.map(json.dumps),
    st.binary(max_size=60).map(lambda b: b.decode("latin-1")),
)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(lines=st.lists(_line, max_size=8), raw=st.binary(max_size=200), use_raw=st.booleans())
def test_fuzz_the_reader_raises_only_trace_errors(tmp_path: Path, lines: list[str], raw: bytes, use_raw: bool) -> None:
    p = tmp_path / "fuzz.jsonl"
    p.write_bytes(raw if use_raw else "\n".join(lines).encode("utf-8", "surrogatepass"))
    try:
        with open_trace(p, 4096) as t:
            for e in t.events:
                assert isinstance(e, TraceEvent)
    except TraceError as e:
        assert e.args and isinstance(e.args[0], str) and e.args[0]


@pytest.mark.slow
def test_reading_keeps_memory_flat(tmp_path: Path) -> None:
    """Reading 20,000 events holds no more than reading 2,000: events are produced one at a time."""
    import tracemalloc

    def peak(n: int) -> int:
        p = tmp_path / f"t{n}.jsonl"
        event = {"t": "call", "tool": "bash", "args": {"command": "ls -la src/"}, "output": "x" * 200, "exit": 0}
        p.write_text((json.dumps(event) + "\n") * n)
        tracemalloc.start()
        try:
            with open_trace(p) as t:
                for _ in t.events:
                    pass
            return tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()

    small, big = peak(2000), peak(20000)
    assert big < small * 1.5 + 65536, (small, big)
