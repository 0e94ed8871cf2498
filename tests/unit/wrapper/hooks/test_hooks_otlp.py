"""`serve --otlp`: a real server sends a span per hooked tool call to a local OTLP/HTTP receiver."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path
from typing import Any, ClassVar

import pytest

from wrapper.hooks import install as I
from wrapper.hooks import otlp as O

EXE = str(Path(sys.executable).parent / "breaker-tui")


class Receiver(BaseHTTPRequestHandler):
    """A collector that keeps every body posted to /v1/traces."""

    bodies: ClassVar[list[bytes]] = []

    def do_POST(self) -> None:
        n = int(self.headers.get("Content-Length") or 0)
        if self.path == "/v1/traces":
            type(self).bodies.append(self.rfile.read(n))
        self.send_response(200)
        self.send_header("Content-Type", "application/x-protobuf")
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *_: Any) -> None:
        pass


@pytest.fixture
def collector() -> Iterator[tuple[str, list[bytes]]]:
    pytest.importorskip("opentelemetry.proto", reason="the [otlp] extra is not installed")
    bodies: list[bytes] = []
    handler = type("R", (Receiver,), {"bodies": bodies})
    srv = HTTPServer(("127.0.0.1", 0), handler)
    t = threading.Thread(target=srv.serve_forever, daemon=True)
    t.start()
    try:
        yield f"http://127.0.0.1:{srv.server_address[1]}/v1/traces", bodies
    finally:
        srv.shutdown()
        srv.server_close()


def spans(bodies: list[bytes]) -> list[tuple[str, dict[str, str], int]]:
    from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

    out = []
    for body in bodies:
        req = ExportTraceServiceRequest()
        req.ParseFromString(body)
        for rs in req.resource_spans:
            for ss in rs.scope_spans:
                for sp in ss.spans:
                    attrs = {a.key: a.value.string_value for a in sp.attributes}
                    out.append((sp.name, attrs, sp.status.code))
    return out


@pytest.mark.slow
def test_serve_sends_a_genai_span_per_tool_call(collector: tuple[str, list[bytes]], tmp_path: Path) -> None:
    url, bodies = collector
    run = tempfile.mkdtemp(prefix="bko-", dir="/tmp")
    (tmp_path / "none.toml").write_text("")  # a named config must exist: empty is all defaults
    env = {
        **os.environ,
        "BREAKER_TUI_STATE_DIR": str(tmp_path / "state"),
        "BREAKER_TUI_RUN_DIR": os.path.join(run, "run"),
        "BREAKER_TUI_CONFIG": str(tmp_path / "none.toml"),
    }
    proc = subprocess.Popen([EXE, "serve", "--otlp", url], env=env, stderr=subprocess.PIPE)
    try:
        assert proc.stderr is not None
        seen = b""
        while b"listening on" not in seen:
            line = proc.stderr.readline()
            assert line, f"serve exited before listening: {seen.decode()}"
            seen += line
        base = {"session_id": "otlp-1", "tool_name": "Bash", "cwd": "/tmp", "tool_input": {"command": "make test"}}
        kinds = []
        for n in range(6):
            pre = {**base, "hook_event_name": "PreToolUse", "tool_use_id": f"t{n}"}
            p = subprocess.run([*I.launcher(), "claude"], input=json.dumps(pre).encode(), capture_output=True, env=env)
            kinds.append("deny" if b'"deny"' in p.stdout else "allow")
            if kinds[-1] == "allow":
                post = {**pre, "hook_event_name": "PostToolUseFailure", "error": "Exit code 2\nmake: Error 2"}
                subprocess.run([*I.launcher(), "claude"], input=json.dumps(post).encode(), env=env, check=True)
    finally:
        proc.send_signal(signal.SIGTERM)  # the server sends what it holds as it stops
        proc.wait(timeout=60)
        subprocess.run(["rm", "-rf", run], check=False)
    assert "deny" in kinds, kinds
    got = spans(bodies)
    assert len(got) == 6 and {name for name, _, _ in got} == {"execute_tool bash"}
    for _, attrs, _ in got:
        assert attrs["gen_ai.operation.name"] == "execute_tool" and attrs["gen_ai.conversation.id"] == "otlp-1"
        assert attrs["gen_ai.tool.call.id"].startswith("t")
    verdicts = sorted(attrs["breaker_tui.verdict"] for _, attrs, _ in got)
    assert verdicts == sorted(kinds)
    assert all(code == 2 for _, _, code in got)  # every call failed or was refused: each span is an error


def test_otlp_without_the_extra_or_with_a_bad_url_is_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("opentelemetry.sdk", reason="the [otlp] extra is not installed")
    with pytest.raises(O.OtlpError, match="collector's URL"):
        O.Spans("127.0.0.1:4318")
    monkeypatch.setitem(sys.modules, "opentelemetry.sdk.trace", None)
    with pytest.raises(O.OtlpError, match=r"breaker-tui\[otlp\]"):
        O.Spans("http://127.0.0.1:4318/v1/traces")
