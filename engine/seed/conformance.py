"""Runs the shared conformance vectors against the engine: `python -m engine.seed.conformance [DIR]`."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from engine.errors import ConfigError
from engine.lenses.degeneracy import DegeneracyDetector, features
from engine.lenses.repetition import RepetitionDetector
from engine.repeat_config import effective, merge_repeat
from engine.seed import calibrate, seedopts
from engine.seed.textgen import expand
from engine.tools import shell
from engine.tools.failures import FailureGuard, normalized_args, signature
from engine.tools.fingerprints import fingerprints, is_tracked
from engine.tools.repeat import RepeatGuard
from engine.tools.urls import norm_url, seed_local_host
from engine.units import round3, to_units

DEFAULT_DIR = Path(__file__).resolve().parent.parent.parent.parent / "shared" / "conformance"


def same(a: Any, b: Any) -> bool:
    """JSON value equality: key order ignored, array order kept, 1 == 1.0, true != 1."""
    if isinstance(a, bool) or isinstance(b, bool):
        return a is b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return a == b
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    return type(a) is type(b) and a == b


def _url(inp: dict[str, Any]) -> Any:
    u = norm_url(inp["raw"], inp["aliases"])
    return None if u is None else {"host": u.host, "path": u.path, "site": u.site, "href": u.href}


def _fingerprints(inp: dict[str, Any]) -> Any:
    cfg = merge_repeat(inp.get("config") or {})
    cp = fingerprints(inp.get("tool") or "", inp.get("args"), cfg, seed_hosts=True)
    return {"fingerprints": list(cp.fingerprints), "local": cp.local, "tracked": is_tracked(inp.get("tool"), cfg)}


def _tool_sequence(inp: dict[str, Any]) -> Any:
    guard = RepeatGuard(merge_repeat(inp.get("config") or {}), seed=True)
    out: list[Any] = []
    pending: dict[Any, tuple[str, Any, Any]] = {}
    for n, step in enumerate(inp["steps"]):
        agent = step.get("agent")
        if step.get("user_message"):
            if agent is not None:
                guard.reset(agent)
            out.append(None)
        elif step.get("plugin_message"):
            out.append(None)
        elif "approve" in step:
            call_id, tool, args = pending.pop(agent)
            if step["approve"]:
                v = guard.guard(agent, call_id, tool, args)
                out.append({"verdict": v.kind, "hits": [h.as_list() for h in v.hits], "note": v.note})
            else:
                guard.post_execute(agent, call_id, tool, "", True)
                out.append({"verdict": "rejected", "hits": [], "note": None})
        else:
            call_id = f"call-{n}"
            tool, args = step.get("tool"), step.get("args")
            v = guard.pre_execute(agent, call_id, tool, args)
            if v.kind == "ask":
                pending[agent] = (call_id, tool, args)
            else:
                v = guard.guard(agent, call_id, tool, args)
            out.append({"verdict": v.kind, "hits": [h.as_list() for h in v.hits], "note": v.note})
    return {"steps": out}


def _config(inp: dict[str, Any]) -> Any:
    try:
        return {"ok": True, "effective": effective(merge_repeat(inp["config"]))}
    except ConfigError as e:
        return {"ok": False, "error_text": str(e)}


def _feed(det: Any, text: Any, chunk: int, all_trips: bool = False) -> tuple[list[Any], Any]:
    units = to_units(expand(text))
    trips: list[Any] = []
    for i in range(0, len(units), chunk):
        t = det.push(units[i : i + chunk])
        if t is not None:
            trips.append(t)
            if not all_trips:
                break
    return trips, det


def _repetition(inp: dict[str, Any]) -> Any:
    det = RepetitionDetector(seedopts.repetition_settings(inp.get("config")))
    trips, _ = _feed(det, inp["text"], inp["chunk"], bool(inp.get("all_trips")))
    if inp.get("all_trips"):
        return {"trips": trips, "blocks": det.idx}
    if trips:
        return {"trip": trips[0]}
    return {"trip": None, "blocks": det.idx, "max_overlap": round3(det.max_overlap)}


def _degeneracy_block(inp: dict[str, Any]) -> Any:
    s = seedopts.degeneracy_settings(inp.get("config"))
    u = to_units(inp["text"])
    f = features(u, 0, len(u), s)
    return {
        "n": f.n,
        "non_space": f.non_space,
        "meaning": f.meaning,
        "symbol": f.symbol,
        "emoji": f.emoji,
        "distinct": f.distinct,
        "max_run": f.max_run,
        "run_count": f.run_count,
        "meaning_ratio": round3(f.meaning_ratio),
        "noise_ratio": round3(f.noise_ratio),
        "variety": round3(f.variety),
        "emoji_ratio": round3(f.emoji_ratio),
        "flags": list(f.flags),
        "degenerate": f.degenerate,
    }


def _degeneracy_trip(inp: dict[str, Any]) -> Any:
    det = DegeneracyDetector(seedopts.degeneracy_settings(inp.get("config")))
    trips, _ = _feed(det, inp["text"], inp["chunk"])
    return {"trip": trips[0]} if trips else {"trip": None, "blocks": det.idx}


def _failure_sequence(inp: dict[str, Any]) -> Any:
    g = FailureGuard(seedopts.failure_settings(inp.get("config")))
    out: list[Any] = []
    for step in inp["steps"]:
        agent = step.get("agent")
        if step.get("new_turn"):
            g.new_turn(agent)
            out.append(None)
            continue
        d = g.gate(agent, step["tool"], step.get("args"))
        if d is not None:
            out.append({"action": d.action, "failures": d.failures, "already": d.already})
            continue
        r = g.record(agent, step["tool"], step.get("args"), step["result"] == "ok")
        out.append({"action": r.action, "failures": r.failures})
    return {"steps": out}


KINDS: dict[str, Callable[[dict[str, Any]], Any]] = {
    "url_norm": _url,
    "tokenize": lambda i: shell.tokenize(i["command"]),
    "first_verb": lambda i: shell.first_verb(i["command"]),
    "extract_urls": lambda i: shell.extract_urls(i["command"]),
    "extract_sink": lambda i: shell.extract_sink(i["command"]),
    "strip_volatile": lambda i: shell.strip_volatile(i["command"]),
    "local_host": lambda i: seed_local_host(i["host"]),
    "fingerprints": _fingerprints,
    "tool_sequence": _tool_sequence,
    "config_validation": _config,
    "repetition": _repetition,
    "degeneracy_block": _degeneracy_block,
    "degeneracy_trip": _degeneracy_trip,
    "tool_failure_sequence": _failure_sequence,
    "failure_signature": lambda i: {"normalized_args": normalized_args(i["args"])},
    "signature_equal": lambda i: {
        "equal": signature(i["a"]["tool"], i["a"].get("args")) == signature(i["b"]["tool"], i["b"].get("args"))
    },
    "lens_a_sweep": calibrate.lens_a_sweep,
    "lens_a_separation": calibrate.lens_a_separation,
    "lens_b_sweep": calibrate.lens_b_sweep,
    "lens_b_gate": calibrate.lens_b_gate,
}


def check(record: dict[str, Any]) -> tuple[bool, Any]:
    """Run one vector; return (passed, what the engine produced)."""
    kind = record["kind"]
    try:
        got = KINDS[kind](record["input"])
    except Exception as e:  # a vector must never crash the runner
        return False, f"raised {type(e).__name__}: {e}"
    exp = record["expect"]
    if kind == "config_validation" and not exp.get("ok", True):
        ok = not got.get("ok", True) and exp["error"] in got.get("error_text", "")
        return ok, got
    return same(got, exp), got


def run_file(path: Path) -> tuple[int, list[tuple[str, Any, Any]]]:
    """Run every vector of one file; return the pass count and the failures."""
    passed = 0
    failures: list[tuple[str, Any, Any]] = []
    with path.open(encoding="utf-8", newline="\n") as fh:
        for line in fh.read().split("\n"):
            if not line.strip():
                continue
            rec = json.loads(line)
            ok, got = check(rec)
            if ok:
                passed += 1
            else:
                failures.append((rec["id"], rec["expect"], got))
    return passed, failures


def main(argv: list[str] | None = None) -> int:
    """Print per-file pass/fail counts and the first mismatches; exit 1 on any failure."""
    args = sys.argv[1:] if argv is None else argv
    show = 3
    if "--show" in args:
        k = args.index("--show")
        show = int(args[k + 1])
        del args[k : k + 2]
    directory = Path(args[0]) if args else DEFAULT_DIR
    files = sorted(directory.glob("*.jsonl"))
    if not files:
        print(f"conformance: no *.jsonl vector files in {directory}", file=sys.stderr)
        return 2
    total_fail = 0
    for f in files:
        passed, failures = run_file(f)
        total_fail += len(failures)
        print(f"{f.name:28} {passed:5} passed {len(failures):5} failed")
        for cid, exp, got in failures[:show]:
            print(
                f"  {cid}\n    expect: {json.dumps(exp, ensure_ascii=False)[:600]}\n    got:    "
                f"{json.dumps(got, ensure_ascii=False)[:600]}"
            )
    print("conformance: " + ("all vectors pass" if not total_fail else f"{total_fail} vector(s) failed"))
    return 1 if total_fail else 0


if __name__ == "__main__":
    raise SystemExit(main())
