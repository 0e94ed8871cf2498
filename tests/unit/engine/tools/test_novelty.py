"""One notion of "new" (`engine.tools.novelty`), held per class through the default rules' verdicts.

Each class is a way the harness or the shell dresses an identical result (or a call spells itself) that
must not make a loop look like progress, or a way results keep bringing news that must not be taken
for a loop. The traces are small and built here; the verdict is what `scan` would report.
"""

from __future__ import annotations

import re
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.tools import novelty
from engine.tools.novelty import Seen, clean, news_text, shell_args, spaced
from engine.trace import Intervention, TraceEvent, TraceMeta, simulate

BLOCKS = ("deny", "ask", "abort", "cancel")


def _events(steps: list[tuple[str, dict[str, Any]]]) -> list[TraceEvent]:
    out = [TraceEvent(0, 2, "user", text="do the task")]
    for i, (kind, f) in enumerate(steps, start=1):
        out.append(TraceEvent(i, i + 2, kind, **f))  # type: ignore[arg-type]
    return out


def _run(steps: list[tuple[str, dict[str, Any]]]) -> list[Intervention]:
    return simulate(TraceMeta("t", "loop"), _events(steps), "deny")


def first_block(steps: list[tuple[str, dict[str, Any]]]) -> int:
    """The 1-based number of the first blocked call (0 when nothing is blocked)."""
    calls = [e.index for e in _events(steps) if e.kind == "call"]
    for i in _run(steps):
        if i.action in BLOCKS and i.index in calls:
            return calls.index(i.index) + 1
    return 0


def repeat(
    command: str, result: Callable[[int], str], n: int, exit: int | None = None
) -> list[tuple[str, dict[str, Any]]]:
    """One shell command made `n` times, its k-th result `result(k)`."""
    return [
        ("call", {"tool": "bash", "args": {"command": command}, "output": result(k), "exit": exit}) for k in range(n)
    ]


# -- identical results behind what the harness and the shell add: still a loop --------------------------

DRESSINGS: dict[str, Callable[[int], str]] = {
    "bash line counter": lambda k: f"/bin/bash: line {13218 + 15 * k}: cd: fastjson/: No such file or directory",
    "epoch seconds": lambda k: f"[{1_700_000_000 + 97 * k}] fetch: nothing new upstream",
    "epoch milliseconds": lambda k: f"ts={1_700_000_000_123 + 97_001 * k} fetch: nothing new upstream",
    "job pid": lambda k: f"[1] {31337 + 11 * k}\nfetch: nothing new upstream",
    "program pid": lambda k: f"fetcher[{4100 + 7 * k}]: nothing new upstream",
    "port": lambda k: f"listening on port {40000 + 13 * k}: nothing new upstream",
    "temp name outside the temp root": lambda k: (
        f"wrote /home/agent/build/tmp{k}x9Qz{k}k/out.log: nothing new upstream"
    ),
    "dashed uuid": lambda k: f"request 550e8400-e29b-41d4-a716-4466554400{k:02d} done: nothing new upstream",
    "ansi and crlf": lambda k: ("\x1b[2K\x1b[1G" * k) + "fetch: nothing new upstream" + ("\r\n" if k % 2 else "\n"),
    "observation prefix": lambda k: ("Observation: " if k % 2 else "") + "fetch: nothing new upstream here",
    "attempt counter echoed": lambda k: f"fetch (try {k + 1}): nothing new upstream",
    "step counter": lambda k: f"[step {k + 3}] fetch: nothing new upstream",
}


@pytest.mark.parametrize("name", list(DRESSINGS))
def test_an_identical_result_behind_moving_harness_values_is_still_a_loop(name: str) -> None:
    steps = repeat("./fetch --since yesterday", DRESSINGS[name], 8)
    assert 0 < first_block(steps) <= 6, name


def test_swe_agents_26_identical_cd_failures_are_stopped_by_the_10th() -> None:
    # SWE-agent reports no exit status; only bash's own line counter moves
    steps = repeat("cd fastjson/", DRESSINGS["bash line counter"], 26)
    assert 0 < first_block(steps) <= 10


def test_a_cosmetic_fetch_whose_error_echoes_its_spelling_is_refused_at_the_fifth_call() -> None:
    spellings = [
        "curl -sS 'https://open.canada.ca/data/weekly-export.csv?utm_source=chat'",
        "curl -sS 'https://Open.Canada.CA/data/weekly-export.csv'",
        "curl -sSL 'https://www.open.canada.ca/data/weekly-export.csv#latest'",
        "wget -q -O - 'https://open.canada.ca/data/weekly-export.csv?fbclid=xyz'",
        "curl --fail --silent 'https://OPEN.canada.ca/data/weekly-export.csv'",
        "curl -sS --max-time 30 'https://www.Open.Canada.ca/data/weekly-export.csv?utm_medium=x'",
        "wget -O- 'https://open-data.canada.ca/data/weekly-export.csv'",
    ]

    def host(c: str) -> str:
        return c.split("//")[1].split("/")[0]

    def error(c: str) -> str:
        if c.startswith("wget"):
            return f"wget: unable to resolve host address '{host(c)}'"
        return f"curl: (6) Could not resolve host: {host(c)}"

    for status in (6, None):  # with the shell's status, and from a harness that gives none
        steps = [
            ("call", {"tool": "bash", "args": {"command": c}, "output": error(c), "exit": status}) for c in spellings
        ]
        assert first_block(steps) == 5, status


@pytest.mark.parametrize(
    "spell",
    [
        lambda k: "pytest -q tests/test_app.py" if k % 2 else "pytest -q 'tests/test_app.py'",
        lambda k: "cd /testbed && pytest -q tests/test_app.py" if k % 2 else "pytest -q tests/test_app.py",
        lambda k: "cd /testbed&&pytest -q tests/test_app.py" if k % 2 else "cd /testbed && pytest -q tests/test_app.py",
    ],
    ids=["quoting", "cd prefix", "operator spacing"],
)
def test_respelling_a_failing_shell_call_does_not_make_it_a_new_call(spell: Callable[[int], str]) -> None:
    # cosmetic edits, then the same test failing the same way: the respelled run is the same run
    out = "FAILED tests/test_app.py::test_main - AssertionError: expected 'ok', got None"

    def rounds(command: Callable[[int], str]) -> list[tuple[str, dict[str, Any]]]:
        steps: list[tuple[str, dict[str, Any]]] = []
        for k in range(8):
            edit = {"file_path": "src/app.py", "old_string": f"x = {k}  # try", "new_string": f"x = {k + 1}  # try"}
            steps.append(("call", {"tool": "edit", "args": edit, "output": "The file was edited."}))
            steps.append(("call", {"tool": "bash", "args": {"command": command(k)}, "output": out, "exit": 1}))
        return steps

    plain = first_block(rounds(lambda k: spell(0)))
    assert plain > 0
    assert first_block(rounds(spell)) == plain


def test_a_tool_failing_two_ways_with_prose_for_commands_is_stopped() -> None:
    # a model that writes its DISCUSSION where the command goes: every command differs, two errors alternate
    eof = "/bin/bash: line 2: unexpected EOF while looking for matching `''\n/bin/bash: line 4: syntax error"
    steps = []
    for k in range(20):
        words = f"DISCUSSION\nAttempt {k} says something else about the create command, number {k}."
        out = eof if k % 3 else f"/bin/bash: line {900 + k}: DISCUSSION: command not found"
        steps.append(("call", {"tool": "bash", "args": {"command": words}, "output": out}))
    assert 0 < first_block(steps) <= 14


def test_an_error_behind_a_harness_label_reads_as_an_error() -> None:
    label = "The result of executing that last command is:\n Command write_fix returned: "
    out = label + "Error: 'NoneType' object is not iterable"
    steps = [
        (
            "call",
            {"tool": "write_fix", "args": {"changes": [{"line": 18, "text": f"fix variant {'x' * k}"}]}, "output": out},
        )
        for k in range(12)
    ]
    assert 0 < first_block(steps) <= 6


# -- results that keep bringing news: progress, however alike the calls or thoughts ---------------------


def test_polls_of_a_background_job_between_new_reads_are_not_a_loop() -> None:
    steps: list[tuple[str, dict[str, Any]]] = []
    for k in range(8):
        steps.append(
            (
                "call",
                {
                    "tool": "bashoutput",
                    "args": {"bash_id": "b1"},
                    "output": "<status>running</status>\nDownloading torch (779 MB)",
                },
            )
        )
        name = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta"][k]
        steps.append(
            (
                "call",
                {"tool": "read", "args": {"file_path": f"/app/src/{name}.py"}, "output": f"def {name}():\n    pass\n"},
            )
        )
    assert first_block(steps) == 0


# the one thought a model repeats while it pages through a file
_SCROLLING_THOUGHT = (
    "I need to keep scrolling down to find the definition of the serializer method and see how the "
    "configuration flags are read; let me look at the next part of the file before I change anything. "
) * 2


def test_the_same_thought_while_paging_forward_through_new_pages_is_not_cancelled() -> None:
    thought = _SCROLLING_THOUGHT
    steps: list[tuple[str, dict[str, Any]]] = []
    for k in range(10):
        page = "\n".join(f"{100 * k + i}: line {i} of page {k} says something else {k * i}" for i in range(100))
        steps.append(("request", {}))
        steps.append(("think", {"text": thought}))
        steps.append(("call", {"tool": "bash", "args": {"command": "scroll_down"}, "output": page}))
    assert not [i for i in _run(steps) if i.action in BLOCKS]


def test_the_same_thought_while_results_stay_identical_is_still_cancelled() -> None:
    thought = _SCROLLING_THOUGHT
    steps: list[tuple[str, dict[str, Any]]] = []
    for k in range(10):
        steps.append(("request", {}))
        steps.append(("think", {"text": thought}))
        out = f"[step {k}] the file has 900 lines; nothing more to show below line 900 of Serializer.java"
        steps.append(("call", {"tool": "bash", "args": {"command": "scroll_down"}, "output": out}))
    assert [i for i in _run(steps) if i.action in BLOCKS]


# -- the pieces ----------------------------------------------------------------------------------------


def test_clean_folds_a_dashed_uuid_whole() -> None:
    assert clean("id 550e8400-e29b-41d4-a716-446655440000 ok") == "id # ok"


def test_news_text_folds_the_host_and_path_as_the_call_spelled_them() -> None:
    a = news_text(
        "curl: (6) Could not resolve host: WWW.Example.COM", "bash", {"command": "curl https://WWW.Example.COM/x"}
    )
    b = news_text(
        "curl: (6) Could not resolve host: example.com", "bash", {"command": "curl https://example.com/x?utm_source=a"}
    )
    assert a == b


def test_spaced_leaves_quoted_operators_and_redirections_alone() -> None:
    assert spaced("a&&b") == "a && b"
    assert spaced("grep 'a&&b' f") == "grep 'a&&b' f"
    assert spaced("make 2>&1|tail") == "make 2>&1 | tail"


def test_shell_args_keep_flags_and_other_tools_untouched() -> None:
    assert shell_args("bash", {"command": "cd /r && curl -sS 'https://x'"}) == {"command": "curl -sS x/"}
    assert shell_args("bash", {"command": "curl -v https://WWW.x.org/a?utm_source=b#c"}) == {
        "command": "curl -v x.org/a"
    }
    args = {"command": "view", "path": "a.py"}
    assert shell_args("str_replace_editor", args) is args


def test_seen_forgets_results_when_the_workspace_changes() -> None:
    s = Seen()
    s.add("k", 1, 0)
    assert not s.new("k", 1, 0) and s.new("k", 2, 0) and s.new("k", 1, 1)
    assert not s.new("other", 1, 0)  # a first call is not news about a repeat


class _OrderedSeen:
    """`Seen` as it was written first (an OrderedDict of results per key): the reference the compact one keeps."""

    def __init__(self) -> None:
        self.keys: OrderedDict[str, tuple[int, OrderedDict[int, None]]] = OrderedDict()
        self.anywhere: tuple[int, OrderedDict[int, None]] = (0, OrderedDict())

    def novel(self, result: int, epoch: int) -> bool:
        if self.anywhere[0] != epoch:
            self.anywhere = (epoch, OrderedDict())
        results = self.anywhere[1]
        if result in results:
            return False
        results[result] = None
        if len(results) > novelty.KEYS_CAP * 2:
            results.popitem(last=False)
        return True

    def new(self, key: str, result: int, epoch: int) -> bool:
        entry = self.keys.get(key)
        return entry is not None and (entry[0] != epoch or result not in entry[1])

    def add(self, key: str, result: int, epoch: int) -> None:
        entry = self.keys.get(key)
        if entry is None or entry[0] != epoch:
            if entry is None and len(self.keys) >= novelty.KEYS_CAP:
                self.keys.popitem(last=False)
            entry = (epoch, OrderedDict())
            self.keys[key] = entry
        entry[1][result] = None
        entry[1].move_to_end(result)
        while len(entry[1]) > novelty.RESULTS_PER_KEY:
            entry[1].popitem(last=False)


_SEEN_OPS = st.lists(
    st.tuples(st.sampled_from(("add", "add", "new", "novel")), st.lists(st.integers(0, 5), min_size=1, max_size=4),
              st.integers(0, 5), st.integers(0, 1)),
    max_size=300,
)  # fmt: skip


@pytest.mark.slow
@settings(max_examples=500, deadline=None)
@given(_SEEN_OPS)
def test_seen_answers_as_ordered_results_per_key_would(ops: list[tuple[str, list[int], int, int]]) -> None:
    """The compact `Seen` (a tuple of results per key, keys dropped oldest first through a queue, one entry
    shared by the keys a result starts over) answers every question as the first version did, caps included.
    """
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(novelty, "KEYS_CAP", 4)  # small caps: the sequences reach them
        mp.setattr(novelty, "RESULTS_PER_KEY", 3)
        seen, ref = Seen(), _OrderedSeen()
        for op, keys, result, epoch in ops:
            names = tuple(f"k{k}" for k in keys)
            if op == "add":
                seen.add_all(names, result, epoch)
                for name in names:
                    ref.add(name, result, epoch)
            elif op == "new":
                assert [seen.new(n, result, epoch) for n in names] == [ref.new(n, result, epoch) for n in names]
            else:
                assert seen.novel(result, epoch) == ref.novel(result, epoch)
            assert list(seen.keys) == list(ref.keys)
            assert all(seen.keys[k] == (e, tuple(r)) for k, (e, r) in ref.keys.items())


def test_a_one_line_rejection_followed_by_a_volatile_line_is_still_a_failure() -> None:
    # SWE-agent reports no status: `Wrong flag!` is read as a failure, a stamp line after it changes nothing
    steps = [
        (
            "call",
            {
                "tool": "submit",
                "args": {"flag": "picoCTF{x}"},
                "output": f"Wrong flag!\n[{1_700_000_000 + 97 * k}] done",
            },
        )
        for k in range(6)
    ]
    assert 0 < first_block(steps) <= 4


# -- an identical call whose output keeps moving: progress, even when its first line reads as an error ---

JOBS = ("parser", "socket", "ledger", "kernel", "shard", "widget", "anchor", "replica", "cursor", "bridge")


def test_an_identical_poll_printing_new_lines_under_an_error_line_is_not_refused() -> None:
    """A status script (no exit status) that complains about a missing helper, then prints new rows each time."""

    def listing(k: int) -> str:
        rows = "\n".join(f"{JOBS[(k + j) % len(JOBS)]}-{JOBS[(2 * k + j) % len(JOBS)]} Pending" for j in range(3))
        return f"./status.sh: line 4: jq: command not found\n{rows}"

    assert first_block(repeat("./status.sh", listing, 9)) == 0


def test_an_identical_call_whose_error_line_alone_changes_is_still_refused() -> None:
    """One error line re-worded on each try says nothing new: the fifth identical call is refused."""
    words = ("refused", "reset", "timed out", "unreachable", "aborted", "dropped", "closed", "lost")

    def error(k: int) -> str:
        return f"curl: (7) Failed to connect to api.example.org: Connection {words[k]}"

    assert first_block(repeat("curl -sS https://api.example.org/v1/status", error, 8)) == 5


# -- a line a harness puts in front of a tool's error: still the same error ------------------------------

FRONT_LINES: dict[str, Callable[[int], str]] = {
    "epoch": lambda k: f"[{1_700_000_000 + 97 * k}] done",
    "pid": lambda k: f"java[{4000 + 31 * k}]: started",
    "duration": lambda k: f"took {0.5 + k / 7:.2f}s",
    "uuid": lambda k: f"request 0b3c{k:04d}-1f2e-4a5b-8c9d-0e1f2a3b4c5d",
}


@pytest.mark.parametrize("front", FRONT_LINES, ids=list(FRONT_LINES))
def test_a_tools_error_behind_a_volatile_first_line_is_the_same_failure(front: str) -> None:
    args = {"project_name": "Closure", "bug_index": 117, "changes_dicts": "[]"}

    def steps(line: Callable[[int], str] | None) -> list[tuple[str, dict[str, Any]]]:
        error = "Error: 'NoneType' object is not iterable"
        return [
            ("call", {"tool": "write_fix", "args": args, "output": f"{line(k)}\n{error}" if line else error})
            for k in range(8)
        ]

    bare = first_block(steps(None))
    assert bare and first_block(steps(FRONT_LINES[front])) == bare


@pytest.mark.parametrize("front", FRONT_LINES, ids=list(FRONT_LINES))
def test_a_tools_error_that_quotes_a_date_behind_a_volatile_first_line_is_the_same_failure(front: str) -> None:
    # the error's own line carries a volatile value too (the date): it is still where the error starts
    args = {"reservation_id": "XEWRD9", "flights": [{"flight_number": "HAT030", "date": "2024-05-13"}]}
    error = "Error: flight HAT030 not available on date 2024-05-13"

    def steps(line: Callable[[int], str] | None) -> list[tuple[str, dict[str, Any]]]:
        return [
            (
                "call",
                {
                    "tool": "update_reservation_flights",
                    "args": args,
                    "output": f"{line(k)}\n{error}" if line else error,
                },
            )
            for k in range(8)
        ]

    bare = first_block(steps(None))
    assert bare and first_block(steps(FRONT_LINES[front])) == bare


def test_a_rejection_under_the_harness_echo_of_its_call_is_the_same_failure() -> None:
    """`Wrong flag!` (no status) under `$ CMD`, the retries re-spelled: the echo is no message of its own."""

    def steps(echoed: bool) -> list[tuple[str, dict[str, Any]]]:
        spelled = ["cd /testbed && submit flag{x}" if k % 2 else "submit flag{x}" for k in range(8)]
        return [
            (
                "call",
                {"tool": "bash", "args": {"command": c}, "output": f"$ {c}\nWrong flag!" if echoed else "Wrong flag!"},
            )
            for c in spelled
        ]

    bare = first_block(steps(False))
    assert bare and first_block(steps(True)) == bare


def test_a_long_script_echoed_whole_is_no_news() -> None:
    # a heredoc longer than the part of a command its words are read from, with comment lines a prompt-like
    # start would be taken from: restated above its output, it is still only the call
    body = "\n".join(f"    # step {i}: keep the marker\n    s = s.replace('a{i}', 'b{i}')" for i in range(60))
    command = f"python - <<'PY'\ns = open('core.py').read()\n{body}\nPY"
    assert len(command) > 2000
    args = {"command": command}
    assert news_text(f"$ {command}\nPatched file", "bash", args) == news_text("Patched file", "bash", args)


def test_a_number_of_the_call_inside_a_duration_does_not_split_it() -> None:
    # `took 12.31s` for a call with `"bug_index": 12`: the duration is folded whole, like `took 3.07s`
    args = {"project_name": "JxPath", "bug_index": 12}
    assert news_text("took 12.31s\nok", "write_fix", args) == news_text("took 3.07s\nok", "write_fix", args)


# -- a `cd DIR &&` in front of a retry whose error echoes the command: still the same error --------------


def test_a_cd_prefixed_retry_whose_error_echoes_the_rest_is_the_same_failure() -> None:
    command = '> <parameter name="command">which mailman'

    def error(c: str) -> str:
        return f"/bin/bash: eval: line 1: syntax error near unexpected token `<'\n/bin/bash: eval: line 1: `{command}'"

    def steps(prefixed: bool) -> list[tuple[str, dict[str, Any]]]:
        spelled = [f"cd /testbed && {command}" if prefixed and k % 2 else command for k in range(8)]
        return [("call", {"tool": "bash", "args": {"command": c}, "output": error(c), "exit": 2}) for c in spelled]

    bare = first_block(steps(False))
    assert bare and first_block(steps(True)) == bare


def test_a_short_command_re_spelled_and_echoed_is_the_same_failure() -> None:
    """`)` fails; its re-spellings (`cd /testbed && )`) echo themselves (`$ CMD`, and in bash's message)."""

    def error(c: str) -> str:
        return f"/bin/bash: eval: line 1: syntax error near unexpected token `{c}'\n/bin/bash: eval: line 1: `{c}'"

    def steps(respelled: bool) -> list[tuple[str, dict[str, Any]]]:
        spelled = ["cd /testbed && )" if respelled and k % 2 else ")" for k in range(8)]
        return [
            (
                "call",
                {
                    "tool": "bash",
                    "args": {"command": c},
                    "output": (f"$ {c}\n" if c != ")" else "") + error(c),
                    "exit": 2,
                },
            )
            for c in spelled
        ]

    bare = first_block(steps(False))
    assert bare and first_block(steps(True)) == bare


def test_the_memoised_fold_answers_for_the_call_it_was_asked_about() -> None:
    """`news_text` keeps its last answer: another call with the same result text is folded for itself."""
    text = "curl: (6) Could not resolve host: api.example.org"
    first = news_text(text, "bash", {"command": "curl https://api.example.org/x"})
    other = news_text(text, "bash", {"command": "curl https://www.example.com/y"})
    assert first != other and "api.example.org" in other and "api.example.org" not in first


# ---- the volatile pass is split for speed: it folds exactly as the one ordered alternation ---------------
# (the reference is the pass as first written: every part tried at every position, in this order)
_REFERENCE = re.compile(
    r"\b[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\b"
    r"|\b\d{4}-\d{2}-\d{2}(?:[T ]\d{1,2}:\d{2}(?::\d{2})?(?:[.,]\d+)?(?:Z|[+-]\d{2}:?\d{2})?)?\b"
    r"|\b\d{1,2}:\d{2}:\d{2}(?:[.,]\d+)?\b"
    r"|\b1[4-9]\d{8}(?:\d{3}|\d{6}|\d{9})?(?:\.\d+)?\b"
    r"|\b\d+(?:\.\d+)?\s?(?:ms|us|µs|ns|s|sec|secs|seconds?|m|min|mins|minutes?|h|hrs?|hours?|d|days?)\b"
    r"|\b\d+m\d+(?:\.\d+)?s\b"
    r"|\b0x[0-9a-fA-F]+\b|\b(?=[0-9a-fA-F]*\d)(?=[0-9a-fA-F]*[a-fA-F])[0-9a-fA-F]{7,}\b"
    r"|\b(?:pid|PID|pgid|PGID|process|Process|port|Port|PORT)[ =:#]*\d+"
    r"|^\[\d+\][+-]?[ \t]+\d+"
    r"|(?<=[\w.-])\[\d+\](?=:)"
    r"|\b\d{1,3}(?:\.\d{1,3}){3}\b"
    r"|(?<=[a-z0-9\]]):\d{2,5}\b"
    r"|(?<=: )line \d+(?=: )"
    r"|(?<=: )[^\s:]{1,200}(?=: command not found)"
    r"|(?i:\b(?:step|turn|iteration|attempt|try|retry|round|poll)\b[ \t]*#?[ \t]*)\d+(?:[ \t]*(?:/|of)[ \t]*\d+)?"
    r"|/tmp/[^\s'\"]+|/var/folders/[^\s'\"]+|/private/var/[^\s'\"]+"
    r"|\btmp(?:[._-]?(?=[A-Za-z0-9_]*(?:\d|[a-z][A-Z]|[A-Z][a-z]))[A-Za-z0-9_]{5,}|\.[A-Za-z0-9]{6,})\b",
    re.M,
)
_PIECES = (
    "1", "12", "123", "1700000000", "1700000000123", "2024-01-02", "12:34:56", "T", "ms", " ", "s", "m", "0x1f",
    "deadbeef1", "abcdef12-1234-1234-1234-123456789abc", "pid", "PID ", "port", "Port=", "[1] ", "[", "] ", ":",
    "prog", ".", "-", "_", "line ", ": ", "bash: ", ": command not found", "step", "Step ", "try ", "of", "/",
    "tmp", "/tmp/x", "/var/folders/a", "/private/var/b", "tmpAbCdEf", "tmp.abcdef", "x", "é", "٣", "\t", "a", "#",
)  # fmt: skip


def _split_pass(line: str) -> str:
    return (novelty._VOLATILE_NOT_FOUND if ": command not found" in line else novelty._VOLATILE).sub("#", line)


@given(st.lists(st.sampled_from(_PIECES), min_size=1, max_size=14))
@settings(max_examples=3000, deadline=None)
def test_split_volatile_pass_folds_as_the_one_alternation(pieces: list[str]) -> None:
    line = "".join(pieces)
    assert _split_pass(line) == _REFERENCE.sub("#", line)


@pytest.mark.parametrize(
    "line",
    [
        "bash: tmpAbCdEf1: command not found",  # the shell's word before the temp name, as before
        "bash: step 3: command not found",
        "/bin/bash: line 13218: cd: fastjson/: No such file or directory",
        "[1] 12345 started at 2024-01-02T10:11:12Z, took 3.5s on port 8080 (pid 77)",
        "prog[123]: 10.0.0.1:5432 deadbeef1 abcdef12-1234-1234-1234-123456789abc try 3 of 5 /tmp/x1",
    ],
)
def test_split_volatile_pass_on_real_shapes(line: str) -> None:
    assert _split_pass(line) == _REFERENCE.sub("#", line)


_SHELL_PIECES = (
    *"ab |&;<>\t\n'\"\\x1-",
    *("&&", "||", ">|", " ;", "\t;", ";;", "cd ", "pushd ", "export A=1 ", "2>&1", "&>", "中"),
    *("http://a.b/c?x=1&utm_source=y", "HTTPS://WWW.Ex.org/p#f", "cd /r && "),
)


@given(st.lists(st.sampled_from(_SHELL_PIECES), max_size=30).map("".join))
@settings(max_examples=1500, deadline=None)
def test_spaced_substitution_spaces_as_the_walk(command: str) -> None:
    """Text without quotes or backslashes is spaced by one substitution: the same text as the walk."""
    if "'" not in command and '"' not in command and "\\" not in command:
        assert novelty._SPACED_OP.sub(novelty._spaced_op, command) == novelty.spaced_walk(command)
    assert spaced(command) == novelty.spaced_walk(command)


def _same_command_by_tokens(command: str) -> str:
    """The compared form through the tokenizer alone: the reference every fast path of `_same_command` keeps."""
    from engine.tools import shell

    text = novelty._URL_IN_TEXT.sub(lambda m: novelty._url_key(m.group()), command) if "://" in command else command
    while (m := novelty._CD_PREFIX.match(text)) is not None:
        text = text[m.end() :]
    return " ".join(shell.bounded(w) for w in shell.tokenize(shell.drop_navigation(novelty.spaced_walk(text))))


@given(st.lists(st.sampled_from(_SHELL_PIECES), max_size=30).map("".join))
@settings(max_examples=1500, deadline=None)
def test_the_compared_form_of_plain_text_is_the_tokenizers(command: str) -> None:
    """Plain text skips the tokenizer (split on whitespace, no word quoted): the same words as the tokenizer's,
    navigation that leads the command (`pushd a;`, `export A=1 &&`) dropped alike.
    """
    assert novelty._same_command.__wrapped__(command) == _same_command_by_tokens(command)


def test_the_compared_form_of_real_commands_is_the_tokenizers() -> None:
    for command in (
        "cd /work/repo && pytest -q tests/test_3.py 2>&1 | tail -n 20",
        "curl -sS --max-time 30 https://api.example.com/v1/items?page=3&utm_source=x -o out3.json",
        "git log --oneline -n 5 -- src/ > /tmp/log0.txt",
        "cd /testbed&&python -m pytest -x;echo done",
        "export A=1 && cd 'a b' && ls",
        "pushd /testbed && pytest -x",
        "pushd a; ls",
        "  export A=1 && make",
    ):
        assert novelty._same_command.__wrapped__(command) == _same_command_by_tokens(command)


def _news_text_with_every_echo(text: str, tool: str, args: Any) -> str:
    """`news_text` with the echo words always worked out (the reference of its short-text skip)."""
    novelty._LAST_NEWS[:] = [None, None, None, ""]
    spelled = novelty._short_spelled(novelty.unframe(novelty._bounded(text)), tool, args)
    folded = novelty.clean(novelty._without(spelled, novelty.echoes(tool, args)))
    if novelty._DIGIT.search(folded):
        source = novelty._source(tool, shell_args(tool, args))
        numbers = frozenset(re.findall(r"\d\d+", source)[:32])
        if numbers:
            folded = novelty._NUMBER.sub(lambda m: "#" if m.group() in numbers else m.group(), folded)
    return folded


_RESULT_PIECES = ("ok", "OK", "Done", " ", "\n", "x", "12", "a.b", "/tmp/q1", "Www.Ex.org", "try 3", "é", "-", "ls")


@given(
    st.lists(st.sampled_from(_RESULT_PIECES), max_size=12).map("".join),
    st.lists(st.sampled_from(_SHELL_PIECES), max_size=12).map("".join),
    st.sampled_from(["bash", "read", "web_fetch"]),
)
@settings(max_examples=1500, deadline=None)
def test_a_short_result_sharing_nothing_with_its_call_folds_as_with_every_echo(
    text: str, spelled: str, tool: str
) -> None:
    args = {"command": spelled} if tool == "bash" else {"path": spelled, "url": spelled}
    assert novelty._news_text(text, tool, args) == _news_text_with_every_echo(text, tool, args)


@given(st.lists(st.sampled_from([*'ab1_.:/- \n"é', "٣", "x9", "\t"]), max_size=40).map("".join))
@settings(max_examples=1500, deadline=None)
def test_echo_and_shape_words_are_found_from_where_a_run_starts_only(text: str) -> None:
    """The word patterns anchored at a run's start find what the unanchored ones found (in linear time)."""
    from engine.tools import sameresult

    assert novelty._ECHO_WORD.findall(text) == re.findall(r"[\w.:/-]*\d[\w.:/-]*", text)
    assert sameresult._DIGIT_WORD.findall(text) == re.findall(r"\S*\d\S*", text)


@given(st.lists(st.sampled_from([*novelty._PREFIX_WORDS, "Outpu", "result", "std", " ", "\n", ":", "x"]), max_size=8))
@settings(max_examples=500, deadline=None)
def test_the_spelled_out_prefix_word_scan_is_the_word_list(pieces: list[str]) -> None:
    text = "".join(pieces)
    assert novelty._has_prefix_word(text) == any(w in text for w in novelty._PREFIX_WORDS)
