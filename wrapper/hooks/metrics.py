"""`serve --metrics [HOST:]PORT`: the hook server's figures for Prometheus, for a team watching its agents.

Calls, verdicts by rule and agent, the server's own latency per hook request and the live sessions,
served by `prometheus-client` (an optional extra: `pip install 'breaker-tui[metrics]'`; the default
install does without it, and `serve --metrics` without it says how to add it).
"""

from __future__ import annotations

from typing import Any

# Seconds: a hook request is judged in about a millisecond; the agents' own hook timeout is 30 s.
LATENCY_BUCKETS = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1.0, 5.0, 30.0)


class MetricsError(Exception):
    """Metrics cannot be served: the message says why and what to do."""


def parse_address(text: str) -> tuple[str, int]:
    """`[HOST:]PORT` as (host, port); the host defaults to 127.0.0.1 (metrics name the person's projects)."""
    host, sep, port = text.rpartition(":")
    host = host.strip("[]") if sep else "127.0.0.1"
    try:
        n = int(port)
    except ValueError:
        raise MetricsError(f"--metrics {text!r}: give [HOST:]PORT, e.g. 127.0.0.1:9464 or 9464") from None
    if not 0 <= n <= 65535:
        raise MetricsError(f"--metrics {text!r}: the port must be 0-65535")
    return host or "127.0.0.1", n


class Metrics:
    """The counters `serve` updates after each hook request, in a registry of their own."""

    def __init__(self) -> None:
        try:
            import prometheus_client as P
        except ImportError:
            raise MetricsError(
                "serve --metrics needs prometheus-client, an optional extra: pip install 'breaker-tui[metrics]' "
                "(pipx: pipx inject breaker-tui prometheus-client)"
            ) from None
        self._p: Any = P
        self.registry = P.CollectorRegistry()
        self.calls = P.Counter(
            "breaker_tui_hook_calls", "Hook requests, by agent and phase", ["agent", "phase"], registry=self.registry
        )
        self.verdicts = P.Counter(
            "breaker_tui_hook_verdicts",
            "Verdicts on tool calls, by agent, kind (allow/deny/ask) and rule",
            ["agent", "kind", "rule"],
            registry=self.registry,
        )
        self.latency = P.Histogram(
            "breaker_tui_hook_latency_seconds",
            "Time the server takes for one hook request, from connection to answer",
            ["agent"],
            buckets=LATENCY_BUCKETS,
            registry=self.registry,
        )
        self.live = P.Gauge("breaker_tui_hook_live_sessions", "Agent sessions the server holds", registry=self.registry)

    def observe(self, agent: str, reply: dict[str, object], seconds: float) -> None:
        """Count one request from its answer."""
        kind = str(reply.get("kind") or "error")
        phase = "after" if kind == "recorded" else "error" if kind == "error" else "before"
        self.calls.labels(agent, phase).inc()
        if phase == "before":
            self.verdicts.labels(agent, kind, str(reply.get("rule") or "")).inc()
        self.latency.labels(agent).observe(seconds)

    def sessions(self, n: int) -> None:
        self.live.set(n)

    def start(self, host: str, port: int) -> int:
        """Serve /metrics over HTTP in a thread; the port it listens on (port 0: one the system chose)."""
        try:
            server, _ = self._p.start_http_server(port, addr=host, registry=self.registry)
        except OSError as e:
            raise MetricsError(f"cannot serve metrics on {host}:{port}: {e.strerror or e}") from None
        return int(server.server_address[1])
