"""The mock model: loops stream at a real model's pace, and the Responses API sends each reasoning piece once."""

from __future__ import annotations

import json
import urllib.request

from wrapper.mock.scenarios import LOOP_CHUNKS, SCENARIOS, Turn
from wrapper.mock.server import MockModel


def test_the_looping_scenarios_that_are_cancelled_stream_at_a_real_models_pace() -> None:
    turn = Turn(0, True, [], ["Check the adapter."])
    for name in ("reasoning-loop", "reasoning-loop-twice", "star-flood"):
        reply = SCENARIOS[name][0](turn)
        # a cancel takes an agent up to a second to deliver: the loop must still be streaming by then
        assert reply.delay_ms * len(reply.reasoning) / 1000 >= 4, name
        assert len(reply.reasoning) >= LOOP_CHUNKS


def test_the_responses_api_sends_each_reasoning_piece_once() -> None:
    mock = MockModel("normal").start()
    try:
        body = {
            "model": "mock-model",
            "stream": True,
            "input": [{"type": "message", "role": "user", "content": "hi"}],
            "tools": [{"type": "function", "name": "shell", "parameters": {"type": "object", "properties": {}}}],
        }
        req = urllib.request.Request(
            f"{mock.base_url}/v1/responses",
            json.dumps(body).encode(),
            {"Content-Type": "application/json"},
        )
        with urllib.request.urlopen(req, timeout=60) as resp:
            raw = resp.read().decode()
    finally:
        mock.stop()
    events = [json.loads(line[5:]) for line in raw.splitlines() if line.startswith("data:") and "{" in line]
    deltas = [e["delta"] for e in events if str(e.get("type", "")).startswith("response.reasoning") and "delta" in e]
    assert deltas, "no reasoning streamed"
    reasoning = SCENARIOS["normal"][0](Turn(0, True, [], ["hi"])).reasoning
    assert "".join(deltas) == "".join(reasoning), "a reasoning piece was sent more than once"
