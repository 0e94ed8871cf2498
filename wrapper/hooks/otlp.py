"""`serve --otlp URL`: one OpenTelemetry span per hooked tool call, sent over OTLP/HTTP.

The spans follow the OpenTelemetry GenAI conventions for a tool call (`execute_tool {tool}`, with
`gen_ai.operation.name`, `gen_ai.tool.name`, `gen_ai.tool.call.id`, `gen_ai.conversation.id`), plus
breaker's verdict and rule. A span opens when the agent asks before the call and ends when the result
comes back (a refused call's span ends at once, as an error). `opentelemetry-sdk` and its OTLP exporter
are an optional extra (`pip install 'breaker-tui[otlp]'`): the default install does without them.
"""

from __future__ import annotations

from typing import Any

MAX_OPEN = 10_000  # calls whose result never came (the agent was killed): the oldest span is ended


class OtlpError(Exception):
    """Spans cannot be sent: the message says why and what to do."""


class Spans:
    """The tracer, and the spans of the calls still running, by (agent, session, call id)."""

    def __init__(self, endpoint: str) -> None:
        try:
            from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
            from opentelemetry.sdk.resources import Resource
            from opentelemetry.sdk.trace import TracerProvider
            from opentelemetry.sdk.trace.export import BatchSpanProcessor
            from opentelemetry.trace import Status, StatusCode
        except ImportError:
            raise OtlpError(
                "serve --otlp needs opentelemetry-sdk and its OTLP exporter, an optional extra: "
                "pip install 'breaker-tui[otlp]'"
            ) from None
        if not endpoint.startswith(("http://", "https://")):
            raise OtlpError(f"--otlp {endpoint!r}: give the collector's URL, e.g. http://127.0.0.1:4318/v1/traces")
        self.provider = TracerProvider(resource=Resource.create({"service.name": "breaker-tui"}))
        self.provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter(endpoint=endpoint)))
        self.tracer = self.provider.get_tracer("breaker-tui")
        self._error: Any = lambda why: Status(StatusCode.ERROR, why)
        self.open: dict[tuple[str, str, str], Any] = {}

    def before(self, agent: str, session: str, call_id: str, tool: str, kind: str, rule: str) -> None:
        """The agent asked about a call: its span starts (and ends now when refused)."""
        attrs = {
            "gen_ai.operation.name": "execute_tool",
            "gen_ai.tool.name": tool,
            "gen_ai.tool.call.id": call_id,
            "gen_ai.tool.type": "function",
            "gen_ai.conversation.id": session,
            "gen_ai.agent.name": agent,
            "breaker_tui.verdict": kind,
            "breaker_tui.rule": rule,
        }
        span = self.tracer.start_span(f"execute_tool {tool}", attributes=attrs)
        if kind == "deny":
            span.set_attribute("error.type", "breaker_tui.refused")
            span.set_status(self._error(f"refused by breaker-tui (rule {rule or 'loop'})"))
            span.end()
            return
        if len(self.open) >= MAX_OPEN:
            self.open.pop(next(iter(self.open))).end()
        self.open[(agent, session, call_id)] = span

    def after(self, agent: str, session: str, call_id: str, failed: bool) -> None:
        """The call's result came back: its span ends (an error when the call failed)."""
        span = self.open.pop((agent, session, call_id), None)
        if span is None:
            return
        if failed:
            span.set_attribute("error.type", "tool_error")
            span.set_status(self._error("the tool call failed"))
        span.end()

    def close(self) -> None:
        """End the spans still open and send everything (the server is stopping)."""
        for span in self.open.values():
            span.end()
        self.open.clear()
        self.provider.shutdown()
