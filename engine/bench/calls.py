"""The benchmarks' tool-call mix: a varied, mostly non-repeating stream of realistic calls (shared by every bench)."""

from __future__ import annotations

from typing import Any


def tool_calls(n: int) -> list[tuple[str, dict[str, Any]]]:
    """A varied, mostly non-repeating stream of realistic tool calls."""
    out: list[tuple[str, dict[str, Any]]] = []
    for i in range(n):
        k = i % 6
        if k == 0:
            cmd = f"curl -sS --max-time 30 https://api.example.com/v1/items?page={i}&utm_source=x -o out{i % 7}.json"
            out.append(("bash", {"command": cmd, "description": f"fetch page {i}"}))
        elif k == 1:
            out.append(("read", {"path": f"src/module_{i % 40}.py", "offset": i % 300}))
        elif k == 2:
            out.append(("edit", {"path": f"src/module_{i % 40}.py", "old": f"x = {i}", "new": f"x = {i + 1}"}))
        elif k == 3:
            out.append(("bash", {"command": f"cd /work/repo && pytest -q tests/test_{i % 50}.py 2>&1 | tail -n 20"}))
        elif k == 4:
            out.append(("web_fetch", {"url": f"https://docs.example.org/guide/{i % 90}#top", "prompt": "summary"}))
        else:
            out.append(("bash", {"command": f"git log --oneline -n {i % 30} -- src/ > /tmp/log{i % 5}.txt"}))
    return out
