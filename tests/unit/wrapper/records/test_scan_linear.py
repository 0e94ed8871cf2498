"""`scan` costs time in proportion to what it reads, however the commands and results are spelled.

An agent's action can be megabytes of one quoted word (a heredoc, a generated file written with `echo`).
A tokenizer that re-reads the rest of the text for each token or operator, or a lazy pattern that reads
to the end from every opening tag when the closing one never comes, turns such a file into hours of
work. No test here times anything: the work is counted.

* The shell tokenizer's patterns are wrapped in counters of the characters each call can have read;
  the count for a command 8 times longer must be at most about 8 times the count for the shorter one,
  for quotes, escapes, heredocs, long tokens, nested substitutions, glued operators, navigation chains
  and sinks alike.
* mini-swe-agent's lazy patterns (`<output>`, `<output_head>`/`<output_tail>`, the bash fence) may
  run only where they match: a lazy search that succeeds stops at its first closing tag, one that fails
  has read to the end from each opening tag.
* The SWE-agent action splitter gives exactly what `shlex.split` gives (which grows each token a
  character at a time: quadratic on a long token).
* Slow tests scan 9 MB actions and results of those shapes whole, as the issue's reproduction did
  (the build before took minutes to hours on each; this one takes seconds). They also hold the
  shapes whose reading the counters cannot see (`str.find` and slicing in a loop).
"""

from __future__ import annotations

import contextlib
import io
import json
import re
import shlex
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine.tools import shell, shellfacts
from wrapper.records.importers import mini_swe_agent
from wrapper.records.importers.swe_agent import shell_words

# The wheel compiles the shell modules: their patterns are read as typed globals there, so a counter
# cannot stand in for them. The plain-Python run of the same tests (`make test` runs both) counts.
COMPILED = not shell.__file__.endswith(".py")


class Work:
    """The characters read by the wrapped patterns, and the calls that found nothing."""

    def __init__(self) -> None:
        self.chars = 0
        self.by_pattern: dict[str, int] = {}
        self.failed: dict[str, int] = {}

    def add(self, name: str, chars: int) -> None:
        self.chars += chars
        self.by_pattern[name] = self.by_pattern.get(name, 0) + chars


class Counted:
    """A compiled pattern that adds to `work` what each call can have read.

    A call that finds a match has read up to its end and one character more (none of these patterns
    looks further ahead); one that finds none, or one that walks the whole text (`finditer`, `sub`, ...),
    has read from `pos` to the end.
    """

    def __init__(self, name: str, pattern: re.Pattern[str], work: Work) -> None:
        self.name, self.pattern, self.work = name, pattern, work

    def _span(self, s: str, pos: int, endpos: int) -> int:
        return max(0, min(endpos, len(s)) - pos)

    def _one(self, m: re.Match[str] | None, s: str, pos: int, endpos: int) -> re.Match[str] | None:
        if m is None:
            self.work.add(self.name, self._span(s, pos, endpos))
            self.work.failed[self.name] = self.work.failed.get(self.name, 0) + 1
        else:
            self.work.add(self.name, m.end() - pos + 1)
        return m

    def match(self, s: str, pos: int = 0, endpos: int = sys.maxsize) -> re.Match[str] | None:
        return self._one(self.pattern.match(s, pos, endpos), s, pos, endpos)

    def fullmatch(self, s: str, pos: int = 0, endpos: int = sys.maxsize) -> re.Match[str] | None:
        return self._one(self.pattern.fullmatch(s, pos, endpos), s, pos, endpos)

    def search(self, s: str, pos: int = 0, endpos: int = sys.maxsize) -> re.Match[str] | None:
        return self._one(self.pattern.search(s, pos, endpos), s, pos, endpos)

    def finditer(self, s: str, pos: int = 0, endpos: int = sys.maxsize) -> Iterator[re.Match[str]]:
        self.work.add(self.name, self._span(s, pos, endpos))
        return self.pattern.finditer(s, pos, endpos)

    def findall(self, s: str, pos: int = 0, endpos: int = sys.maxsize) -> list[Any]:
        self.work.add(self.name, self._span(s, pos, endpos))
        return self.pattern.findall(s, pos, endpos)

    def sub(self, repl: Any, s: str, count: int = 0) -> str:
        self.work.add(self.name, len(s))
        return self.pattern.sub(repl, s, count)

    def split(self, s: str, maxsplit: int = 0) -> list[Any]:
        self.work.add(self.name, len(s))
        return self.pattern.split(s, maxsplit)


def _count_patterns(monkeypatch: pytest.MonkeyPatch, module: Any) -> Work:
    work = Work()
    for name, value in vars(module).items():
        if isinstance(value, re.Pattern):
            monkeypatch.setattr(module, name, Counted(name, value, work))
    return work


# Commands of size about n, each a shape that once cost (or could cost) more than linear time.
SHAPES: dict[str, Callable[[int], str]] = {
    "single quotes": lambda n: "echo " + "a'b" * (n // 3),
    "escaped double quotes": lambda n: 'echo "' + '\\"x' * (n // 3) + '"',
    "escaped spaces": lambda n: "echo " + "\\ " * (n // 2),
    "heredoc": lambda n: "cat <<'EOF' > out.txt\n" + "line $x 'q' \"z\"\n" * (n // 17) + "EOF",
    "one long token": lambda n: "echo 'x' " + "a" * n,
    "nested substitutions": lambda n: "echo 'x' " + "$(echo " * (n // 14) + ")" * (n // 14),
    "glued operators": lambda n: "'a'|" * (n // 4),
    "glued redirects": lambda n: "'x' " + "1>" * (n // 2) + "x",
    "plain glued redirects": lambda n: "1>" * (n // 2) + "x",
    "quoted cd chain": lambda n: "cd 'a' && " * (n // 10) + "ls",
    "export chain": lambda n: "export A='1' ; " * (n // 15) + "ls",
    "dotted sink": lambda n: "echo 'x' > " + "./" * (n // 2) + "f",
    "tee flags": lambda n: "echo 'x' | tee " + "-a " * (n // 3),
    "unterminated quote": lambda n: "echo '" + "a b" * (n // 3),
    "unterminated double quote": lambda n: 'echo "' + "a\\b " * (n // 4),
    "wide spaces": lambda n: "echo\u3000'a'" + "\u3000a'b'" * (n // 5),
    "curl flags": lambda n: "curl -sS " + "-m 5 " * (n // 5) + "'http://x/a'",
}


def _shell_work(monkeypatch: pytest.MonkeyPatch, command: str) -> int:
    with monkeypatch.context() as m:
        work = _count_patterns(m, shell)
        shellfacts.analyze_general(command)
        shell.op_tokenize(command)
        shell.extract_sink(command)
        return work.chars


@pytest.mark.skipif(COMPILED, reason="the compiled module's patterns cannot be wrapped; the plain run counts them")
@pytest.mark.parametrize("shape", list(SHAPES))
def test_the_shell_tokenizer_reads_a_command_a_bounded_number_of_times(
    monkeypatch: pytest.MonkeyPatch, shape: str
) -> None:
    n = 4000
    small, big = SHAPES[shape](n), SHAPES[shape](8 * n)
    w_small, w_big = _shell_work(monkeypatch, small), _shell_work(monkeypatch, big)
    assert w_small > 0, "nothing was counted: the tokenizer's patterns were not the ones wrapped"
    # linear: 8 times the text, about 8 times the reading (quadratic would be about 64 times)
    assert w_big <= 9 * w_small, (shape, w_small, w_big)
    assert w_big <= 16 * len(big), (shape, w_big, len(big))


def test_leading_navigation_is_dropped_as_before() -> None:
    """The one-tokenization walk drops exactly what re-tokenizing the rest after each segment dropped."""

    def reference(command: str) -> str:
        while command.lstrip(shell._SPACES).startswith(("cd", "pushd", "export")):
            toks = shell.op_tokenize(command)
            if len(toks) < 4:
                return command
            (a, a_op, _), (b, b_op, _), (op, is_op, end) = toks[0], toks[1], toks[2]
            if a_op or b_op or not is_op or op not in ("&&", ";"):
                return command
            if not (a in ("cd", "pushd") or (a == "export" and shell._NAME_ASSIGN.match(b))):
                return command
            command = command[end:]
        return command

    cases = [
        "cd a && ls",
        " cd 'a b' ; cd c && pwd",
        "export A=1 && export B='2' ; make",
        "export 1A=x && ls",
        "cd a|| ls",
        "cd\u3000a && ls",
        "pushd x ; popd",
        "cd a && cd b",
        "cd a && cd",
        "cdx a && ls",
        "cd 2>x && ls",
        "cd 'a' && " * 50 + "ls",
    ]
    for c in cases:
        assert shell.drop_navigation(c) == reference(c), c


_FENCE = "```"
_MINI_TEXTS: dict[str, Callable[[int], str]] = {
    "opening output tags": lambda n: "<output>" * n,
    "head tags, no tail": lambda n: "<output_head></output_head>" * n,
    "one whole output": lambda n: "<returncode>1</returncode>\n<output>\n" + "x\n" * n + "</output>",
    "head and tail": lambda n: "<output_head>\n" + "a" * n + "</output_head>\n<output_tail>\nb</output_tail>",
    "unclosed fences": lambda n: (_FENCE + "bash\n") * n,
    "fence, long blank run": lambda n: _FENCE + "bash" + "\n" * n + "x",
    "one block": lambda n: "THOUGHT\n" + _FENCE + "bash\n" + "ls\n" * n + _FENCE,
}


@pytest.mark.parametrize("shape", list(_MINI_TEXTS))
def test_mini_swe_agent_runs_its_lazy_patterns_only_where_they_match(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, shape: str
) -> None:
    text = _MINI_TEXTS[shape](2000)
    p = tmp_path / "t.traj.json"
    messages = [{"role": "user", "content": "task"}, {"role": "assistant", "content": text}]
    p.write_text(json.dumps({"trajectory_format": "mini-swe-agent-1.1", "messages": messages}))
    work = _count_patterns(monkeypatch, mini_swe_agent)
    mini_swe_agent.observation(text)
    list(mini_swe_agent.read_mini_swe_agent(p, 1 << 30))  # the reply's fenced blocks
    lazy = {k: v for k, v in work.failed.items() if k in ("_OUTPUT", "_HEAD_TAIL")}
    assert lazy == {}, f"a lazy pattern ran where it cannot match (it reads to the end from each opening): {lazy}"
    # the fence's pattern reads no further than the last closing fence (after it no block can end)
    last = text.rfind("\n" + _FENCE)
    assert work.by_pattern.get("_BASH", 0) <= (last + 4 if last >= 0 else 0), work.by_pattern
    assert work.chars <= 4 * len(text) + 64, (work.chars, len(text))


def test_mini_swe_agent_reads_outputs_and_blocks_as_before() -> None:
    assert mini_swe_agent.observation("<returncode>2</returncode>\n<output>\nno\n</output>") == (2, "no")
    head_tail = "<output_head>\na</output_head>\n...<output_tail>\nb</output_tail>"
    assert mini_swe_agent.observation(head_tail) == (None, "a\n[... elided by mini-swe-agent ...]\nb")
    assert mini_swe_agent.observation("<output>" * 5) == (None, "<output>" * 5)
    reply = "THOUGHT: list\n```bash\nls -la\n```\nafter"
    (block,) = mini_swe_agent._bash_blocks(reply)
    assert block.group(1) == "ls -la" and reply[: block.start()] == "THOUGHT: list\n"
    assert [b.group(1) for b in mini_swe_agent._bash_blocks("```sh\na\n```\n```bash\nb\n```")] == ["a", "b"]
    assert mini_swe_agent._bash_blocks("```bash\nls") == []


_SHLEX_ALPHABET = st.sampled_from(list("ab '\"\\\t\n\r\x0b\x0c\u00e9#;|"))


@given(st.text(_SHLEX_ALPHABET, max_size=30) | st.text(max_size=20))
def test_the_action_splitter_is_shlex_split(line: str) -> None:
    try:
        expected: list[str] | None = shlex.split(line)
    except ValueError:
        expected = None
    try:
        got: list[str] | None = shell_words(line)
    except ValueError:
        got = None
    assert got == expected


def test_the_action_splitter_keeps_shlex_edge_cases() -> None:
    assert shell_words("a '' b") == ["a", "", "b"]
    assert shell_words('"a\\"b\\c\\\\"') == ['a"b\\c\\']
    assert shell_words("a\\ b c\\\nd") == ["a b", "c\nd"]
    assert shell_words("x\x0by") == ["x\x0by"]  # shlex splits on space, tab, CR and LF only
    for bad in ("'open", '"open', "trailing\\", '"esc\\'):
        with pytest.raises(ValueError):
            shell_words(bad)


_9MB = 9_000_000


# Each slow test keeps the suite's 120 s (not the 600 s slow tests get by default): the fixed code takes
# 2-10 s even at a load of 15 on two cores, the code before took from 4 minutes to hours.
@pytest.mark.slow
@pytest.mark.timeout(120)
def test_a_9_mb_quote_heavy_action_is_scanned(tmp_path: Path) -> None:
    """The issue's reproduction at the size that did not finish: seconds now, far inside the test timeout."""
    from tui.cli import main

    p = tmp_path / "big.traj"
    step = {"thought": "write it", "action": "echo " + "a'b" * (_9MB // 3), "observation": "ok"}
    p.write_text(json.dumps({"trajectory": [step]}))
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        assert main(["scan", str(p)]) == 0
    assert "trace: 2 events, 0 intervention(s)" in err.getvalue()


# Shapes whose cost was in `str.find` or slicing in a loop, which the counters above cannot see: each
# took the build before minutes (4 MB of glued redirects: about 4) to hours (a sink behind 4.5 million `./`).
BIG_COMMANDS = {
    "glued redirects": lambda: "1>" * 2_000_000 + "x",
    "dotted sink": lambda: "echo 'x' > " + "./" * (_9MB // 2) + "f",
}


@pytest.mark.slow
@pytest.mark.timeout(120)
@pytest.mark.parametrize("shape", list(BIG_COMMANDS))
def test_a_long_command_is_analysed(shape: str) -> None:
    command = BIG_COMMANDS[shape]()
    facts = shellfacts.analyze_general(command)
    assert facts.sink == ("f" if shape == "dotted sink" else "x")


@pytest.mark.slow
@pytest.mark.timeout(120)
def test_a_9_mb_mini_swe_agent_observation_of_opening_tags_is_scanned(tmp_path: Path) -> None:
    """`<output>` a million times and no closing tag: the lazy pattern would read to the end from each."""
    from tui.cli import main

    p = tmp_path / "big.traj.json"
    messages = [
        {"role": "user", "content": "task"},
        {"role": "assistant", "content": "THOUGHT\n```bash\nls\n```"},
        {"role": "user", "content": "<returncode>0</returncode>\n" + "<output>" * (_9MB // 8)},
    ]
    p.write_text(json.dumps({"trajectory_format": "mini-swe-agent-1.1", "messages": messages}))
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        assert main(["scan", str(p)]) == 0
    assert "0 intervention(s)" in err.getvalue()
