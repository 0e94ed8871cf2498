"""The breaker engine: pure loop-detection logic with no I/O, no asyncio and no UI.

Import `engine.breaker.Breaker` and `engine.config.BreakerConfig`; everything else is the parts: at this
root what both kinds of rule share (config, events, verdicts, scores, text units, the neutral trace), and the
rooms `tools/` (tool-call rules), `lenses/` (reasoning lenses), `seed/` (the seeds' exact semantics and their
proofs) and `bench/` (benchmarks).
An installed wheel may hold the hot modules compiled with mypyc (see `hatch_build.py`); `build_info`
says which build is running.
"""

from __future__ import annotations

import importlib.machinery
import importlib.util

COMPILED = "compiled (mypyc)"
PLAIN = "plain Python"


def build_info() -> str:
    """Which build of the engine runs: `COMPILED` when its hot modules are mypyc extensions, else `PLAIN`."""
    # found, not imported: `breaker-tui --version` answers before the engine is loaded
    spec = importlib.util.find_spec("engine.breaker")
    path = (spec.origin if spec else None) or ""
    return COMPILED if path.endswith(tuple(importlib.machinery.EXTENSION_SUFFIXES)) else PLAIN
