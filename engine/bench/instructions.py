"""Instructions per tool check, default rules against seed rules: `python -m engine.bench.instructions`.

`engine.bench` times each check with the wall clock, and on a machine that other work shares that
clock moves the ratio more than any change to the rules does (a check waits for a core, and what
runs between two checks empties the caches the next one needs). The number of instructions a check
executes does not depend on the load. This runs the benchmark's call mix under valgrind's callgrind
for each mode, collecting only inside the checks (each is called through `operator.call`, which
nothing else here calls, and callgrind counts only inside `_operator_call`), once with `--calls`
calls and once with a third of them, so the difference is the steady cost of a check: imports,
first-call compiles and warm-up drop out. Results are answered `ok`, as in `mode_ratio`.
"""

from __future__ import annotations

import argparse
import operator
import os
import re
import shutil
import subprocess
import sys

from engine.bench.calls import tool_calls
from engine.breaker import Breaker
from engine.config import BreakerConfig

_COLLECTED = re.compile(r"Collected\s*:\s*(\d+)")
MODES = ("seed", "default")


def run_checks(mode: str, n: int) -> None:
    """The measured loop (the child's work): `n` checks, each followed by its `ok` result."""
    b = Breaker(BreakerConfig.from_mapping({"engine": {"mode": mode}}))
    call = operator.call
    for i, (tool, args) in enumerate(tool_calls(n)):
        call(b.check_tool, "agent", f"c{i}", tool, args)
        b.tool_result("agent", f"c{i}", tool, args, "ok", False)


def collected(output: str) -> int | None:
    """The instruction count callgrind reports on stderr (None when it reports none)."""
    m = _COLLECTED.search(output)
    return int(m.group(1)) if m else None


def count(valgrind: str, mode: str, n: int) -> int | None:
    """Instructions inside the checks of one child run of `n` calls."""
    cmd = [
        valgrind,
        "--tool=callgrind",
        "--callgrind-out-file=/dev/null",
        "--collect-atstart=no",
        "--toggle-collect=_operator_call",
        sys.executable,
        "-m",
        "engine.bench.instructions",
        "--child",
        mode,
        str(n),
    ]
    env = {**os.environ, "PYTHONHASHSEED": "0"}  # the same dict layouts every run
    done = subprocess.run(cmd, capture_output=True, text=True, env=env, check=False)
    return collected(done.stderr)


def measure(calls: int) -> dict[str, float] | str:
    """Per-check instructions of each mode and their ratio, or why they could not be counted."""
    valgrind = shutil.which("valgrind")
    if valgrind is None:
        return "valgrind is not installed"
    small = max(1, calls // 3)
    out: dict[str, float] = {}
    for mode in MODES:
        big_n, small_n = count(valgrind, mode, calls), count(valgrind, mode, small)
        if big_n is None or small_n is None:
            return f"callgrind reported no count for mode {mode}"
        out[f"{mode}_instructions"] = (big_n - small_n) / (calls - small)
    out["ratio"] = out["default_instructions"] / out["seed_instructions"]
    return out


def main(argv: list[str] | None = None) -> int:
    """Print the instructions per check of each mode and the ratio (or run the measured loop with `--child`)."""
    ap = argparse.ArgumentParser(prog="python -m engine.bench.instructions", description=__doc__)
    ap.add_argument("--calls", type=int, default=1800, help="calls of the long run (the short one has a third)")
    ap.add_argument("--child", nargs=2, metavar=("MODE", "N"), help=argparse.SUPPRESS)
    a = ap.parse_args(argv)
    if a.child:
        run_checks(a.child[0], int(a.child[1]))
        return 0
    r = measure(max(3, a.calls))
    if isinstance(r, str):
        print(f"instructions per check: not measured ({r})")
        return 2
    print(
        f"instructions per check (callgrind): default rules {r['default_instructions']:,.0f}, "
        f"seed rules {r['seed_instructions']:,.0f}: x{r['ratio']:.2f}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
