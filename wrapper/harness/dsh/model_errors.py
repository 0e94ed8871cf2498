"""dsh's model-request error codes in words a person reads, naming the endpoint.

dsh reports a failed model request as `CODE: detail` (`STREAM_CLOSED: SSE stream ended without
[DONE]`), then the failed step again as an agent error with the same text. The person needs one
line: what happened to which endpoint, and for a missing key, what to do (a key, or the mock).
"""

from __future__ import annotations

DEFAULT_ENDPOINT = "https://api.deepseek.com"  # dsh's provider when DEEPSEEK_BASE_URL is not set

_WORDS = {
    "STREAM_CLOSED": "the model endpoint {url} stopped answering mid-stream",
    "TRANSPORT": "the model endpoint {url} could not be reached",
    "LLM_STREAM_IDLE_TIMEOUT": "the model endpoint {url} sent nothing for too long, and dsh gave up",
    "RATE_LIMIT": "the model endpoint {url} refused the request: too many requests (rate limit)",
    "SERVER_ERROR": "the model endpoint {url} failed with a server error",
}
MISSING_KEY = (
    "no API key for the model endpoint {url}: export DEEPSEEK_API_KEY, or try it offline against the mock "
    "(breaker-tui mock-llm prints how)"
)


def endpoint_of(env: dict[str, str]) -> str:
    """The model endpoint dsh talks to, from the child's environment."""
    return env.get("DEEPSEEK_BASE_URL") or DEFAULT_ENDPOINT


def in_words(code: str, detail: str, endpoint: str) -> str:
    """One line for a failed model request; an unknown code keeps dsh's own text after the words."""
    url = endpoint or "(unknown)"
    if code == "MISSING_CREDENTIAL":
        return MISSING_KEY.format(url=url)
    words = _WORDS.get(code)
    if words is None:
        return f"the model request to {url} failed: {detail or code}" + (f" ({code})" if detail and code else "")
    return words.format(url=url) + (f" ({code})" if code else "")
