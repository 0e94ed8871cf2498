"""The engine against the seed plugins' own code on the same input: `python -m wrapper.bench.seed`.

The tool check is compared with the seed repeat breaker's synchronous guard exactly as published on
npm (`dsh-repeat-tool-breaker`, installed into the data directory on first use), timed call by call
under the Node that runs dsh. The seed thinking breaker is not published, so lens A2 is compared with
a rebuild of its block loop (`data/seed_degeneracy.mjs`) on the seeds' own flood corpus.
Run it from the compiled venv (`make bench`) to measure what users run.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

import engine
from engine.bench.calls import tool_calls
from engine.bench.core import KINDS, check_latencies, finish, pct
from engine.lenses.degeneracy import DegeneracyDetector
from engine.seed.corpora import LENS_B_DEGENERATE
from engine.seed.textgen import expand
from wrapper.paths import data_dir
from wrapper.toolchain import ProvisionError, node, npm_cli, run_tool

SEED_GUARD = "dsh-repeat-tool-breaker"
SEED_GUARD_VERSION = "0.5.2"
HERE = Path(__file__).resolve().parent / "data"


def quoted_url_calls(n: int) -> list[tuple[str, dict[str, Any]]]:
    """Distinct shell commands with quoted URLs, headers, pipes and redirects (no two alike, so no cache helps)."""
    out: list[tuple[str, dict[str, Any]]] = []
    for i in range(n):
        url = f"https://api.example.com/v2/repos/o{i % 97}/r{i}/issues?state=open&page={i}&utm_source=bench"
        cmd = (
            f"curl -sS --max-time 20 -H 'Accept: application/json' -H \"X-Trace: run {i}\" "
            f'"{url}" | jq -r \'.items[] | "\\(.id) \\(.title)"\' > "/tmp/issues {i}.txt" '
            f'&& wc -l "/tmp/issues {i}.txt"'
        )
        out.append(("bash", {"command": cmd, "description": f"issues page {i}"}))
    return out


def flood_samples(copies: int) -> list[list[str]]:
    """The seeds' degenerate calibration texts, each cut into 64-unit deltas, `copies` times over."""
    texts = [expand(spec) for spec in LENS_B_DEGENERATE.values()]
    pieces = [[t[i : i + 64] for i in range(0, len(t), 64)] for t in texts]
    return [p for _ in range(copies) for p in pieces]


def install_seed_guard(say: Any = print) -> Path:
    """The published seed guard, installed once into the data directory; its package directory."""
    d = data_dir() / "seed-bench"
    pkg = d / "node_modules" / SEED_GUARD
    try:
        have = json.loads((pkg / "package.json").read_text()).get("version")
    except (OSError, ValueError):
        have = None
    if have != SEED_GUARD_VERSION:
        d.mkdir(parents=True, exist_ok=True)
        manifest = {"name": "breaker-seed-bench", "private": True, "dependencies": {SEED_GUARD: SEED_GUARD_VERSION}}
        (d / "package.json").write_text(json.dumps(manifest, indent=2) + "\n")
        say(f"installing {SEED_GUARD}@{SEED_GUARD_VERSION} from the npm registry into {d} ...")
        run_tool(
            [str(node()), str(npm_cli()), "install", "--no-audit", "--no-fund", "--loglevel=error"], d, 300, SEED_GUARD
        )
    return pkg


def _node_json(script: str, *args: str) -> dict[str, Any]:
    p = subprocess.run([str(node()), str(HERE / script), *args], capture_output=True, text=True, timeout=600)
    if p.returncode != 0:
        raise ProvisionError(f"{script} failed (exit {p.returncode}): {p.stderr.strip()[-800:]}")
    out: dict[str, Any] = json.loads(p.stdout.strip().splitlines()[-1])
    return out


def _engine_check(calls: list[tuple[str, dict[str, Any]]], mode: str, rounds: int) -> list[float]:
    """Per-call `check_tool` nanoseconds, best of `rounds + 1` (the first warms caches, as the seed's warms its JIT)."""
    return min((check_latencies(calls, mode) for _ in range(rounds + 1)), key=sum)


def _engine_floods(samples: list[list[str]], rounds: int) -> tuple[list[float], list[str | None]]:
    best: list[float] = []
    rules: list[str | None] = []
    for _ in range(rounds + 1):
        lat: list[float] = []
        rules = []
        clock = time.perf_counter_ns
        for pieces in samples:
            det = DegeneracyDetector()
            a = clock()
            trip = None
            for p in pieces:
                trip = det.push(p)
                if trip is not None:
                    break
            lat.append(clock() - a)
            rules.append(trip["rule"] if trip else None)
        if not best or sum(lat) < sum(best):
            best = lat
    return best, rules


def run(n: int = 20000, rounds: int = 3) -> dict[str, Any]:
    """Every comparison, as one flat dict (latencies in microseconds)."""
    pkg = install_seed_guard()
    res: dict[str, Any] = {"engine_build": engine.build_info(), "seed_guard": f"{SEED_GUARD}@{SEED_GUARD_VERSION}"}
    sets = {"mixed": tool_calls(n), "quoted-url": quoted_url_calls(n // 4)}
    with tempfile.TemporaryDirectory(prefix="breaker-seedbench-") as tmp:
        for name, calls in sets.items():
            path = Path(tmp) / f"{name}.json"
            path.write_text(json.dumps(calls))
            js = _node_json("seed_guard.mjs", str(pkg), str(path), str(rounds))
            res["node"] = js["node"]
            seed = [x / 1000 for x in js["lat_ns"]]
            for mode in ("default", "seed"):
                ours = [x / 1000 for x in _engine_check(calls, mode, rounds)]
                for q, label in ((0.5, "p50"), (0.99, "p99")):
                    res[f"{name} {mode} {label}_us"] = pct(ours, q)
                    res[f"{name} seed-guard {label}_us"] = pct(seed, q)
                    res[f"{name} {mode} {label} ratio"] = pct(ours, q) / pct(seed, q)
                if name == "mixed" and mode == "default":
                    for k, kind in enumerate(KINDS):
                        mine, theirs = pct(ours[k :: len(KINDS)], 0.99), pct(seed[k :: len(KINDS)], 0.99)
                        res[f"mixed p99 ratio[{kind}]"] = mine / theirs
        samples = flood_samples(40)
        path = Path(tmp) / "floods.json"
        path.write_text(json.dumps(samples))
        js = _node_json("seed_degeneracy.mjs", str(path), str(rounds))
    ours_ns, rules = _engine_floods(samples, rounds)
    if rules != js["rules"]:
        raise RuntimeError(f"the lens and the seed rebuild disagree on the flood corpus: {rules} vs {js['rules']}")
    res["flood samples"] = len(samples)
    res["flood engine us"] = sum(ours_ns) / 1000
    res["flood seed us"] = sum(js["lat_ns"]) / 1000
    res["flood speed ratio"] = res["flood seed us"] / res["flood engine us"]  # > 1: the engine is faster
    return res


def main(argv: list[str] | None = None) -> int:
    """Print the comparison (and write it to `--out`); with `--json` the last line is one JSON object."""
    ap = argparse.ArgumentParser(prog="python -m wrapper.bench.seed", description=__doc__)
    ap.add_argument("--calls", type=int, default=20000, help="tool calls in the mixed set (a quarter as many quoted)")
    ap.add_argument("--rounds", type=int, default=3, help="timed rounds; the best is kept")
    ap.add_argument("--json", action="store_true", help="end with one JSON line")
    ap.add_argument("--out", default="bench-results/seed.json", help="where to write the JSON results")
    a = ap.parse_args(argv)
    try:
        r = run(a.calls, a.rounds)
    except ProvisionError as e:
        print(f"seed comparison unavailable: {e}")
        return 2
    print(f"engine build {r['engine_build']}; seed guard {r['seed_guard']} under Node {r['node']}")
    for name in ("mixed", "quoted-url"):
        for mode in ("default", "seed"):
            print(
                f"tool check, {name:10} {mode:7} rules: p50 {r[f'{name} {mode} p50_us']:6.1f} us vs seed guard "
                f"{r[f'{name} seed-guard p50_us']:6.1f} (x{r[f'{name} {mode} p50 ratio']:.2f}), p99 "
                f"{r[f'{name} {mode} p99_us']:6.1f} us vs {r[f'{name} seed-guard p99_us']:6.1f} "
                f"(x{r[f'{name} {mode} p99 ratio']:.2f}; target <= 1)"
            )
    print("  default-rules p99 ratio by kind: " + ", ".join(f"{k} x{r[f'mixed p99 ratio[{k}]']:.2f}" for k in KINDS))
    print(
        f"lens A2 on {r['flood samples']} flood texts: {r['flood engine us']:.0f} us vs the seed's loop "
        f"{r['flood seed us']:.0f} us: x{r['flood speed ratio']:.2f} as fast (target >= 1)"
    )
    return finish(r, a.out, a.json)


if __name__ == "__main__":
    raise SystemExit(main())
