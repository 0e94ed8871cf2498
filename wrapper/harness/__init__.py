"""Harnesses: the agent programs breaker-tui can drive (dsh through its bridge, ACP agents, plain commands).

Each harness says what it can do (`Capabilities`) so the screen offers only actions that work. A new
harness lives in its own folder here and is added to the registry in this package; the TUI does not change.
"""
