"""`scan` reads a long recording through two fast paths; each must give exactly what the general path gives.

Scanning a long session is dominated by its reasoning deltas, one record each: `records.sources` decodes a
line with the JSON scanner alone (not `json.loads`' Python steps), the dsh replayer hands a recorded
`event` message whose fields are already what the protocol accepts to the monitor without building its
pydantic model (`harness.dsh.replay.plain_event`), and the prose filter passes a delta with no backtick
whole. None may change a decision: here the decoder is held to `json.loads` on any bytes, `plain_event` to
`parse_inbound` on any record, the prose filter to its general path, and a whole scan and replay of a
generated recording (with odd but valid records among the deltas) to the same run with the first two off.
"""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.lenses.verbatim import ProseFilter
from wrapper.bench.recording import SID, write_recording
from wrapper.harness.dsh import protocol as P
from wrapper.harness.dsh import replay as dsh_replay
from wrapper.harness.registry import replayer_for
from wrapper.records import scan, sources
from wrapper.records.recorder import Recorder
from wrapper.records.sources import load
from wrapper.settings import Settings

# -- the decoder --------------------------------------------------------------------------------------


def _same(raw: bytes) -> None:
    fast, slow = sources._decode(raw), sources._decode_slowly(raw)
    # repr tells 1 from 1.0, -0.0 from 0.0 and keeps key order; NaN reads alike in both
    assert (fast is sources._NOT_JSON) == (slow is sources._NOT_JSON), raw
    assert repr(fast) == repr(slow), raw


EDGES = [
    b"{}",
    b"{",
    b'{"a": 1}  ',
    b'{"a": 1}\r',
    b'{"a": 1} x',
    b'{"a": 1}{"b": 2}',
    b'{"a": NaN, "b": -Infinity}',
    b'{"a": 123456789012345678901234567890, "b": 1e400, "c": -0.0}',
    b'{"a": "\\ud800"}',  # a lone surrogate, escaped
    b'{"a": "\xed\xa0\x80"}',  # ... and as raw bytes (json.loads takes them: surrogatepass)
    b'{"a": "\xff"}',  # invalid UTF-8: replaced
    b'{"a":1,"a":2}',
    b"\xef\xbb\xbf{}",  # a byte order mark
    '{"a": 1}'.encode("utf-16-le"),
    '{"a": 1}'.encode("utf-32-le"),
    b"{\x00\x00\x00",
    b"[1, 2]",
    b'"text"',
    b"  {}",
    b"{" * 5000 + b"}" * 5000,  # deeper than the parser goes
]


@pytest.mark.parametrize("raw", EDGES)
def test_the_decoder_reads_every_edge_as_json_loads_does(raw: bytes) -> None:
    _same(raw)


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4),
    max_leaves=12,
)


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(value=st.dictionaries(st.text(max_size=6), _JSON, max_size=5), ascii_=st.booleans(), tail=st.binary(max_size=3))
def test_the_decoder_reads_any_json_object_line_as_json_loads_does(value: Any, ascii_: bool, tail: bytes) -> None:
    raw = json.dumps(value, ensure_ascii=ascii_).encode("utf-8", "surrogatepass")
    _same(raw)
    _same(raw + tail)  # trailing bytes: whitespace is allowed, anything else makes the line not JSON
    _same(raw[: len(raw) // 2])


@settings(max_examples=300, deadline=None)
@given(raw=st.binary(max_size=40))
def test_the_decoder_reads_any_bytes_as_json_loads_does(raw: bytes) -> None:
    _same(b"{" + raw)
    _same(raw)


# -- the event fast path ----------------------------------------------------------------------------

_VALUES = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(1 << 70), max_value=1 << 70)
    | st.just(10**400)
    | st.floats()
    | st.text(max_size=4)
    | st.just("\ud800")
    | st.dictionaries(st.text(max_size=3), st.integers(), max_size=2)
    | st.lists(st.integers(), max_size=2)
)
_KEYS = st.sampled_from(["at", "k", "t", "sessionId", "event", "ts", "oversized", "id", "h", "x\ud800", "model_extra"])


@settings(max_examples=600, deadline=None)
@given(record=st.dictionaries(_KEYS, _VALUES, max_size=7), event=st.booleans(), sid=st.booleans())
def test_a_record_taken_as_a_plain_event_is_the_message_parse_inbound_gives(
    record: dict[str, Any], event: bool, sid: bool
) -> None:
    record = {**record, "t": "event", "k": "in"}
    if event:  # most generated records would fail on `event` alone
        record["event"] = {"type": "assistant/chunk", "data": {"chunk": {"type": "reasoning-delta", "text": "x"}}}
    if sid:
        record["sessionId"] = "s1"
    if not dsh_replay.plain_event(record):
        return
    body = {k: v for k, v in record.items() if k not in ("at", "k")}
    msg = P.parse_inbound(body)  # raises BadMessage if the fast path took a record the protocol refuses
    assert isinstance(msg, P.EventMsg)
    assert msg.sessionId == record.get("sessionId") and msg.event == record["event"]


def test_plain_event_takes_the_records_the_bridge_writes() -> None:
    delta: dict[str, Any] = {
        "type": "assistant/chunk",
        "seq": 13,
        "time": 1796013675851,
        "data": {"chunk": {"type": "text-delta"}},
    }
    real: dict[str, Any] = {
        "at": 1.5,
        "k": "in",
        "ts": 1796013675851,
        "t": "event",
        "sessionId": "session-8eb3",
        "event": delta,
    }
    assert dsh_replay.plain_event(real)
    assert dsh_replay.plain_event({**real, "ts": 1.5}) and dsh_replay.plain_event({"t": "event", "event": {}})
    odds: list[dict[str, Any]] = [{"ts": True}, {"ts": "1"}, {"ts": 10**400}, {"sessionId": 3}, {"event": []}]
    for odd in [*odds, {"oversized": 9}]:
        assert not dsh_replay.plain_event({**real, **odd}), odd


# -- the prose filter (every reasoning delta goes through it) ---------------------------------------


@settings(max_examples=300, deadline=None)
@given(deltas=st.lists(st.text(alphabet="`a -=|\n", max_size=8), max_size=12))
def test_the_prose_filter_keeps_what_its_general_path_keeps(deltas: list[str]) -> None:
    fast, general = ProseFilter(), ProseFilter()
    for d in deltas:
        assert fast.push(d) == general.split(d), deltas
        assert (fast.pending, fast.fenced) == (general.pending, general.fenced)


# -- a whole scan and replay -----------------------------------------------------------------------


def _odd_but_valid(rec: Recorder) -> None:
    """Records among the deltas that take the general path (or test its edges): all replayable."""

    def event(body: dict[str, Any]) -> None:
        rec.write("in", {"t": "event", "sessionId": SID, **body})

    chunk = {"type": "reasoning-delta", "index": 0, "text": "the same thought again "}
    data = {"turn": 1, "step": 1, "chunk": chunk}
    event({"ts": 1796013675851, "event": {"type": "assistant/chunk", "seq": 1, "data": data}})
    event({"ts": True, "event": {"type": "assistant/chunk", "data": data}})  # pydantic reads a bool ts as 1.0
    event({"extra": [1, 2], "event": {"type": "assistant/chunk", "data": data}})
    event({"event": {"type": "reasoning-chunks", "data": {"turn": 1, "step": 1, "texts": ["packed ", "rows "]}}})
    event({"event": {"type": "tool/result", "data": {"message": {"callId": "never-asked", "name": "bash"}}}})
    rec.write("in", {"t": "event", "event": {"type": "assistant/chunk", "data": data}})  # no sessionId: "main"
    for _ in range(12):  # a looping paragraph: lens A's exact repeat trips
        event({"event": {"type": "assistant/chunk", "data": {**data, "chunk": {**chunk, "text": "x" * 300}}}})


def _mixed_recording(tmp_path: Path) -> Path:
    """A generated long session with the odd records written among its first steps, chained and filed anew."""
    path = tmp_path / "long.jsonl"
    write_recording(path, events=6_000, calls=60)
    extra = Recorder(tmp_path / "extra.jsonl", {})
    _odd_but_valid(extra)
    extra.close()
    odd: list[dict[str, Any]] = [json.loads(x) for x in extra.path.read_bytes().splitlines()[1:-1]]
    lines = [json.loads(x) for x in path.read_bytes().splitlines()]
    meta = {k: v for k, v in lines[0].items() if k not in ("at", "k", "h", "format", "version", "rid")}
    rec = Recorder(tmp_path / "mixed.jsonl", meta)
    for r in lines[1:-1]:
        body = {k: v for k, v in r.items() if k not in ("at", "k", "h")}
        rec.write(r["k"], body)
        if body.get("t") == "request_start" and body.get("step") == 3:
            for o in odd:
                rec.write(o["k"], {k: v for k, v in o.items() if k not in ("at", "k", "h")})
    rec.close()
    return rec.path


def _scan(path: Path) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = scan.main(["--json", str(path)], replayer_for)
    return code, out.getvalue(), err.getvalue()


def _steps(path: Path) -> list[str]:
    return [f"{s.t:.4f} {s.item!r}" for s in replayer_for(load(path), Settings()).steps()]


def test_a_scan_and_a_replay_read_a_recording_as_the_general_path_does(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    recording = _mixed_recording(tmp_path)
    parsed: list[Any] = []
    parse = P.parse_inbound

    def counted(obj: Any) -> P.Inbound:
        parsed.append(obj)
        return parse(obj)

    monkeypatch.setattr(P, "parse_inbound", counted)
    fast, fast_steps, fast_parsed = _scan(recording), _steps(recording), len(parsed)
    monkeypatch.setattr(sources, "_decode", sources._decode_slowly)
    monkeypatch.setattr(dsh_replay, "plain_event", lambda r: False)
    parsed.clear()
    slow, slow_steps = _scan(recording), _steps(recording)
    assert fast_parsed * 10 < len(parsed), "the fast path was not taken"
    assert fast == slow
    assert fast_steps == slow_steps
    code, out, err = fast
    assert code == 1 and '"status": "verified"' in err
    findings = [json.loads(line) for line in out.splitlines()]
    assert any(f["kind"] == "trip" for f in findings), "the looping paragraph trips a lens"
    assert any(f["kind"] == "verdict" and f["verdict"] == "deny" for f in findings)
    assert "ALARM" in "".join(fast_steps)  # the unvetted tool/result event took the monitor's alarm path
    assert "packed " in "".join(fast_steps) and "'main'" in "".join(fast_steps)
