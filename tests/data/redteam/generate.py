# ruff: noqa: E501
"""Writes the red-team corpus: invented, labelled traces of legitimate repetitive work and real loops.

Run `python tests/data/redteam/generate.py` to rewrite the `*.jsonl` files beside it. Every case is
invented for this project; the shapes follow what coding agents really do (SWE-agent file viewers,
Gemini CLI's `run_shell_command`, Cline's `execute_command`, pytest/jest/cargo/go output with
durations, timestamps and ids that change from run to run).
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
R = random.Random(8)
CASES: list[tuple[str, str, str, list[dict[str, Any]]]] = []


def case(slug: str, name: str, expected: str, events: list[dict[str, Any]]) -> None:
    CASES.append((slug, name, expected, events))


def call(
    tool: str,
    args: dict[str, Any],
    output: str = "",
    exit: int | None = None,
    error: bool = False,
    agent: str | None = None,
) -> dict[str, Any]:
    e: dict[str, Any] = {"t": "call", "tool": tool, "args": args, "output": output}
    if exit is not None:
        e["exit"] = exit
    if error:
        e["error"] = True
    if agent:
        e["agent"] = agent
    return e


def sh(cmd: str, output: str = "", exit: int = 0, tool: str = "bash", agent: str | None = None) -> dict[str, Any]:
    return call(tool, {"command": cmd}, output, exit, agent=agent)


def think(text: str) -> dict[str, Any]:
    return {"t": "think", "text": text}


def user(text: str) -> dict[str, Any]:
    return {"t": "user", "text": text}


def ts() -> str:
    return f"2026-11-{R.randint(10, 28)}T{R.randint(0, 23):02d}:{R.randint(0, 59):02d}:{R.randint(0, 59):02d}Z"


def dur() -> str:
    return f"{R.randint(1, 300) / 100:.2f}s"


def hexid(n: int = 12) -> str:
    return "".join(R.choice("0123456789abcdef") for _ in range(n))


def edit(path: str, old: str, new: str, tool: str = "edit") -> dict[str, Any]:
    return call(tool, {"file_path": path, "old_string": old, "new_string": new}, f"Edited {path}")


def view(path: str, a: int, b: int, body: str | None = None) -> dict[str, Any]:
    out = body if body is not None else "\n".join(f"{i:6d}\t{_line(path, i)}" for i in range(a, b + 1))
    return call(
        "str_replace_editor",
        {"command": "view", "path": path, "view_range": [a, b]},
        f"Here's the result of running `cat -n` on {path}:\n{out}",
    )


def _line(path: str, i: int) -> str:
    words = ["self", "value", "result", "config", "items", "key", "node", "ctx", "buf", "idx"]
    r = random.Random(f"{path}:{i}")
    return f"    {r.choice(words)} = {r.choice(words)}.{r.choice(words)}({r.choice(words)})  # {i}"


# ---------------------------------------------------------------- legitimate work
def legit() -> None:
    # 1. pytest TDD with a different failure each round
    ev: list[dict[str, Any]] = [user("make the slugify tests pass")]
    fails = ["test_spaces", "test_unicode", "test_punctuation", "test_leading_dash", "test_max_len", "test_empty"]
    for k in range(len(fails)):
        left = fails[k:]
        out = "".join(f"FAILED tests/test_slug.py::{f} - AssertionError\n" for f in left)
        out += f"{len(left)} failed, {12 - len(left)} passed in {dur()}"
        ev.append(sh("python -m pytest -q tests/test_slug.py", out, 1))
        ev.append(edit("src/slug.py", f"# TODO {k}", f"handle case {k}"))
    ev.append(sh("python -m pytest -q tests/test_slug.py", f"12 passed in {dur()}", 0))
    case("legit-pytest-tdd", "pytest TDD: one failing test fixed per round, then green", "no_loop", ev)

    # 2. jest through run_shell_command, failures change
    ev = [user("fix the cart reducer")]
    for k in range(5):
        out = (
            f"FAIL src/cart.test.ts ({dur()})\n  ● cart › {['adds', 'removes', 'totals', 'discounts', 'clears'][k]}"
            f"\n\nTests: {5 - k} failed, {k + 14} passed, 19 total\nTime: {dur()}"
        )
        ev.append(sh("npx jest src/cart.test.ts", out, 1, tool="run_shell_command"))
        ev.append(
            call(
                "replace",
                {"file_path": "src/cart.ts", "old_string": f"case {k}", "new_string": f"case {k}:"},
                "Successfully modified file: src/cart.ts (1 replacements).",
            )
        )
    ev.append(
        sh(
            "npx jest src/cart.test.ts",
            f"PASS src/cart.test.ts ({dur()})\nTests: 19 passed, 19 total",
            0,
            tool="run_shell_command",
        )
    )
    case("legit-jest-gemini-tools", "jest TDD through run_shell_command/replace (Gemini CLI tools)", "no_loop", ev)

    # 3. cargo build fixed one error at a time (execute_command, Cline-style)
    ev = [user("make it compile")]
    errs = [
        "E0425]: cannot find value `cfg` in this scope",
        "E0308]: mismatched types",
        "E0599]: no method named `len`",
        "E0433]: failed to resolve: use of undeclared crate",
        "E0382]: borrow of moved value: `buf`",
    ]
    for k, e in enumerate(errs):
        out = f"   Compiling parser v0.3.1 (/work/parser)\nerror[{e}\n  --> src/lib.rs:{40 + 7 * k}:9\nerror: could not compile `parser` (lib) due to {5 - k} previous errors"
        ev.append(sh("cargo build", out, 101, tool="execute_command"))
        ev.append(call("write_to_file", {"path": "src/lib.rs", "content": f"// revision {k}\n"}, "File written"))
    ev.append(
        sh(
            "cargo build",
            f"   Compiling parser v0.3.1 (/work/parser)\n    Finished dev [unoptimized] target(s) in {dur()}",
            0,
            tool="execute_command",
        )
    )
    ev.append(sh("cargo test", f"test result: ok. 31 passed; 0 failed; finished in {dur()}", 0, tool="execute_command"))
    case("legit-cargo-one-error-at-a-time", "cargo build fixed one error at a time (execute_command)", "no_loop", ev)

    # 4. go test with changing failures and go vet in between
    ev = [user("fix the ring buffer")]
    for k in range(5):
        out = f"--- FAIL: TestRing/{['wrap', 'grow', 'pop', 'peek', 'len'][k]} (0.00s)\n    ring_test.go:{30 + k * 9}: got {k}, want {k + 1}\nFAIL\nFAIL\tgithub.com/acme/ring\t{dur()}"
        ev.append(sh("go test ./...", out, 1))
        ev.append(edit("ring.go", f"r.n{k}", f"r.n{k + 1}"))
        ev.append(sh("go vet ./...", "", 0))
    ev.append(sh("go test ./...", f"ok  \tgithub.com/acme/ring\t{dur()}", 0))
    case("legit-go-test-vet", "go test with a different failing subtest each round, go vet between", "no_loop", ev)

    # 5. C build fixed one error at a time with gcc (same error code, different symbols)
    ev = [user("build the daemon")]
    syms = ["sockaddr_in", "htons", "inet_pton", "getaddrinfo", "freeaddrinfo", "SO_REUSEADDR"]
    for k, s in enumerate(syms):
        out = f"gcc -O2 -Wall -c src/net.c -o build/net.o\nsrc/net.c:{20 + k * 4}:5: error: '{s}' undeclared (first use in this function)\nmake: *** [Makefile:12: build/net.o] Error 1"
        ev.append(sh("make", out, 2))
        ev.append(edit("src/net.c", f"#include <stdio.h>{k}", f"#include <netinet/in.h>{k}"))
    ev.append(sh("make", "gcc -O2 -Wall -o build/netd build/net.o build/main.o", 0))
    case(
        "legit-gcc-one-symbol-at-a-time",
        "C build: a new undeclared symbol each time, fixed one at a time",
        "no_loop",
        ev,
    )

    # 6. linter re-run after fixes, counts dropping
    ev = [user("clean up lint")]
    for k in range(6, 0, -1):
        out = (
            "\n".join(f"src/app.py:{10 * j + k}:1: F401 `os` imported but unused" for j in range(k))
            + f"\nFound {k} errors."
        )
        ev.append(sh("ruff check src/", out, 1))
        ev.append(edit("src/app.py", f"import os  # {k}", ""))
    ev.append(sh("ruff check src/", "All checks passed!", 0))
    ev.append(sh("ruff check src/", "All checks passed!", 0))
    case("legit-ruff-rerun", "linter re-run after each fix, then confirmed twice", "no_loop", ev)

    # 7. git status / diff between commits
    ev = [user("split this into small commits")]
    for k in range(6):
        ev.append(edit(f"src/m{k}.py", "x", "y"))
        ev.append(sh("git status --short", f" M src/m{k}.py", 0))
        ev.append(sh("git diff --stat", f" src/m{k}.py | 2 +-\n 1 file changed, 1 insertion(+), 1 deletion(-)", 0))
        ev.append(
            sh(
                f"git add src/m{k}.py && git commit -m 'm{k}: tidy'",
                f"[main {hexid(7)}] m{k}: tidy\n 1 file changed",
                0,
            )
        )
        ev.append(sh("git status --short", "", 0))
    ev.append(sh("git log --oneline -6", "\n".join(f"{hexid(7)} m{k}: tidy" for k in range(6)), 0))
    case("legit-git-status-between-commits", "git status / diff / commit six times", "no_loop", ev)

    # 8. polling a CI job whose progress moves
    ev = [user("wait for the pipeline")]
    for st in ["queued", "running 10%", "running 35%", "running 60%", "running 80%", "running 95%", "success"]:
        ev.append(sh("sleep 30", "", 0))
        ev.append(
            sh(
                "curl -s https://ci.example.com/api/v4/pipelines/48213",
                json.dumps({"id": 48213, "status": st, "updated_at": ts(), "request_id": hexid(16)}),
                0,
            )
        )
    case("legit-poll-ci-progress", "polling a CI pipeline every 30 s while its status moves", "no_loop", ev)

    # 9. reading a big file forward in pages (read_file, 25 pages of 100 lines)
    ev = [user("summarise what this migration log says")]
    for k in range(25):
        a = 1 + 100 * k
        ev.append(
            call(
                "read_file",
                {"absolute_path": "/srv/logs/migrate-2026-11-30.log", "offset": a - 1, "limit": 100},
                "\n".join(f"[{ts()}] step {a + j}: migrated table t_{a + j}" for j in range(0, 100, 25)),
            )
        )
    case("legit-read-big-file-forward", "reading a 2,500-line log forward in 25 pages", "no_loop", ev)


def legit_more() -> None:
    """The legitimate cases 10 to 14 (written after `legit`, in this order, from the same random stream)."""
    # 10. str_replace_editor view forward through a long file, 22 windows
    ev = [user("find where the tokenizer handles escapes")]
    for k in range(22):
        ev.append(view("/repo/src/tokenizer.py", 1 + 50 * k, 50 + 50 * k))
    case("legit-view-forward-22-windows", "str_replace_editor viewing a long file forward, 22 windows", "no_loop", ev)

    # 11. 429 / 503 retry with backoff inside the command
    ev = [user("download the dataset index")]
    for d in [2, 4, 8, 16]:
        ev.append(
            sh(
                f"sleep {d} && curl -sS -w '%{{http_code}}' https://api.example.org/v2/index.json",
                f'{{"error":"rate limited","retry_after":{d * 2},"trace":"{hexid(12)}"}}429',
                0,
            )
        )
    ev.append(
        sh("sleep 32 && curl -sS -w '%{http_code}' https://api.example.org/v2/index.json", '{"files": 412}200', 0)
    )
    case("legit-429-backoff-inline", "429 retried with growing backoff in `sleep N && curl`", "no_loop", ev)

    # 12. 503 retries where the sleep is its own call, same error text each time
    ev = [user("push the image")]
    for d in [5, 10, 20, 40]:
        ev.append(
            sh(
                "docker push registry.example.com/acme/api:1.4.2",
                "The push refers to repository [registry.example.com/acme/api]\nreceived unexpected HTTP status: 503 Service Unavailable",
                1,
            )
        )
        ev.append(sh(f"sleep {d}", "", 0))
    ev.append(sh("docker push registry.example.com/acme/api:1.4.2", f"1.4.2: digest: sha256:{hexid(64)} size: 1789", 0))
    case("legit-503-backoff", "docker push 503, retried with doubling sleeps, then succeeds", "no_loop", ev)

    # 13. greps with no match through run_shell_command
    ev = [user("where is the retry budget configured?")]
    for p in ["retry_budget", "retryBudget", "RETRY_BUDGET", "max_retries", "backoff_cap", "RetryPolicy"]:
        ev.append(sh(f"grep -rn '{p}' src/", "", 1, tool="run_shell_command"))
    ev.append(sh("grep -rn 'retries' src/", "src/http/client.ts:88:  retries: 3,", 0, tool="run_shell_command"))
    case(
        "legit-grep-no-match-gemini",
        "six greps with no match (exit 1) via run_shell_command, then a hit",
        "no_loop",
        ev,
    )

    # 14. same command in different directories (monorepo), each failing differently
    ev = [user("run the tests in every package")]
    for pkg in ["core", "cli", "web", "api", "sdk", "docs"]:
        ok = pkg in ("docs", "cli")
        out = (
            f"> @acme/{pkg}@1.0.0 test\n> vitest run\n\n Test Files  {'4 passed' if ok else '1 failed | 3 passed'} (4)\n"
            f"      Tests  {R.randint(10, 40)} passed\n   Duration  {dur()}"
        )
        if not ok:
            out += f"\n FAIL  src/{pkg}.test.ts > {pkg} handles empty input"
        ev.append(sh(f"cd packages/{pkg} && npm test", out, 0 if ok else 1))
    case("legit-same-command-per-package", "`cd packages/X && npm test` in six packages", "no_loop", ev)


def legit_late() -> None:
    """The legitimate cases 15 to 18 (written after `legit_more`, from the same random stream)."""
    # 15. ls after creating files
    ev = [user("scaffold the handlers")]
    for k, n in enumerate(["users", "orders", "items", "carts", "auth", "health"]):
        ev.append(call("write", {"file_path": f"src/handlers/{n}.ts", "content": f"export const {n} = 1;\n"}, "ok"))
        ev.append(
            sh(
                "ls src/handlers",
                "\n".join(f"{x}.ts" for x in ["users", "orders", "items", "carts", "auth", "health"][: k + 1]),
                0,
            )
        )
    case("legit-ls-after-create", "`ls` after creating each of six files", "no_loop", ev)

    # 16. repeated cat of a file edited in between
    ev = [user("tune the nginx config")]
    for k in range(6):
        ev.append(
            sh(
                "cat deploy/nginx.conf",
                f"worker_processes {k + 1};\nevents {{ worker_connections {1024 * (k + 1)}; }}",
                0,
            )
        )
        ev.append(edit("deploy/nginx.conf", f"worker_processes {k + 1};", f"worker_processes {k + 2};"))
    ev.append(sh("cat deploy/nginx.conf", "worker_processes 7;", 0))
    case("legit-cat-after-edit", "`cat` of a config edited between each read", "no_loop", ev)

    # 17. subagents doing similar work
    ev = [user("audit each service for hard-coded secrets")]
    for svc in ["billing", "search", "notify", "auth"]:
        for pat in ["AKIA", "password=", "BEGIN RSA"]:
            ev.append(sh(f"grep -rn '{pat}' services/{svc}", "", 1, agent=f"audit-{svc}"))
        ev.append(
            sh(f"cat services/{svc}/config.yaml", f"name: {svc}\nport: {8000 + len(svc)}", 0, agent=f"audit-{svc}")
        )
    case("legit-subagents-similar", "four subagents run the same three greps and a cat", "no_loop", ev)

    # 18. SWE-agent style edit -> reproduce cycle, identical failure twice while trying different fixes
    ev = [user("Fix: Decimal field rounds half-even instead of half-up")]
    ev.append(view("/repo/django/db/models/fields/__init__.py", 1540, 1600))
    outs = ["Decimal('2.4')", "Decimal('2.4')", "TypeError: quantize() argument must be Decimal", "Decimal('2.5')"]
    for k, o in enumerate(outs):
        ev.append(
            call(
                "str_replace_editor",
                {
                    "command": "str_replace",
                    "path": "/repo/django/db/models/fields/__init__.py",
                    "old_str": f"rounding={k}",
                    "new_str": f"rounding={k + 1}",
                },
                "The file has been edited.",
            )
        )
        ev.append(sh("python reproduce.py", o, 1 if "Error" in o else 0))
    ev.append(sh("python -m pytest tests/model_fields/test_decimalfield.py -q", f"41 passed in {dur()}", 0))
    case(
        "legit-swe-edit-reproduce",
        "SWE-agent edit -> reproduce.py cycle until the fix prints the right value",
        "no_loop",
        ev,
    )

    # 19. docker compose health polling that changes
    ev = [user("bring the stack up")]
    ev.append(sh("docker compose up -d", "Container db Started\nContainer api Started", 0))
    for st in ["starting", "starting", "starting", "healthy"]:
        ev.append(sh("sleep 5", "", 0))
        ev.append(sh("docker inspect --format '{{.State.Health.Status}}' acme-db-1", st, 0))
    case("legit-health-poll", "waiting for a container to turn healthy, starting x3 then healthy", "no_loop", ev)

    # 20. tests fixed one by one by node id
    ev = [user("fix the parser tests")]
    for k in range(1, 7):
        ev.append(
            sh(
                f"pytest -x tests/test_parse.py::test_case_{k}",
                f"FAILED tests/test_parse.py::test_case_{k} - assert None == 'x'\n1 failed in {dur()}",
                1,
            )
        )
        ev.append(edit("parse.py", f"v{k}", f"v{k + 1}"))
        ev.append(sh(f"pytest -x tests/test_parse.py::test_case_{k}", f"1 passed in {dur()}", 0))
    case("legit-node-ids", "tests fixed one by one by node id", "no_loop", ev)

    # 21. structured reasoning: checklist, table, numbered steps, similar asserts, code
    rows = "\n".join(
        f"| {k} | `parse_duration('{k}{u}')` | {k * m} | {'ok' if k % 3 else 'check overflow'} |"
        for k in range(1, 40)
        for u, m in [("s", 1)]
    )
    asserts = "\n".join(f"    assert parse_duration('{k}m') == {k * 60}" for k in range(1, 30))
    steps = "\n".join(
        f"{k}. Check that `{f}` handles {w} input and update the docstring."
        for k, (f, w) in enumerate(
            [
                (f, w)
                for f in ["parse_duration", "format_duration", "to_seconds", "from_iso"]
                for w in ["empty", "negative", "huge", "unicode"]
            ],
            1,
        )
    )
    text = (
        "Plan before touching the code.\n\n"
        + steps
        + "\n\nExpected values:\n\n| n | call | seconds | note |\n|---|---|---|---|\n"
        + rows
        + "\n\nThe tests I will add:\n\n```python\ndef test_minutes():\n"
        + asserts
        + "\n```\n\nChecklist:\n"
        + "\n".join(
            f"- [ ] {f}: docstring, type hints, edge cases"
            for f in ["parse_duration", "format_duration", "to_seconds", "from_iso", "humanize"]
        )
    )
    ev = [
        user("harden the duration helpers"),
        {"t": "request"},
        think(text),
        call("read", {"file_path": "src/duration.py"}, "def parse_duration(s): ..."),
        {"t": "request"},
        think("Now the edits, one function at a time."),
        edit("src/duration.py", "...", "pass"),
    ]
    case(
        "legit-structured-reasoning",
        "long reasoning with numbered steps, a 39-row table, 29 similar asserts, a checklist",
        "no_loop",
        ev,
    )

    # 22. reasoning that writes a whole config file in a code block with repeated stanzas
    stanzas = "\n".join(
        f"  - name: worker-{k}\n    image: acme/worker:1.9\n    replicas: 2\n    env:\n      - QUEUE=q{k}\n      - LOG_LEVEL=info"
        for k in range(24)
    )
    ev = [
        user("generate the worker manifest"),
        {"t": "request"},
        think(
            "I will write the manifest with one stanza per queue:\n\n```yaml\nworkers:\n"
            + stanzas
            + "\n```\n\nThat covers all 24 queues."
        ),
        call("write", {"file_path": "deploy/workers.yaml", "content": "workers: []"}, "ok"),
    ]
    case(
        "legit-reasoning-yaml-stanzas", "reasoning drafts a YAML manifest with 24 near-identical stanzas", "no_loop", ev
    )

    # 23. npm build fixing TypeScript errors, output carries clock times
    ev = [user("fix the type errors")]
    for k in range(6, 0, -1):
        out = (
            f"[{R.randint(10, 23)}:{R.randint(10, 59)}:{R.randint(10, 59)}] Starting compilation...\n"
            + "\n".join(
                f"src/view{j}.ts({j * 3 + 4},7): error TS2322: Type 'string' is not assignable to type 'number'."
                for j in range(k)
            )
            + f"\nFound {k} errors."
        )
        ev.append(sh("npx tsc --noEmit", out, 2))
        ev.append(edit(f"src/view{k - 1}.ts", "id: string", "id: number"))
    ev.append(sh("npx tsc --noEmit", "", 0))
    case("legit-tsc-countdown", "tsc errors fixed one per round (error count falls)", "no_loop", ev)

    # 24. mixed SWE-agent exploration: many different views, one file re-viewed after an edit
    ev = [user("Fix: `sort_by` drops None keys")]
    files = ["utils/sorting.py", "utils/keys.py", "core/table.py", "core/query.py", "tests/test_sorting.py"]
    for f in files:
        ev.append(view(f"/repo/{f}", 1, 60))
    ev.append(sh("grep -rn 'def sort_by' /repo", "/repo/utils/sorting.py:41:def sort_by(rows, key):", 0))
    ev.append(view("/repo/utils/sorting.py", 35, 80))
    ev.append(
        call(
            "str_replace_editor",
            {
                "command": "str_replace",
                "path": "/repo/utils/sorting.py",
                "old_str": "if k",
                "new_str": "if k is not None",
            },
            "The file has been edited.",
        )
    )
    ev.append(view("/repo/utils/sorting.py", 35, 80, "41 def sort_by(rows, key):\n42     if k is not None:"))
    ev.append(sh("python -m pytest -q /repo/tests/test_sorting.py", f"9 passed in {dur()}", 0))
    ev.append(sh("git diff", "-    if k:\n+    if k is not None:", 0))
    case("legit-swe-explore-fix", "SWE-agent exploration, one fix, re-view after the edit, tests", "no_loop", ev)


def legit2() -> None:
    """Second round: legitimate work close to the rules added after the first round."""
    # identical Dockerfiles in several services, read one by one
    docker = 'FROM python:3.12-slim\nWORKDIR /app\nCOPY requirements.txt .\nRUN pip install -r requirements.txt\nCOPY . .\nCMD ["python", "-m", "app"]'
    ev = [user("are the service images consistent?")]
    for svc in ["billing", "search", "notify", "auth", "gateway", "reports"]:
        ev.append(sh(f"cat services/{svc}/Dockerfile", docker, 0))
    case("legit-identical-files", "six services' identical Dockerfiles read one by one", "no_loop", ev)

    # health of several services returning the same long JSON
    body = json.dumps({"status": "ok", "checks": {"db": "ok", "cache": "ok", "queue": "ok"}, "uptime_s": 86400})
    ev = [user("check every service is healthy")]
    for svc in ["users", "orders", "billing", "search", "notify", "auth"]:
        ev.append(sh(f"curl -s https://{svc}.internal.example.com/healthz", body, 0, tool="run_shell_command"))
    case("legit-health-six-services", "six services' health endpoints return the same JSON", "no_loop", ev)

    # SWE-agent viewer scrolling forward through a long file, imported as offset-only reads
    ev = [user("Fix: `to_csv` drops the index name")]
    for k in range(24):
        ev.append(
            call(
                "read",
                {"file_path": "/repo/pandas/io/formats/csvs.py", "offset": 1 + 100 * k},
                f"[File: /repo/pandas/io/formats/csvs.py (2400 lines total)]\n({100 * k} more lines above)\n{_line('csvs', 100 * k)}",
            )
        )
    case(
        "legit-swe-scroll-forward", "SWE-agent scroll_down through a 2,400-line file, 24 windows forward", "no_loop", ev
    )

    # TDD with the runner's output piped through tail
    ev = [user("fix the date parser")]
    outs = [
        "FAILED tests/test_dates.py::test_iso - ValueError: month must be in 1..12\n1 failed, 20 passed",
        "FAILED tests/test_dates.py::test_iso - ValueError: month must be in 1..12\n1 failed, 20 passed",
        "FAILED tests/test_dates.py::test_tz - AssertionError: tzinfo is None\n1 failed, 20 passed",
        "21 passed",
    ]
    for k, o in enumerate(outs):
        ev.append(sh("python -m pytest -q tests/test_dates.py 2>&1 | tail -20", f"{o} in {dur()}", 0))
        if k < 3:
            ev.append(edit("src/dates.py", f"m{k}", f"m{k + 1}"))
    case("legit-tdd-piped-tail", "pytest piped through tail in an edit -> run cycle", "no_loop", ev)

    # flakiness check: the same test run three times on purpose
    ev = [user("is test_timeout flaky?")]
    for _ in range(3):
        ev.append(sh("pytest -q tests/test_net.py::test_timeout -p no:randomly", f"1 passed in {dur()}", 0))
    ev.append(sh("pytest -q tests/test_net.py::test_timeout --count 20", f"20 passed in {dur()}", 0))
    case("legit-flaky-rerun", "one test re-run three times to check for flakiness", "no_loop", ev)

    # reasoning: a step-by-step numeric derivation
    steps = "\n".join(
        f"Step {k}: the buffer after {k} doublings holds {2**k} KiB, which is {'under' if 2**k < 4096 else 'over'} the 4 MiB cap."
        for k in range(1, 36)
    )
    ev = [
        user("how many doublings before we hit the cap?"),
        {"t": "request"},
        think("Let me work it out step by step.\n" + steps + "\nSo the 12th doubling reaches the cap."),
        {"t": "answer", "text": "The 12th doubling reaches 4 MiB."},
    ]
    case("legit-reasoning-derivation", "reasoning doubles a number step by step, 35 similar lines", "no_loop", ev)

    # reasoning: a per-file review list
    files = [
        f"src/handlers/{n}.ts"
        for n in [
            "users",
            "orders",
            "items",
            "carts",
            "auth",
            "health",
            "search",
            "admin",
            "export",
            "import",
            "billing",
            "coupons",
            "reviews",
            "media",
            "settings",
            "audit",
            "reports",
            "tags",
        ]
    ]
    text = "Files to review, one concern each:\n" + "\n".join(
        f"- {f}: check that the request body is validated before it reaches the service layer." for f in files
    )
    ev = [
        user("review the handlers"),
        {"t": "request"},
        think(text + "\nI will start with users."),
        call("read", {"file_path": files[0]}, "export const users = ..."),
    ]
    case("legit-reasoning-review-list", "reasoning lists 18 files with the same review note", "no_loop", ev)


# ---------------------------------------------------------------- loops
def cycle_case(slug: str, name: str, unit: list[dict[str, Any]], passes: int, lead: list[dict[str, Any]]) -> None:
    ev = [user("Fix the bug described in the issue"), *lead]
    for _ in range(passes):
        ev.extend(json.loads(json.dumps(unit)))
    case(slug, name, "loop", ev)


def loops() -> None:
    f = "/repo/astropy/io/fits/card.py"
    unit7 = [view(f, a, a + 40) for a in (1, 120, 300, 560, 800, 1010, 1240)]
    cycle_case(
        "loop-view-cycle-p7",
        "str_replace_editor view cycle of period 7, identical outputs, 4 passes",
        unit7,
        4,
        [sh("find /repo -name card.py", f, 0)],
    )

    g = "/repo/sympy/core/basic.py"
    unit12 = [
        call(
            "read_file", {"absolute_path": g, "offset": o, "limit": 60}, f"-- {g} lines {o}-{o + 60} --\n" + _line(g, o)
        )
        for o in (0, 200, 400, 650, 900, 1100, 1300)
    ]
    unit12 += [
        sh(f"grep -n '{w}' {g}", f"{R.randint(10, 900)}:    def {w}(self):", 0)
        for w in ("_eval_subs", "xreplace", "atoms")
    ]
    unit12 += [
        call("read_file", {"absolute_path": "/repo/sympy/core/expr.py", "offset": o, "limit": 80}, f"expr lines {o}")
        for o in (0, 500)
    ]
    cycle_case("loop-read-grep-cycle-p12", "read_file/grep cycle of period 12 over two files, 3 passes", unit12, 3, [])

    h = "/repo/requests/sessions.py"
    unit17 = [view(h, a, a + 30) for a in range(100, 100 + 17 * 35, 35)]
    cycle_case("loop-view-cycle-p17", "view cycle of period 17 with identical outputs, 3 passes", unit17, 3, [])

    unit2 = [sh("cat src/a.py", "def a():\n    return b()", 0), sh("cat src/b.py", "def b():\n    return a()", 0)]
    cycle_case("loop-cat-ab", "cat a.py / cat b.py alternating, 8 rounds", unit2, 8, [])

    unit5 = [
        sh("git log -1 --format=%H", hexid(40), 0),
        view("/repo/setup.py", 1, 40),
        sh("pip show numpy", "Name: numpy\nVersion: 1.26.4", 0),
        view("/repo/pkg/__init__.py", 1, 30),
        sh("python -c 'import pkg; print(pkg.__version__)'", "0.0.0.dev0", 0),
    ]
    cycle_case("loop-cycle-p5-mixed", "period-5 cycle of views and shell checks, 5 passes", unit5, 5, [])

    # scrolling back and forth 10 lines at a time with the viewer, no edits, 46 calls
    ev = [user("Fix: the legend ignores `ncols`")]
    p = "/repo/lib/matplotlib/legend.py"
    pos = 400
    for k in range(46):
        ev.append(view(p, pos, pos + 9))
        pos += 10 if (k // 6) % 2 == 0 else -10
    case(
        "loop-scroll-back-forth",
        "viewer scrolls one file back and forth 10 lines at a time, 46 calls, no edit",
        "loop",
        ev,
    )

    # scrolling with sed -n, forward then back, 44 calls
    ev = [user("why does the loader hang?")]
    pos = 200
    for k in range(44):
        ev.append(
            sh(
                f"sed -n '{pos},{pos + 10}p' src/loader/queue.py",
                "\n".join(_line("q", i) for i in range(pos, pos + 11)),
                0,
            )
        )
        pos += 10 if (k // 5) % 2 == 0 else -10
    case("loop-sed-scroll", "`sed -n A,Bp` scrolling one file back and forth, 44 calls", "loop", ev)

    # same failing command with cosmetic variants
    ev = [user("make the test pass")]
    variants = [
        "pytest tests/test_io.py -q",
        "pytest -q tests/test_io.py",
        "cd /repo && pytest -q tests/test_io.py",
        "pytest -q  tests/test_io.py ",
        "pytest -q 'tests/test_io.py'",
        "pytest --quiet tests/test_io.py",
        "python -m pytest -q tests/test_io.py",
    ]
    for v in variants:
        ev.append(
            sh(
                v,
                f"FAILED tests/test_io.py::test_roundtrip - UnicodeDecodeError: 'utf-8' codec can't decode byte 0xff\n1 failed, 7 passed in {dur()}",
                1,
            )
        )
    case(
        "loop-cosmetic-pytest",
        "the same failing pytest with cosmetic variants (flag order, quotes, cd, spaces)",
        "loop",
        ev,
    )

    ev = [user("get the build green")]
    for v in [
        "npm run build",
        "npm run build ",
        "cd /app && npm run build",
        "npm run-script build",
        "npm run build --silent",
        "npm run build",
        "cd /app && npm run build",
    ]:
        ev.append(
            sh(
                v,
                f"[{R.randint(10, 23)}:0{R.randint(1, 9)}:1{R.randint(1, 9)}] vite v5.2.0 building for production...\nerror during build:\nCould not resolve './Chart' from src/App.tsx",
                1,
                tool="run_shell_command",
            )
        )
    case("loop-cosmetic-npm-gemini", "`npm run build` spelled differently, same error, run_shell_command", "loop", ev)

    ev = [user("run the service tests")]
    for _ in range(7):
        ev.append(
            sh(
                "go test -run TestServe ./server/...",
                f"--- FAIL: TestServe (0.{R.randint(10, 99)}s)\n    serve_test.go:41: dial tcp 127.0.0.1:{R.randint(30000, 60000)}: connect: connection refused\nFAIL",
                1,
                tool="execute_command",
            )
        )
    case("loop-verbatim-execute-command", "the same failing go test verbatim 7 times (execute_command)", "loop", ev)

    # failing edit retried
    ev = [user("rename the flag")]
    for old in [
        "  verbose = False",
        "    verbose = False",
        "verbose = False",
        "  verbose=False",
        " verbose = False ",
        "    verbose = False",
    ]:
        ev.append(
            call(
                "str_replace_editor",
                {"command": "str_replace", "path": "/repo/cli.py", "old_str": old, "new_str": "debug = False"},
                f"No replacement was performed, old_str `{old}` did not appear verbatim in /repo/cli.py.",
                error=True,
            )
        )
    case("loop-failing-str-replace", "str_replace retried with whitespace variants, never matches", "loop", ev)

    # monologue answers across steps (whitespace differs)
    ev = [user("is the migration done?")]
    for k in range(4):
        ev += [
            {"t": "request"},
            {
                "t": "answer",
                "text": "The migration has been applied successfully."
                + (" " if k % 2 else "")
                + "\nAll tables are up to date.",
            },
        ]
    case("loop-monologue-answers", "the same answer in four consecutive steps, no tool", "loop", ev)

    # the same plan restated each step, the same read each time
    plan = (
        "My plan: first I will open settings.py to find where CACHE_TTL is read, then I will check whether the "
        "environment variable overrides it, then I will update the default to 300 seconds and add a test in "
        "tests/test_settings.py that asserts the override works. Finally I will run the settings tests."
    )
    ev = [user("make the cache TTL configurable")]
    for k in range(5):
        ev += [
            {"t": "request"},
            think(plan + (" Let me start." if k % 2 else " Starting now.")),
            call("read", {"file_path": "app/settings.py"}, "CACHE_TTL = 60\n"),
        ]
    case("loop-restated-plan", "the same plan restated in reasoning each step, same read, nothing changes", "loop", ev)

    # reasoning loop paraphrased with counters
    para = [
        "Wait, let me re-check the offset calculation (pass {n}). The header is 16 bytes, so the payload starts at 16.",
        "Hmm, let me verify the offset once more (pass {n}). Header is 16 bytes, hence the payload begins at byte 16.",
        "Actually, let me double-check the offset (pass {n}). Since the header has 16 bytes the payload starts at 16.",
    ]
    ev = [
        user("why is the checksum wrong?"),
        {"t": "request"},
        think(" ".join(para[k % 3].format(n=k + 1) for k in range(90))),
    ]
    case(
        "loop-reasoning-paraphrased-counter",
        "reasoning re-checks one fact 90 times, paraphrased, with a counter",
        "loop",
        ev,
    )

    ev = [user("summarise"), {"t": "request"}, think("Summary so far: " + "🔥✨🚀💯 " * 120 + "✦✧✦✧ ═══ " * 60)]
    case("loop-emoji-symbol-flood", "emoji and symbol flood in reasoning", "loop", ev)

    # calls to a tool that does not exist
    ev = [user("find the handler")]
    for q in [
        "handler",
        "route handler",
        "def handle",
        "class Handler",
        "handlers/",
        "on_request",
        "dispatch",
        "router",
        "endpoint",
        "view func",
        "middleware",
        "controller",
        "urls.py",
    ]:
        ev.append(
            call(
                "search_codebase",
                {"query": q},
                'Error: Tool "search_codebase" not found in registry. Available tools: bash, read, edit, write.',
                error=True,
            )
        )
    case("loop-nonexistent-tool", "13 calls to a tool that does not exist, different queries", "loop", ev)

    # polling that never changes
    ev = [user("wait for the deployment")]
    for _ in range(12):
        ev.append(sh("sleep 20", "", 0))
        ev.append(
            sh(
                "kubectl rollout status deploy/api -n prod --timeout=5s",
                'Waiting for deployment "api" rollout to finish: 1 of 3 updated replicas are available...\nerror: timed out waiting for the condition',
                1,
            )
        )
    case("loop-poll-never-changes", "rollout status polled 12 times with the same sleep, never changes", "loop", ev)

    ev = [user("is the export finished?")]
    for _ in range(14):
        ev.append(
            sh(
                "curl -s https://api.example.com/v1/exports/exp_7Hq2",
                json.dumps({"id": "exp_7Hq2", "state": "pending", "checked_at": ts(), "request_id": hexid(24)}),
                0,
            )
        )
    case(
        "loop-poll-pending-ids",
        "export status polled 14 times, always pending, per-call ids and timestamps",
        "loop",
        ev,
    )

    # SWE-agent scroll_down / scroll_up alternation as bash calls
    ev = [user("Fix: `Q` objects lose negation when combined")]
    ev.append(
        sh(
            "open django/db/models/query_utils.py",
            '[File: /repo/django/db/models/query_utils.py (320 lines total)]\n1:"""',
            0,
        )
    )
    for k in range(30):
        d = "scroll_down" if (k // 3) % 2 == 0 else "scroll_up"
        ev.append(
            sh(
                d,
                f"[File: /repo/django/db/models/query_utils.py (320 lines total)]\n({100 * ((k % 6) if (k // 3) % 2 == 0 else 6 - k % 6)} more lines above)",
                0,
            )
        )
    case("loop-scroll-up-down", "SWE-agent scroll_down/scroll_up alternating 30 times, no edit", "loop", ev)

    # a subagent cycling period 3 while main does legit work
    ev = [user("investigate the flaky test")]
    for k in range(6):
        ev.append(sh(f"pytest -q tests/test_flaky.py::test_{k}", f"1 passed in {dur()}", 0))
        for c in [
            sh("cat conftest.py", "import pytest", 0, agent="helper"),
            sh("cat pytest.ini", "[pytest]\naddopts=-q", 0, agent="helper"),
            sh("ls tests", "test_flaky.py\nconftest.py", 0, agent="helper"),
        ]:
            ev.append(c)
    case("loop-subagent-cycle", "a subagent cycles through the same three reads while the main agent works", "loop", ev)


def legit3() -> None:
    """Third round: real attempts that fail alike before the one that works."""
    ev = [user("the importer test fails with a KeyError")]
    tries = [
        ("src/importer.py", "row['id']", "row.get('id')"),
        ("src/schema.py", "FIELDS = []", "FIELDS = ['id']"),
        ("src/mapping.py", "def map_row(r):", "def map_row(r: dict):"),
        ("src/reader.py", "csv.reader(f)", "csv.DictReader(f)"),
        ("src/importer.py", "for row in rows:", "for row in rows or []:"),
    ]
    for path, old, new in tries:
        ev.append(
            sh(
                "pytest -q tests/test_importer.py",
                "FAILED tests/test_importer.py::test_import - KeyError: 'sku'\n1 failed, 6 passed",
                1,
            )
        )
        ev.append(edit(path, old, new))
    ev.append(sh("pytest -q tests/test_importer.py", f"7 passed in {dur()}", 0))
    case(
        "legit-real-attempts-same-error",
        "five different real fixes fail with the same KeyError, the sixth run passes",
        "no_loop",
        ev,
    )


def codex(cmd: str, output: str, exit: int = 0) -> dict[str, Any]:
    """A Codex-style `shell` call: the command as an argv list run through `bash -lc`."""
    return call("shell", {"command": ["bash", "-lc", cmd], "workdir": "/work/repo"}, output, exit)


def legit4() -> None:
    """Fourth round: Codex-style argv commands and piped pagers."""
    ev = [user("explain how the scheduler picks a worker")]
    for k in range(24):
        a = 1 + 120 * k
        ev.append(
            codex(
                f"nl -ba src/scheduler.rs | sed -n '{a},{a + 119}p'",
                "\n".join(f"{a + j:6d}  {_line('sched', a + j)}" for j in range(0, 120, 30)),
            )
        )
    case("legit-codex-nl-sed-pages", "Codex-style `nl -ba f | sed -n A,Bp` reading forward, 24 pages", "no_loop", ev)

    ev = [user("fix the failing scheduler test")]
    for k, t in enumerate(["picks_idle", "skips_busy", "round_robin", "weights"]):
        ev.append(
            codex(
                "cargo test -q scheduler",
                f"test scheduler::{t} ... FAILED\nfailures:\n    scheduler::{t}\ntest result: FAILED. {k + 10} passed; 1 failed",
                101,
            )
        )
        ev.append(
            call(
                "apply_patch",
                {
                    "input": f"*** Begin Patch\n*** Update File: src/scheduler.rs\n@@\n-    v{k}\n+    v{k + 1}\n*** End Patch"
                },
                "Success. Updated the following files:\nM src/scheduler.rs",
            )
        )
    ev.append(codex("cargo test -q scheduler", "test result: ok. 14 passed; 0 failed", 0))
    case(
        "legit-codex-tdd",
        "Codex-style cargo test -> apply_patch cycle with a different failure each round",
        "no_loop",
        ev,
    )


def loops2() -> None:
    """Second round: loops the first-round rules missed or that sit near the new rules."""
    # the same failing test hidden behind a pipe (exit 0), cosmetic variants
    ev = [user("make the serializer test pass")]
    for v in [
        "pytest tests/test_ser.py 2>&1 | tail -20",
        "pytest -q tests/test_ser.py | tail -n 30",
        "python -m pytest tests/test_ser.py 2>&1 | tail -25",
        "pytest tests/test_ser.py -x 2>&1 | head -60",
        "cd /repo && pytest tests/test_ser.py | tail -20",
        "pytest tests/test_ser.py --tb=short 2>&1 | tail -20",
        "pytest tests/test_ser.py 2>&1 | tail -40",
    ]:
        ev.append(
            sh(
                v,
                f"FAILED tests/test_ser.py::test_roundtrip - KeyError: 'created_at'\n===== 1 failed, 11 passed in {dur()} =====",
                0,
            )
        )
    case(
        "loop-pipe-hidden-failure",
        "the same failing pytest behind `| tail`, seven cosmetic variants, exit 0",
        "loop",
        ev,
    )

    # monologue with a counter
    ev = [user("deploy when the build is green")]
    for k in range(4):
        ev += [
            {"t": "request"},
            {
                "t": "answer",
                "text": f"The build is still running (check {k + 1}). I will wait for it to finish before deploying.",
            },
        ]
    case("loop-monologue-counter", "the same waiting answer with a counter, four steps, no tool", "loop", ev)

    # imported SWE-agent goto back and forth, offset-only reads 10 lines apart
    ev = [user("Fix: `Model.save` ignores update_fields")]
    pos = 700
    for k in range(45):
        ev.append(
            call(
                "read",
                {"file_path": "/repo/django/db/models/base.py", "offset": pos},
                f"[File: /repo/django/db/models/base.py (2300 lines total)]\n({pos - 1} more lines above)\n{_line('base', pos)}",
            )
        )
        pos += 10 if (k // 4) % 2 == 0 else -10
    case(
        "loop-swe-goto-back-forth",
        "imported SWE-agent viewer moved back and forth 10 lines at a time, 45 calls",
        "loop",
        ev,
    )

    # whole-file views re-read between different greps, no edit
    ev = [user("where does the timeout come from?")]
    for pat in [
        "timeout",
        "TIMEOUT",
        "deadline",
        "expire",
        "ttl",
        "wait_for",
        "retry",
        "sleep",
        "poll",
        "interval",
        "backoff",
        "delay",
    ]:
        ev.append(
            call(
                "str_replace_editor",
                {"command": "view", "path": "/repo/net/client.py"},
                "1 import socket\n2 DEFAULT = 30\n3 def connect(): ...",
            )
        )
        ev.append(sh(f"grep -rn '{pat}' /repo/net", "", 1))
    case(
        "loop-whole-view-between-greps",
        "the whole file viewed again between twelve greps that find nothing",
        "loop",
        ev,
    )


def legit4b() -> None:
    """Codex-style edits through the shell (heredoc, `sed -i`) between runs that fail alike."""
    ev = [user("the tokenizer test keeps failing")]
    edits = [
        "cat > src/tok.py <<'EOF'\ndef split(s):\n    return s.split(' ')\nEOF",
        "sed -i 's/split(\\x27 \\x27)/split()/' src/tok.py",
        "cat >> src/tok.py <<'EOF'\ndef norm(s):\n    return s.strip()\nEOF",
        "python - <<'EOF'\nimport re,pathlib\np=pathlib.Path('src/tok.py')\np.write_text(p.read_text().replace('s.split()', 're.split(r\"\\s+\", s.strip())'))\nEOF",
    ]
    for e in edits:
        ev.append(
            codex(
                "pytest -q tests/test_tok.py",
                "F\nFAILED tests/test_tok.py::test_tabs - AssertionError: assert ['a\\tb'] == ['a', 'b']\n1 failed",
                1,
            )
        )
        ev.append(codex(e, "", 0))
    ev.append(codex("pytest -q tests/test_tok.py", f"3 passed in {dur()}", 0))
    case(
        "legit-codex-shell-edits",
        "Codex-style edits through the shell between runs failing alike, then green",
        "no_loop",
        ev,
    )


def legit4c() -> None:
    """OpenHands-style: IPython cells edit the file (imported as `python3 - <<'EOF'`), pytest fails alike, then passes."""
    ev = [user("fix the leap-year bug")]
    cells = [
        "p = open('cal.py').read()\nopen('cal.py', 'w').write(p.replace('% 4', '% 4 == 0'))",
        "from pathlib import Path\nf = Path('cal.py')\nf.write_text(f.read_text().replace('and y % 100', 'and (y % 100'))",
        "from pathlib import Path\nf = Path('cal.py')\nf.write_text(f.read_text().replace('% 400', '% 400 == 0)'))",
    ]
    for c in cells:
        ev.append(
            sh(
                "python3 -m pytest -q tests/test_cal.py",
                "F\nFAILED tests/test_cal.py::test_1900 - assert True is False\n1 failed, 4 passed",
                1,
            )
        )
        ev.append(sh(f"python3 - <<'EOF'\n{c}\nEOF", "", 0))
    ev.append(sh("python3 -m pytest -q tests/test_cal.py", f"5 passed in {dur()}", 0))
    case(
        "legit-ipython-cell-edits",
        "OpenHands-style IPython cells edit the file between runs failing alike, then green",
        "no_loop",
        ev,
    )


def legit5() -> None:
    """Fifth round: long final answers with structure that repeats."""
    files = [
        f"src/{d}/{n}.py"
        for d in ("api", "core", "cli", "db")
        for n in ("models", "views", "utils", "errors", "config", "tasks", "auth", "cache", "routes", "schema")
    ]
    text = "Summary of the changes:\n\n" + "\n".join(
        f"- `{f}`: added type hints to every public function and fixed the mypy errors it reported." for f in files
    )
    text += "\n\n| file | functions | errors fixed |\n|---|---|---|\n" + "\n".join(
        f"| `{f}` | {3 + len(f) % 5} | {len(f) % 4} |" for f in files
    )
    text += "\n\nAll 40 files now pass `mypy --strict`."
    ev = [
        user("add type hints everywhere"),
        {"t": "request"},
        think("All files are done; I will summarise them for the user with a list and a table."),
        {"t": "answer", "text": text},
    ]
    case(
        "legit-answer-long-summary",
        "a final answer listing 40 files with the same note and a 40-row table",
        "no_loop",
        ev,
    )

    plan = "First, reproduce the bug with the failing test. Second, find where the cache key is built. Third, include the tenant id in the key. Fourth, add a regression test."
    ev = [
        user("how would you fix the cache leak?"),
        {"t": "request"},
        think("Plan: " + plan + " That should be it."),
        {
            "t": "answer",
            "text": "Here is how I would fix it:\n\n"
            + plan
            + "\n\n```python\n"
            + "\n".join(f"assert cache_key(tenant={k}, user=1) != cache_key(tenant={k + 1}, user=1)" for k in range(30))
            + "\n```",
        },
    ]
    case(
        "legit-answer-restates-reasoning",
        "the answer restates the plan from its reasoning and adds 30 similar asserts in code",
        "no_loop",
        ev,
    )


def legit6() -> None:
    """Sixth round: the reasoning twin of the long summary (lens A read it as low novelty)."""
    files = [
        f"pkg/{d}/{n}.go"
        for d in ("server", "store", "queue", "auth")
        for n in ("handler", "types", "errors", "config", "retry", "pool", "codec", "metrics", "cache", "router")
    ]
    text = "Before I edit anything, the list of files and what each needs:\n" + "\n".join(
        f"- `{f}`: wrap every returned error with fmt.Errorf and %w so callers can use errors.Is." for f in files
    )
    ev = [
        user("wrap the errors properly"),
        {"t": "request"},
        think(text + "\nI will start with the server package."),
        call("read", {"file_path": files[0]}, "package server"),
    ]
    case("legit-reasoning-long-list", "reasoning lists 40 files, each with the same long note", "no_loop", ev)


def loops4() -> None:
    """Fourth round: Codex-style argv loops and answer-stream loops."""
    ev = [user("why does the scheduler starve worker 3?")]
    pos = 300
    for k in range(44):
        ev.append(
            codex(
                f"sed -n '{pos},{pos + 12}p' src/scheduler.rs",
                "\n".join(_line("sched", i) for i in range(pos, pos + 13)),
            )
        )
        pos += 12 if (k // 5) % 2 == 0 else -12
    case("loop-codex-sed-back-forth", "Codex-style `sed -n` scrolling back and forth, 44 calls", "loop", ev)

    ev = [
        user("write the release note"),
        {"t": "request"},
        {"t": "answer", "text": "Release 2.4 is out. " + "The new scheduler is faster and fairer than before. " * 80},
    ]
    block = "\n".join(
        f"- {x}"
        for x in [
            "Check the config loader for the default port.",
            "Check the env override for PORT.",
            "Check the docker-compose port mapping.",
            "Check the health check URL.",
        ]
    )
    ev2 = [user("why is the port wrong?"), {"t": "request"}, think("Things to check:\n" + "\n".join([block] * 40))]
    case("loop-reasoning-list-verbatim", "reasoning writes the same four-item checklist 40 times", "loop", ev2)
    case("loop-answer-verbatim", "the answer repeats one sentence 80 times", "loop", ev)

    ev = [user("celebrate the release"), {"t": "request"}, {"t": "answer", "text": "Done! " + "🎉🚀✨🔥💯 " * 150}]
    case("loop-answer-emoji-flood", "the answer decays into an emoji flood", "loop", ev)


def legit7() -> None:
    """Third round, from real trajectories: quoting that joins words into one argument is a fix."""
    # an answer checker that takes one argument: unquoted, the shell splits the answer into words
    # and the checker only sees the first; after four tries the agent quotes it, which is the fix
    ev = [user("find the passphrase in notes/ and submit it with ./check")]
    ev.append(sh("grep -rn passphrase notes/", "notes/day3.md:12: passphrase: the owl flies at dawn"))
    for _ in range(4):
        ev.append(think("Submitting the passphrase I found."))
        ev.append(sh("./check the owl flies at dawn", "Wrong answer."))
    ev.append(think("Maybe the shell split it into words; quote it as one argument."))
    ev.append(sh("./check 'the owl flies at dawn'", "Correct!"))
    case(
        "legit-quoting-fixes-the-argument",
        "the same answer retried, then quoted as one argument (the fix)",
        "no_loop",
        ev,
    )
    # numbered files read one by one that all fail the same way: four files, not one call retried
    ev = [user("compare the detrended series in the 2024 and 2025 tables")]
    for name in ["ERP-2025-table10.xls", "ERP-2025-table12.xls", "ERP-2024-table10.xls", "ERP-2024-table12.xls"]:
        ev.append(call("read", {"file_path": f"/root/data/{name}"}, "This tool cannot read binary files", error=True))
    ev.append(sh("pip install pandas xlrd", "Successfully installed pandas-2.2.3 xlrd-2.0.1"))
    ev.append(
        sh(
            "python3 -c 'import pandas as pd; print(pd.read_excel(\"/root/data/ERP-2025-table10.xls\").head())'",
            "   year  gdp\n0  2019  1.2",
        )
    )
    case(
        "legit-numbered-files-fail-alike",
        "four numbered binary files, each refused by the read tool once",
        "no_loop",
        ev,
    )


def main() -> None:
    legit()
    legit_more()
    legit_late()
    legit2()
    legit3()
    legit4()
    legit4b()
    legit4c()
    legit5()
    legit6()
    loops()
    loops2()
    loops4()
    legit7()
    for old in HERE.glob("*.jsonl"):
        old.unlink()
    for n, (slug, name, expected, events) in enumerate(CASES):
        meta = {
            "t": "meta",
            "name": name,
            "source": "redteam",
            "expected": expected,
            "notes": "invented for breaker-tui",
        }
        lines = [json.dumps(meta, ensure_ascii=False)] + [json.dumps(e, ensure_ascii=False) for e in events]
        (HERE / f"rt-{n:03d}-{slug}.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    print(f"{len(CASES)} cases")


if __name__ == "__main__":
    main()
