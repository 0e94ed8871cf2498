"""Fuzzing the three doors hostile bytes come through: the channel's lines, session files, config files.

Each door has one promise: the channel's parser raises only `BadMessage`, the readers only
`SourceError` (and what they return replays without an exception), the config loader only
`ConfigError`, whatever they are fed. The budget is fixed
(`EXAMPLES` per test) so CI stays fast; the counts are the figures the README quotes.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

import zstandard
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.errors import ConfigError
from wrapper.harness.dsh.lines import Lines, split_lines
from wrapper.harness.dsh.logs import iter_dsh_events
from wrapper.harness.dsh.protocol import BadMessage, decode_line
from wrapper.harness.dsh.replay import Replayer
from wrapper.records.sources import Loaded, SourceError
from wrapper.records.sources import load as load_source
from wrapper.settings import from_mapping
from wrapper.settings import load as load_config

EXAMPLES = 200
FUZZ = settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
TAGS = [
    "hello",
    "event",
    "ready",
    "status",
    "agent_created",
    "agent_error",
    "runner_error",
    "request_start",
    "request_error",
    "stream_aborted",
    "verdict_request",
    "approval_request",
    "result_request",
    "bye",
    "closed",
    "nope",
]

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**70), 2**70),
    st.floats(allow_nan=True),
    st.text(max_size=40),
)
json_values = st.recursive(
    scalars,
    lambda kids: st.lists(kids, max_size=4) | st.dictionaries(st.text(max_size=12), kids, max_size=4),
    max_leaves=30,
)
FIELDS = ["id", "sessionId", "callId", "name", "args", "event", "token", "text", "turn", "oversized", "purpose"]
messages = st.builds(
    lambda t, extra: {"t": t, **extra},
    st.sampled_from(TAGS),
    st.dictionaries(st.sampled_from(FIELDS), json_values, max_size=6),
)


def _deep(n: int, opener: str) -> str:
    return "[" * n + "1" + "]" * n if opener == "[" else '{"a":' * n + "1" + "}" * n


lines = st.one_of(
    messages.map(lambda m: json.dumps(m, default=str)),
    st.text(max_size=200),
    st.binary(max_size=200).map(lambda b: b.decode("utf-8", "replace")),
    st.tuples(st.integers(1, 3000), st.sampled_from(["[", "{"]), st.sampled_from(TAGS)).map(
        lambda x: f'{{"ts":1,"t":"{x[2]}","id":"i","args":{_deep(x[0], x[1])}}}'
    ),
)


@FUZZ
@given(lines)
def test_the_channel_parser_raises_only_bad_message(line: str) -> None:
    try:
        msg, obj = decode_line(line)
    except BadMessage as e:
        assert e.t is None or isinstance(e.t, str)
        return
    assert isinstance(obj, dict) and msg.t == obj["t"]


@FUZZ
@given(st.lists(st.binary(max_size=300), max_size=12), st.integers(16, 400))
def test_the_line_splitter_keeps_every_short_line_and_drops_long_ones(chunks: list[bytes], limit: int) -> None:
    state = Lines(None, limit)  # type: ignore[arg-type]
    got: list[str | None] = []
    for c in chunks:
        got.extend(split_lines(state, c))
    whole = b"".join(chunks)
    complete = whole.split(b"\n")[:-1] if whole.count(b"\n") else []
    expected = [
        ln.decode("utf-8", "replace") for ln in complete if len(ln) <= limit and ln.decode("utf-8", "replace").strip()
    ]
    assert [g for g in got if g is not None] == expected
    assert len(state._buf) <= limit


records = st.one_of(
    messages.map(lambda m: {"at": 1.0, "k": "in", **m}),
    st.dictionaries(st.sampled_from(["k", "t", "type", "seq", "data", "event", "at", "version"]), json_values),
    json_values,
)


def _file_bytes(recs: list[Any], head: str, cut: int, zstd: bool, junk: bytes) -> bytes:
    first = {
        "recording": {"k": "meta", "format": "breaker-tui-recording", "version": 2},
        "dsh": {"type": "session", "id": "s"},
        "feed": {"t": "hello", "plugin": "x"},
        "none": {},
    }[head]
    data = "\n".join(json.dumps(r, default=str) for r in [first, *recs]).encode() + junk
    if zstd:
        data = zstandard.ZstdCompressor().compress(data)
    return data[: max(0, len(data) - cut)]  # cut short, as a full disk or a killed writer leaves it


@FUZZ
@given(
    st.lists(records, max_size=12),
    st.sampled_from(["recording", "dsh", "feed", "none"]),
    st.integers(0, 40),
    st.booleans(),
    st.binary(max_size=60),
)
def test_the_readers_raise_only_source_error(recs: list[Any], head: str, cut: int, zstd: bool, junk: bytes) -> None:
    with tempfile.TemporaryDirectory() as d:
        f = Path(d) / "s.jsonl"
        f.write_bytes(_file_bytes(recs, head, cut, zstd, junk))
        try:
            loaded = load_source(f)
        except SourceError as e:
            assert str(f) in str(e)
            return
        assert isinstance(loaded, Loaded) and all(isinstance(r, dict) for r in loaded.records)
        list(iter_dsh_events(loaded))


@FUZZ
@given(st.lists(records, max_size=10), st.sampled_from(["recording", "dsh", "feed"]))
def test_whatever_the_readers_return_replays_without_an_exception(recs: list[Any], head: str) -> None:
    with tempfile.TemporaryDirectory() as d:
        f = Path(d) / "s.jsonl"
        f.write_bytes(_file_bytes(recs, head, 0, False, b""))
        try:
            loaded = load_source(f)
        except SourceError:
            return
        list(Replayer(loaded).steps())  # what `scan` and `replay` do with it


toml_values = st.recursive(
    st.one_of(st.booleans(), st.integers(-(2**63), 2**63 - 1), st.floats(), st.text(max_size=20)),
    lambda kids: st.lists(kids, max_size=3) | st.dictionaries(st.text(max_size=10), kids, max_size=3),
    max_leaves=12,
)
WRAPPER_KEYS = ["verdict_timeout_s", "approval_timeout_s", "max_line_bytes", "max_consecutive_denials", "stall_warn_s"]
REPEAT_KEYS = ["window", "limits", "ignore_args", "host_aliases", "exclude", "local_hosts", "ignoreArgs", "localHosts"]
config_maps = st.dictionaries(
    st.sampled_from(["repeat", "thinking", "wrapper", "ui", "other"]),
    st.one_of(
        toml_values,
        st.dictionaries(
            st.sampled_from(WRAPPER_KEYS + REPEAT_KEYS + ["theme", "novelty_streak", "noveltyStreak"]), toml_values
        ),
    ),
    max_size=4,
)


@FUZZ
@given(config_maps)
def test_the_config_loader_raises_only_config_error(data: dict[str, Any]) -> None:
    try:
        from_mapping(data, "fuzz.toml")
    except ConfigError as e:
        assert str(e).startswith("fuzz.toml")


@FUZZ
@given(st.one_of(st.binary(max_size=300), st.text(max_size=300).map(str.encode)))
def test_config_files_of_any_bytes_raise_only_config_error(raw: bytes) -> None:
    with tempfile.TemporaryDirectory() as d:
        f = Path(d) / "c.toml"
        f.write_bytes(raw)
        try:
            load_config(f)
        except ConfigError as e:
            assert str(f) in str(e)
