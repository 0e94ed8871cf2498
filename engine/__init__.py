"""The breaker engine: pure loop-detection logic with no I/O, no asyncio and no UI.

Import `engine.breaker.Breaker` and `engine.config.BreakerConfig`; everything else is the parts.
"""
