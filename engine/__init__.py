"""The breaker engine: pure loop-detection logic with no I/O, no asyncio and no UI.

Import `engine.breaker.Breaker` and `engine.config.BreakerConfig`; everything else is the parts.
`BUILD` says whether the hot modules run compiled (see `engine.native`) or as plain Python.
"""

from engine.native import activate

BUILD = activate(__path__)
