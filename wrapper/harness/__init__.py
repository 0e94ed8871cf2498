"""Harnesses: the agent programs breaker-tui can drive, one folder each (dsh/, acp/, plain/).

`base.py` is the interface every harness session offers the drivers, `capabilities.py` what each can do,
`pty.py` a command on a pty (shared by dsh and plain), and `registry.py` the one place that picks a harness
for a command line. Harness folders do not import each other.
"""
