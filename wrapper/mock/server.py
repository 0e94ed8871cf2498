"""An OpenAI/DeepSeek-compatible streaming model on 127.0.0.1 that plays scripted scenarios."""

from __future__ import annotations

import json
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from wrapper.mock.anthropic import handle as handle_anthropic
from wrapper.mock.api import start_stream
from wrapper.mock.gemini import handle as handle_gemini
from wrapper.mock.responses import handle as handle_responses
from wrapper.mock.scenarios import SCENARIOS, Reply, Turn
from wrapper.mock.tools import FOLLOWUP_MARKER, fit_reply

TITLE_PREFIX = "Generate the session title"


class _Server(ThreadingHTTPServer):
    """The mock's HTTP server: a client that hangs up is no error of the mock's."""

    daemon_threads = True

    def handle_error(self, request: Any, client_address: Any) -> None:
        # an agent cancels a stream, retries or is stopped at any byte, the headers included: its reset or
        # closed pipe is how a client ends a request, not a fault to print a traceback for
        if isinstance(sys.exc_info()[1], ConnectionError):
            return
        super().handle_error(request, client_address)


def _text_of(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(str(p.get("text", "")) for p in content if isinstance(p, dict))
    return ""


def describe_request(body: dict[str, Any]) -> Turn:
    """Reduce a chat-completions request to what a scenario needs."""
    msgs = body.get("messages") or []
    assistants = sum(1 for m in msgs if m.get("role") == "assistant")
    tool_texts: list[str] = []
    for m in reversed(msgs):
        if m.get("role") == "tool":
            tool_texts.append(_text_of(m.get("content")))
        elif m.get("role") == "assistant":
            break
    users = [_text_of(m.get("content")) for m in msgs if m.get("role") == "user"]
    thinking = (body.get("thinking") or {}).get("type", "enabled") != "disabled"
    if users and FOLLOWUP_MARKER in users[-1]:  # an ACP agent cannot turn thinking off: the monitor asks in words
        thinking = False
    return Turn(assistants, thinking, tool_texts, users)


class MockModel:
    """The server: pick a scenario, `start()`, read `port`, `stop()`."""

    def __init__(self, scenario: str = "normal", log_path: Path | None = None, host: str = "127.0.0.1") -> None:
        if scenario not in SCENARIOS:
            raise ValueError(f"unknown scenario {scenario!r}; choose one of: {', '.join(SCENARIOS)}")
        self.scenario = scenario
        self.log_path = log_path
        self.hung = False  # a scripted hang happens once per server; later requests are answered normally
        self.workspace = ""  # relative paths in scripted tool calls resolve here (agents want absolute ones)
        self.requests: list[dict[str, Any]] = []
        self.side_delay_ms = 2.0  # pause per chunk of a side request's answer (tests hold a title request open)
        self._lock = threading.Lock()
        self._hangs: list[threading.Event] = []
        model = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *_: Any) -> None:
                return

            def do_POST(self) -> None:
                model._handle(self)

            def do_GET(self) -> None:
                body = json.dumps({"object": "list", "data": [{"id": "mock-model", "object": "model"}]}).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        self.server = _Server((host, 0), Handler)
        self.port = int(self.server.server_address[1])
        self._thread: threading.Thread | None = None

    @property
    def base_url(self) -> str:
        """Where dsh should send its requests."""
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> MockModel:
        """Serve in a daemon thread."""
        self._thread = threading.Thread(target=self.server.serve_forever, name="mock-model", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving and release every hanging response."""
        for ev in self._hangs:
            ev.set()
        self.server.shutdown()
        self.server.server_close()

    def main_requests(self) -> list[dict[str, Any]]:
        """Requests that carried tools (the agent's own steps, not side requests)."""
        with self._lock:
            return [r for r in self.requests if r["body"].get("tools")]

    # -- request handling ------------------------------------------------------------------
    def _record(self, handler: BaseHTTPRequestHandler, body: dict[str, Any]) -> None:
        entry = {
            "ts": time.time(),
            "path": handler.path,
            "session": handler.headers.get("x-deepseek-harness-session-id"),
            "body": body,
        }
        with self._lock:
            self.requests.append(entry)
        if self.log_path is not None:
            try:
                with self.log_path.open("a", encoding="utf-8") as fh:
                    fh.write(json.dumps(entry) + "\n")
            except OSError:
                pass

    def _handle(self, h: BaseHTTPRequestHandler) -> None:
        try:
            length = int(h.headers.get("Content-Length") or 0)
            body = json.loads(h.rfile.read(length) or b"{}")
        except (ValueError, OSError):
            h.send_error(400, "bad json")
            return
        if h.path.endswith("/_scenario"):
            self.scenario = str(body.get("name", self.scenario))
            self._json(h, 200, {"scenario": self.scenario})
            return
        self._record(h, body)
        if "/messages" in h.path:  # Anthropic Messages (Claude Code)
            handle_anthropic(self, h, body)
            return
        if h.path.rstrip("/").endswith("/responses"):  # OpenAI Responses (Codex)
            handle_responses(self, h, body)
            return
        if ":generateContent" in h.path or ":streamGenerateContent" in h.path:  # Gemini (Gemini CLI)
            handle_gemini(self, h, body)
            return
        msgs = body.get("messages") or []
        is_title = not body.get("tools") and any(TITLE_PREFIX in _text_of(m.get("content")) for m in msgs)
        if is_title or not body.get("tools"):
            self._stream(h, Reply(content="Mock session title", delay_ms=self.side_delay_ms), body)
            return
        script = SCENARIOS[self.scenario][0]
        reply = self.once(fit_reply(script(describe_request(body)), body, self.workspace))
        if reply.status != 200:
            self._json(h, reply.status, {"error": {"message": reply.error or "mock error", "type": "server_error"}})
            return
        self._stream(h, reply, body)

    def once(self, reply: Reply) -> Reply:
        """A hang happens once per server; a later one gets a normal answer (the conversation keeps the prompt)."""
        if reply.hang and self.hung:
            return Reply(reasoning=["The user wants a short answer."], content="Hello from the mock model.")
        self.hung = self.hung or reply.hang
        return reply

    def _json(self, h: BaseHTTPRequestHandler, status: int, obj: Any) -> None:
        data = json.dumps(obj).encode()
        h.send_response(status)
        h.send_header("Content-Type", "application/json")
        h.send_header("Content-Length", str(len(data)))
        h.end_headers()
        h.wfile.write(data)

    def _stream(self, h: BaseHTTPRequestHandler, reply: Reply, body: dict[str, Any]) -> None:
        start_stream(h)
        model = body.get("model", "mock-model")
        created = int(time.time())

        def emit(delta: dict[str, Any], finish: str | None = None, usage: dict[str, Any] | None = None) -> None:
            chunk: dict[str, Any] = {
                "id": "chatcmpl-mock",
                "object": "chat.completion.chunk",
                "created": created,
                "model": model,
                "choices": [{"index": 0, "delta": delta, "finish_reason": finish}] if usage is None else [],
            }
            if usage is not None:
                chunk["usage"] = usage
            h.wfile.write(b"data: " + json.dumps(chunk).encode() + b"\n\n")
            h.wfile.flush()
            if reply.delay_ms:
                time.sleep(reply.delay_ms / 1000)

        try:
            emit({"role": "assistant", "content": ""})
            thinking = (body.get("thinking") or {}).get("type", "enabled") != "disabled"
            reasoning_sent = 0
            for piece in reply.reasoning:
                if thinking or reply.hang or reply.force_reasoning:
                    emit({"reasoning_content": piece})
                    reasoning_sent += len(piece)
            if reply.hang:
                ev = threading.Event()
                self._hangs.append(ev)
                ev.wait(600)
                return
            if reply.content:
                for i in range(0, len(reply.content), 24):
                    emit({"content": reply.content[i : i + 24]})
            for n, call in enumerate(reply.tool_calls):
                args = json.dumps(call.args)
                emit(
                    {
                        "tool_calls": [
                            {
                                "index": n,
                                "id": f"call_{int(time.time() * 1000) % 100000}_{n}",
                                "type": "function",
                                "function": {"name": call.name, "arguments": ""},
                            }
                        ]
                    }
                )
                for i in range(0, len(args), 32):
                    emit({"tool_calls": [{"index": n, "function": {"arguments": args[i : i + 32]}}]})
            emit({}, "tool_calls" if reply.tool_calls else "stop")
            emit(
                {},
                usage={
                    "prompt_tokens": 1000 + 10 * len(body.get("messages") or []),
                    "completion_tokens": 20 + len(reply.content) // 4,
                    "prompt_cache_hit_tokens": 0,
                    "completion_tokens_details": {"reasoning_tokens": reasoning_sent // 4},
                },
            )
            h.wfile.write(b"data: [DONE]\n\n")
            h.wfile.flush()
        except (BrokenPipeError, ConnectionResetError):
            return


def serve(scenario: str, port_file: Path | None, log_path: Path | None) -> None:
    """`breaker-tui mock-llm`: serve until interrupted, writing the port to `port_file`."""
    m = MockModel(scenario, log_path).start()
    if port_file is not None:
        port_file.write_text(str(m.port))
    print(f"mock model: {m.base_url} (scenario {scenario})", flush=True)
    print(
        "point your own dsh at it (after `breaker-tui init-profile dev`):\n"
        f"  DEEPSEEK_BASE_URL={m.base_url} DEEPSEEK_API_KEY=sk-mock breaker-tui -- dsh --profile dev",
        flush=True,
    )
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        pass
    finally:
        m.stop()
