"""The wrapper: runs an agent under the monitor, records what happened, reads records back.

Its root holds what every harness shares (the monitor's core, items, recorder, settings, run directory,
signals, the pty child, the headless runner, doctor, the Node toolchain); `harness/` holds one folder per
agent kind, `records/` the reading side, `mock/` the offline model, `bench/` the benchmarks.
"""
