# ruff: noqa: E501
"""Writes tests/data/loops/: loops and their legitimate look-alikes, made from the project's real sessions.

Run `python tests/data/loops/make.py` to rewrite the `*.jsonl` files beside it (deterministic). Each case
starts with the opening of one real, legitimate session of `tests/data/real/` (its task and its first
calls, as the agent made them) and continues with a stretch built from that same session's own calls,
outputs and thoughts: a loop of one of the classes below, or legitimate repetitive work that looks
like one. The README beside this file says what each class is and how it is labelled.
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
REAL = HERE.parent / "real"
SEED = 31
R = random.Random(SEED)
OPENING_CALLS = 6  # how many of the base session's calls open the case
PER_CLASS = 9

Event = dict[str, Any]


def load(path: Path) -> list[Event]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def is_shell(e: Event) -> bool:
    return e["t"] == "call" and isinstance(e.get("args"), dict) and isinstance(e["args"].get("command"), str)


def failed(e: Event) -> bool:
    return bool(e.get("error")) or e.get("exit") not in (None, 0)


def bases() -> list[tuple[str, list[Event]]]:
    """Legitimate real sessions with enough shell calls to borrow from, in a fixed shuffled order."""
    out = []
    for path in sorted(REAL.glob("real-*.jsonl")):
        ev = load(path)
        if ev[0].get("expected") != "no_loop":
            continue
        shell = [e for e in ev if is_shell(e) and e.get("output", "").strip()]
        if len(shell) >= 4:
            out.append((path.name, ev))
    R.shuffle(out)
    return out


def opening(events: list[Event]) -> list[Event]:
    """The base session up to its `OPENING_CALLS`-th call (meta left out)."""
    out: list[Event] = []
    calls = 0
    for e in events[1:]:
        out.append(e)
        if e["t"] == "call":
            calls += 1
            if calls == OPENING_CALLS:
                break
    return out


def call(cmd: str, output: str, exit: int | None = None, like: Event | None = None) -> Event:
    """A shell call in the base session's own spelling (`bash` with `command`, and its description if any)."""
    args: dict[str, Any] = {"command": cmd}
    if like is not None and "description" in like.get("args", {}):
        args["description"] = like["args"]["description"]
    e: Event = {"t": "call", "tool": like["tool"] if like else "bash", "args": args, "output": output}
    if exit is not None:
        e["exit"] = exit
    return e


def think(text: str) -> Event:
    return {"t": "think", "text": text}


def clip(text: str, lines: int = 40) -> str:
    return "\n".join(text.splitlines()[:lines])


def shell_calls(ev: list[Event]) -> list[Event]:
    return [e for e in ev if is_shell(e) and e.get("output", "").strip()]


def a_failure(ev: list[Event]) -> Event:
    """A failing shell call of the session (or its first shell call, failing the way a missing path does)."""
    bad = [e for e in shell_calls(ev) if failed(e)]
    if bad:
        return R.choice(bad)
    e = shell_calls(ev)[0]
    word = e["args"]["command"].split()[0]
    return {**e, "output": f"/bin/bash: line 1: {word}: No such file or directory", "exit": 127}


def thoughts(ev: list[Event]) -> list[str]:
    return [e["text"].strip() for e in ev if e["t"] == "think" and 30 < len(e.get("text", "").strip()) < 600]


def real_lines(ev: list[Event]) -> list[str]:
    """Every non-blank output line of the session, in order (real text to page through or grow)."""
    out: list[str] = []
    for e in ev:
        if e["t"] == "call":
            out.extend(line for line in e.get("output", "").splitlines() if line.strip())
    return out


# ---- the loops ----------------------------------------------------------------------------------------

_BASH_LINE = re.compile(r"^((?:/usr)?(?:/bin/)?(?:ba)?sh): (?:line \d+: )?", re.MULTILINE)


def verbatim_failure(ev: list[Event]) -> tuple[list[Event], str]:
    """The same failing command re-sent verbatim 6 times; bash numbers its error line anew each time."""
    f = a_failure(ev)
    base = R.randint(40, 9000)
    out = [{**f, "output": _BASH_LINE.sub(f"\\1: line {base + k}: ", f["output"])} for k in range(6)]
    return (
        out,
        f"the failing call `{clip(f['args']['command'], 1)[:80]}` re-sent verbatim 6 times, bash's `line N:` moving",
    )


def counters_failure(ev: list[Event]) -> tuple[list[Event], str]:
    """An identical failure behind moving timestamps, durations and pids, 6 times."""
    f = a_failure(ev)
    out = []
    for k in range(6):
        stamp = f"2026-11-{12 + k // 3:02d}T0{k % 10}:{R.randint(10, 59)}:{R.randint(10, 59)}Z"
        noise = R.choice((f"[{stamp}] run {R.randint(1000, 99999)}", f"started {stamp} (pid {R.randint(1000, 99999)})"))
        tail = f"finished in {R.uniform(0.2, 9):.2f}s"
        out.append({**f, "output": f"{noise}\n{f['output']}\n{tail}"})
    return out, "one failing call re-run 6 times with the identical failure behind fresh timestamps, pids and durations"


def respell(cmd: str, k: int) -> str:
    """Cosmetic variants of one command: quoting, a `cd` prefix, `&&` spacing, trailing space."""
    forms: list[Callable[[str], str]] = [
        lambda c: c,
        lambda c: f"cd /testbed && {c}",
        lambda c: re.sub(r"(?<=\s)([\w./-]+)$", r"'\1'", c),
        lambda c: c.replace(" && ", "&&") if " && " in c else f"{c} ",
        lambda c: re.sub(r"(?<=\s)([\w./-]+)$", r'"\1"', c),
        lambda c: f"cd /testbed&&{c}",
    ]
    return forms[k % len(forms)](cmd)


def cosmetic_echo(ev: list[Event]) -> tuple[list[Event], str]:
    """One command spelled 6 ways; the result echoes each spelling (a `$ cmd` line and the error)."""
    f = a_failure(ev)
    cmd = f["args"]["command"]
    out = []
    for k in range(6):
        spelled = respell(cmd, k)
        out.append({**f, "args": {**f["args"], "command": spelled}, "output": f"$ {spelled}\n{f['output']}"})
    return (
        out,
        f"`{clip(cmd, 1)[:60]}` re-spelled 6 times (quotes, `cd` prefix, `&&` spacing), each result echoing its spelling, same failure",
    )


HOSTS = ("data.example.org", "reports.example.com", "exports.example.net")


def url_echo(ev: list[Event]) -> tuple[list[Event], str]:
    """One weekly export fetched 6 ways (tracking parameters, host case, www., fragment, curl/wget); each error echoes the host as spelled."""
    host = R.choice(HOSTS)
    path = f"/weekly/export-{R.randint(10, 52)}.csv"
    variants = [
        f"curl -sSL https://{host}{path}",
        f"curl -sSL 'https://{host}{path}?utm_source=agent'",
        f"curl -fsSL https://{host.upper()}{path}",
        f"wget -qO- https://www.{host}{path}",
        f"curl -sSL https://{host}{path}#latest",
        f"curl -L -s https://{host}{path}?ref=retry",
    ]
    out = []
    for v in variants:
        shown = re.search(r"https://([^/]+)", v)
        h = shown[1] if shown else host
        msg = (
            f"curl: (6) Could not resolve host: {h}"
            if v.startswith("curl")
            else f"wget: unable to resolve host address '{h}'"
        )
        out.append(call(v, msg, 6 if v.startswith("curl") else 4))
    return out, "one export URL fetched 6 times with cosmetic variants; the resolver error echoes the host as spelled"


def ab_cycle(ev: list[Event]) -> tuple[list[Event], str]:
    """Two real calls alternated 4 rounds with identical results."""
    a, b = R.sample(shell_calls(ev), 2)
    out = [dict(x) for _ in range(4) for x in (a, b)]
    return out, "two of the session's own calls alternated A/B 4 rounds, each with its identical result"


def view_cycle(ev: list[Event]) -> tuple[list[Event], str]:
    """Three ranges of one file viewed in turn, 4 passes, identical each pass."""
    lines = real_lines(ev)
    like = shell_calls(ev)[0]
    name = R.choice(("src/app/core.py", "lib/parser.js", "pkg/server/handler.go", "README.md"))
    ranges = [(1, 20), (21, 40), (41, 60)]
    pages = ["\n".join(lines[a - 1 : b]) or "(empty)" for a, b in ranges]
    out = [call(f"sed -n '{a},{b}p' {name}", pages[i], 0, like) for _ in range(4) for i, (a, b) in enumerate(ranges)]
    return out, "three ranges of one file viewed in turn, 4 passes, the same text each pass"


def reasoning_loop(ev: list[Event]) -> tuple[list[Event], str]:
    """The session's own thought restated before each of 5 identical calls with identical results."""
    texts = thoughts(ev) or ["I need to check the output again to understand why this fails."]
    t = R.choice(texts)
    c = R.choice(shell_calls(ev))
    out: list[Event] = []
    for _ in range(5):
        out += [think(t), dict(c)]
    return out, "one real thought restated before each of 5 identical calls with identical results"


LOOPS = {
    "verbatim-failure": verbatim_failure,
    "counters-failure": counters_failure,
    "cosmetic-echo": cosmetic_echo,
    "url-echo": url_echo,
    "ab-cycle": ab_cycle,
    "view-cycle": view_cycle,
    "reasoning-loop": reasoning_loop,
}

# ---- legitimate look-alikes ------------------------------------------------------------------------------

PAGE = 12


def paging_forward(ev: list[Event]) -> tuple[list[Event], str]:
    """The session's real output text paged forward, the same sentence of thought before every page."""
    lines = real_lines(ev)
    like = shell_calls(ev)[0]
    name = R.choice(("docs/CHANGELOG.md", "src/main/module.py", "logs/build.log", "tests/test_core.py"))
    sentence = R.choice(
        (
            "Let me keep scrolling to find the relevant part.",
            "Continuing to read the file.",
            "I have not yet found the part of the file that handles this case. I will scroll down to see the next lines of the file, "
            "since the function we need to change is probably defined further down, and then I will decide how to edit it.",
        )
    )
    out: list[Event] = []
    pages = min(8, max(4, len(lines) // PAGE))
    for p in range(pages):
        chunk = lines[p * PAGE : (p + 1) * PAGE] or [f"{p * PAGE + 1}: (end of file)"]
        out += [think(sentence), call(f"sed -n '{p * PAGE + 1},{(p + 1) * PAGE}p' {name}", "\n".join(chunk), 0, like)]
    return (
        out,
        f"the session's own output text read forward page by page ({pages} pages), the same sentence of thought before each",
    )


def polling_progress(ev: list[Event]) -> tuple[list[Event], str]:
    """One status command polled 7 times while its output grows by real lines."""
    lines = real_lines(ev)
    like = shell_calls(ev)[0]
    cmd = R.choice(("tail -n 40 build.log", "cat progress.txt", "kubectl logs job/migrate --tail=40"))
    step = max(2, min(6, len(lines) // 8))
    out = [call(cmd, "\n".join(lines[: step * (k + 1)][-40:]), 0, like) for k in range(7)]
    return out, f"`{cmd}` polled 7 times; each poll shows {step} new real lines"


def edit_test(ev: list[Event]) -> tuple[list[Event], str]:
    """Edit, then the same test command, 5 rounds; each edit differs and the failures shrink."""
    lines = real_lines(ev)
    like = shell_calls(ev)[0]
    test = R.choice(("python -m pytest -x -q tests/", "npm test", "go test ./...", "cargo test"))
    failing = [f"FAILED tests/test_{R.choice(('core', 'api', 'model'))}.py::test_{i}" for i in range(5)]
    out: list[Event] = []
    for r in range(5):
        new = lines[r % max(1, len(lines))] if lines else f"value = {r}"
        out.append(
            {
                "t": "call",
                "tool": "edit",
                "args": {"file_path": "src/module.py", "old_string": f"# step {r}", "new_string": new[:120]},
                "output": "The file src/module.py has been updated.",
            }
        )
        left = failing[r:]
        text = "\n".join(left) + f"\n{len(left)} failed, {10 + r} passed" if left else f"{15} passed"
        out.append(call(test, text, 1 if left else 0, like))
    return out, "five edit -> test rounds; every edit differs and the set of failing tests shrinks to none"


def retry_transient(ev: list[Event]) -> tuple[list[Event], str]:
    """A real call failing twice on a transient error, then succeeding with its real output."""
    c = R.choice([e for e in shell_calls(ev) if not failed(e)] or shell_calls(ev))
    errs = (
        "error: connection reset by peer",
        "fatal: unable to access remote: Could not resolve host",
        "Temporary failure in name resolution",
    )
    out = [
        {**c, "output": R.choice(errs), "exit": 1},
        {**c, "output": "error: operation timed out after 30000 ms", "exit": 1},
        dict(c),
    ]
    return out, "a real call retried after two different transient errors, then succeeding"


LEGIT = {
    "paging-forward": paging_forward,
    "polling-progress": polling_progress,
    "edit-test": edit_test,
    "retry-transient": retry_transient,
}
LEGIT_PER_CLASS = 16


def write_case(
    out: Path,
    n: int,
    cls: str,
    expected: str,
    base: str,
    ev: list[Event],
    make: Callable[[list[Event]], tuple[list[Event], str]],
) -> None:
    head = opening(ev)
    stretch, how = make(ev)
    meta: Event = {
        "t": "meta",
        "name": f"loops/{cls}/{base.removesuffix('.jsonl')}",
        "source": f"tests/data/real/{base}",
        "expected": expected,
        "notes": f"the opening of {base} (real), then {how}",
    }
    if expected == "loop":
        meta["judge_from"] = len(head)
    lines = [meta, *head, *stretch]
    (out / f"loop-{n:03d}-{cls}.jsonl" if expected == "loop" else out / f"legit-{n:03d}-{cls}.jsonl").write_text(
        "".join(json.dumps(e, ensure_ascii=False) + "\n" for e in lines), encoding="utf-8"
    )


def main(out: Path = HERE) -> None:
    """Write every case into `out` (this folder), the same files on every run."""
    R.seed(SEED)
    for old in out.glob("*.jsonl"):
        old.unlink()
    pool = bases()
    n = 0
    for cls, make in LOOPS.items():
        for i in range(PER_CLASS):
            name, ev = pool[(n + i * 7) % len(pool)]
            write_case(out, n, cls, "loop", name, ev, make)
            n += 1
    for cls, make in LEGIT.items():
        for i in range(LEGIT_PER_CLASS):
            name, ev = pool[(n + i * 5) % len(pool)]
            write_case(out, n, cls, "no_loop", name, ev, make)
            n += 1


if __name__ == "__main__":
    main()
