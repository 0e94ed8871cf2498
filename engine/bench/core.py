"""Throughput, latency and memory of the lenses and the tool check: `python -m engine.bench [--json]`."""

from __future__ import annotations

import argparse
import gc
import json
import time
import tracemalloc
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import engine
from engine.bench import real as realbench
from engine.bench import trace as tracebench
from engine.bench.calls import tool_calls
from engine.breaker import Breaker
from engine.config import BreakerConfig
from engine.lenses.degeneracy import DegeneracyDetector
from engine.lenses.repetition import RepetitionDetector
from engine.seed.corpora import clean_generators
from engine.seed.textgen import expand


def clean_corpus(scale: int = 1) -> str:
    """A large never-tripping stream: the seeds' clean generators (varied English, unique prose, CJK), scaled."""
    specs = clean_generators(reasoning=12000 * scale, prose=60000 * scale, cjk=12000 * scale)
    return "".join(expand(p) for p in specs.values())


def pct(samples: list[float], q: float) -> float:
    """The `q` quantile of the samples (0.0 for none), as every benchmark here reports it."""
    s = sorted(samples)
    return s[min(len(s) - 1, int(q * len(s)))] if s else 0.0


def reference_speed(text: str) -> float:
    """chars/s of `sum(map(ord, text))`, best of three."""
    best = float("inf")
    for _ in range(3):
        t0 = time.perf_counter()
        sum(map(ord, text))
        best = min(best, time.perf_counter() - t0)
    return len(text) / best


def lens_speed(factory: Callable[[], Any], text: str, chunk: int = 64) -> dict[str, float]:
    """Feed the corpus in `chunk`-sized pieces; chars/s and per-push latency in microseconds."""
    pieces = [text[i : i + chunk] for i in range(0, len(text), chunk)]
    det = factory()
    lat: list[float] = []
    clock = time.perf_counter_ns
    gc.disable()
    t0 = time.perf_counter()
    for p in pieces:
        a = clock()
        if det.push(p) is not None:
            raise RuntimeError("the clean benchmark corpus tripped a lens")
        lat.append(clock() - a)
    total = time.perf_counter() - t0
    gc.enable()
    return {
        "chars_per_s": len(text) / total,
        "p50_us": pct(lat, 0.5) / 1000,
        "p99_us": pct(lat, 0.99) / 1000,
    }


KINDS = ("bash curl+URL", "read", "edit", "bash pytest pipe", "web_fetch", "bash git redirect")


def check_latencies(calls: list[tuple[str, dict[str, Any]]], mode: str = "default") -> list[float]:
    """Nanoseconds of `Breaker.check_tool` per call on a fresh breaker, each call followed by its
    result, as in a session.
    """
    b = Breaker(BreakerConfig.from_mapping({"engine": {"mode": mode}}))
    lat: list[float] = []
    clock = time.perf_counter_ns
    for i, (tool, args) in enumerate(calls):
        a = clock()
        b.check_tool("agent", f"c{i}", tool, args)
        lat.append(clock() - a)
        b.tool_result("agent", f"c{i}", tool, args, "ok", False)
    return lat


def tool_speed(n: int = 20000, mode: str = "default") -> dict[str, float]:
    """Latency of `Breaker.check_tool` per call (all distinct calls: no cache helps), overall and per kind."""
    calls = tool_calls(n)
    t0 = time.perf_counter()
    lat = check_latencies(calls, mode)
    total = time.perf_counter() - t0
    out = {"calls_per_s": n / total, "p50_us": pct(lat, 0.5) / 1000, "p99_us": pct(lat, 0.99) / 1000}
    for k, name in enumerate(KINDS):
        out[f"p99_us[{name}]"] = pct(lat[k :: len(KINDS)], 0.99) / 1000
    return out


def _check_and_result(n: int, mode: str) -> tuple[float, float]:
    b = Breaker(BreakerConfig.from_mapping({"engine": {"mode": mode}}))
    check = result = 0
    clock = time.perf_counter_ns
    for i, (tool, args) in enumerate(tool_calls(n)):
        a = clock()
        b.check_tool("agent", f"c{i}", tool, args)
        m = clock()
        b.tool_result("agent", f"c{i}", tool, args, "ok", False)
        result += clock() - m
        check += m - a
    return check / n / 1000, result / n / 1000


def mode_ratio(n: int = 4000, rounds: int = 3) -> dict[str, float]:
    """Mean check (and result) latency of the default rules and the seed rules, interleaved so load hits both."""
    best = {m: [float("inf"), float("inf")] for m in ("seed", "default")}
    for _ in range(rounds):
        for mode, b in best.items():
            c, r = _check_and_result(n, mode)
            b[0], b[1] = min(b[0], c), min(b[1], r)
    s, d = best["seed"], best["default"]
    return {
        "seed_us": s[0],
        "default_us": d[0],
        "ratio": d[0] / s[0],
        "seed_result_us": s[1],
        "default_result_us": d[1],
    }


def peak_memory(text: str) -> dict[str, float]:
    """Peak traced allocation (MiB) while each lens and the tool check run."""
    out = {}
    for name, factory in (("repetition", RepetitionDetector), ("degeneracy", DegeneracyDetector)):
        tracemalloc.start()
        det = factory()
        for i in range(0, min(len(text), 1_000_000), 64):
            det.push(text[i : i + 64])
        out[f"{name}_peak_mib"] = tracemalloc.get_traced_memory()[1] / 2**20
        tracemalloc.stop()
    tracemalloc.start()
    b = Breaker()
    for i, (tool, args) in enumerate(tool_calls(5000)):
        b.check_tool("agent", f"c{i}", tool, args)
    out["tool_check_peak_mib"] = tracemalloc.get_traced_memory()[1] / 2**20
    tracemalloc.stop()
    return out


def run(scale: int = 1) -> dict[str, float]:
    """Every measurement, as one flat dict."""
    text = clean_corpus(scale)
    ref = reference_speed(text)
    rep = lens_speed(RepetitionDetector, text)
    deg = lens_speed(DegeneracyDetector, text)
    tool = tool_speed()
    res: dict[str, float] = {"corpus_chars": len(text), "reference_chars_per_s": ref}
    for k, v in rep.items():
        res[f"repetition_{k}"] = v
    for k, v in deg.items():
        res[f"degeneracy_{k}"] = v
    res["repetition_ratio"] = rep["chars_per_s"] / ref
    res["degeneracy_ratio"] = deg["chars_per_s"] / ref
    res["tool_check_calls_per_s"] = tool["calls_per_s"]
    res["tool_check_p50_us"] = tool["p50_us"]
    res["tool_check_p99_us"] = tool["p99_us"]
    for name in KINDS:
        res[f"tool_check_p99_us[{name}]"] = tool[f"p99_us[{name}]"]
    res.update(peak_memory(text))
    ratio = mode_ratio()
    res["tool_check_seed_rules_us"] = ratio["seed_us"]
    res["tool_check_default_rules_us"] = ratio["default_us"]
    res["tool_check_default_over_seed"] = ratio["ratio"]
    res["tool_result_seed_rules_us"] = ratio["seed_result_us"]
    res["tool_result_default_rules_us"] = ratio["default_result_us"]
    res.update(tracebench.run())
    return res


def finish(results: Mapping[str, object], out: str, as_json: bool) -> int:
    """Write the results to `out` (reporting, not raising, a failure) and end with one JSON line if asked."""
    path = Path(out)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(results, indent=2) + "\n")
        print(f"written to {path}")
    except OSError as e:
        print(f"could not write {path}: {e}")
    if as_json:
        print(json.dumps(results))
    return 0


def main(argv: list[str] | None = None) -> int:
    """Print the numbers (and write them to `--out`); with `--json` the last line is one JSON object."""
    ap = argparse.ArgumentParser(prog="python -m engine.bench", description=__doc__)
    ap.add_argument("--json", action="store_true", help="end with one JSON line")
    ap.add_argument("--scale", type=int, default=1, help="corpus size multiplier (1 = about 3.5 M chars)")
    ap.add_argument("--out", default="bench-results/engine.json", help="where to write the JSON results")
    ap.add_argument("--real", metavar="DIR", help="only replay the real traces under DIR, seed vs default rules")
    ap.add_argument("--rounds", type=int, default=3, help="--real: interleaved rounds, the best of each mode counts")
    ap.add_argument("--profile", type=int, default=0, metavar="N", help="--real: the default rules' top N functions")
    a = ap.parse_args(argv)
    if a.real:
        return realbench.report(Path(a.real), a.rounds, a.profile, a.json)
    r = run(a.scale)
    print(f"engine build          {engine.build_info()}")
    print(f"corpus                {r['corpus_chars']:,.0f} chars, fed in 64-char chunks")
    print(f"reference sum(ord)    {r['reference_chars_per_s'] / 1e6:8.2f} M chars/s")
    for lens, target in (("repetition", 0.045), ("degeneracy", 0.30)):
        print(
            f"{lens:10} lens       {r[f'{lens}_chars_per_s'] / 1e6:8.2f} M chars/s  "
            f"ratio {r[f'{lens}_ratio']:.3f} (target >= {target})  "
            f"push p50 {r[f'{lens}_p50_us']:.1f} us  p99 {r[f'{lens}_p99_us']:.1f} us  "
            f"peak {r[f'{lens}_peak_mib']:.2f} MiB"
        )
    print(
        f"tool check            {r['tool_check_calls_per_s']:8.0f} calls/s  p50 {r['tool_check_p50_us']:.1f} us  "
        f"p99 {r['tool_check_p99_us']:.1f} us (target < 50)  peak {r['tool_check_peak_mib']:.2f} MiB"
    )
    print("  p99 by kind: " + ", ".join(f"{k} {r[f'tool_check_p99_us[{k}]']:.0f} us" for k in KINDS))
    print(
        f"tool check, default rules {r['tool_check_default_rules_us']:.1f} us vs seed rules "
        f"{r['tool_check_seed_rules_us']:.1f} us: x{r['tool_check_default_over_seed']:.2f} (target <= 2); "
        f"result {r['tool_result_default_rules_us']:.1f} us vs {r['tool_result_seed_rules_us']:.1f} us"
    )
    per_call, calls = r["trace_replay_us_per_call"], r["trace_replay_calls"]
    print(
        f"trace replay (scan)   {per_call:.0f} us per call of a {calls:.0f}-call trace with a thought per call "
        f"= {per_call / r['tool_check_p50_us']:.1f}x the tool check p50; "
        f"peak {r['trace_replay_peak_mib_small']:.2f} MiB at {calls / 10:.0f} calls, "
        f"{r['trace_replay_peak_mib_big']:.2f} MiB at {calls:.0f} (ratio {r['trace_replay_peak_ratio']:.2f})"
    )
    return finish({"engine_build": engine.build_info(), **r}, a.out, a.json)


if __name__ == "__main__":
    raise SystemExit(main())
