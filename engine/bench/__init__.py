"""The engine's benchmarks (`python -m engine.bench`): lens throughput, tool-check latency, trace replay cost.

Nothing at run time imports this room.
"""
