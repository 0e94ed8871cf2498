"""The bridge channel's messages: every inbound kind parses, bad lines are refused with a reason."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from wrapper.harness.dsh import protocol as P

INBOUND: list[tuple[dict[str, Any], type]] = [
    ({"t": "hello", "token": "k", "pid": 7, "runner": True}, P.Hello),
    ({"t": "event", "sessionId": "s", "event": {"type": "turn/start", "data": {}}}, P.EventMsg),
    ({"t": "ready", "sessionId": "s", "model": "m", "resumed": True}, P.Ready),
    ({"t": "status", "sessionId": "s", "status": "idle"}, P.StatusMsg),
    ({"t": "agent_created", "sessionId": "s", "depth": 1}, P.AgentCreated),
    ({"t": "agent_error", "message": "boom"}, P.AgentError),
    ({"t": "runner_error", "message": "no agent"}, P.RunnerError),
    ({"t": "request_start", "sessionId": "s", "turn": 1, "step": 2, "purpose": "title"}, P.RequestStart),
    ({"t": "request_error", "sessionId": "s", "ours": True}, P.RequestErrorMsg),
    ({"t": "stream_aborted", "sessionId": "s"}, P.StreamAborted),
    (
        {"t": "verdict_request", "id": "1", "sessionId": "s", "callId": "c", "name": "bash", "args": {}},
        P.VerdictRequest,
    ),
    ({"t": "approval_request", "id": "2", "toolName": "bash", "reason": "r"}, P.ApprovalRequest),
    ({"t": "result_request", "id": "3", "name": "bash", "text": "out", "isError": True}, P.ResultRequest),
    ({"t": "bye"}, P.Bye),
]


@pytest.mark.parametrize(("obj", "kind"), INBOUND, ids=[o["t"] for o, _ in INBOUND])
def test_every_inbound_kind_parses_to_its_type(obj: dict[str, Any], kind: type) -> None:
    msg = P.parse_inbound(obj)
    assert type(msg) is kind
    assert msg.t == obj["t"]


def test_unknown_fields_are_kept_and_defaults_filled() -> None:
    msg = P.parse_inbound({"t": "verdict_request", "id": "9", "extra": 1})
    assert isinstance(msg, P.VerdictRequest)
    assert (msg.name, msg.args, msg.parent, msg.sessionId) == ("", None, False, None)
    assert msg.model_extra == {"extra": 1}


@pytest.mark.parametrize(
    ("obj", "reason"),
    [
        ([1, 2], "not an object with a `t` tag"),
        ("hello", "not an object with a `t` tag"),
        ({"token": "k"}, "not an object with a `t` tag"),
        ({"t": "nope"}, "nope"),
        ({"t": "verdict_request"}, "verdict_request.id Field required"),  # the missing field is named
        ({"t": "verdict_request", "id": 5}, "verdict_request.id Input should be a valid string"),
        ({"t": "request_start"}, "request_start.sessionId Field required"),
    ],
)
def test_bad_lines_are_refused_with_a_short_reason(obj: Any, reason: str) -> None:
    with pytest.raises(P.BadMessage) as e:
        P.parse_inbound(obj)
    assert reason in str(e.value)
    assert len(str(e.value)) < 400


def test_the_reason_never_quotes_a_long_tag() -> None:
    with pytest.raises(P.BadMessage) as e:
        P.parse_inbound({"t": "x" * 10_000})
    assert len(str(e.value)) < 200


def test_outbound_messages_serialise_with_their_tag_and_refuse_unknown_fields() -> None:
    assert json.loads(P.Verdict(id="1", kind="deny", message="no").model_dump_json()) == {
        "t": "verdict",
        "id": "1",
        "kind": "deny",
        "message": "no",
    }
    assert P.Abort(sessionId="s", retry=True, thinkingOff=True, message="m").model_dump()["t"] == "abort"
    assert P.Quit().model_dump() == {"t": "quit", "code": 0}
    with pytest.raises(ValueError, match="extra"):
        P.Prompt(text="x", extra=1)  # type: ignore[call-arg]
    with pytest.raises(ValueError, match="kind"):
        P.Verdict(id="1", kind="maybe")


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=10),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=10), inner, max_size=4),
    max_leaves=15,
)
TAGS = st.sampled_from([o["t"] for o, _ in INBOUND] + ["", "verdict", "x"])


@settings(max_examples=150, deadline=None)
@given(st.one_of(JSON, st.builds(lambda t, d: {**d, "t": t}, TAGS, st.dictionaries(st.text(max_size=12), JSON))))
def test_any_decoded_line_parses_or_is_a_bad_message(obj: Any) -> None:
    try:
        P.parse_inbound(obj)
    except P.BadMessage as e:
        assert str(e)
