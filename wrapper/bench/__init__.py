"""The wrapper's benchmarks: verdict round trip (`python -m wrapper.bench`), `scan` cost, the seed comparison.

Nothing at run time imports this room.
"""
