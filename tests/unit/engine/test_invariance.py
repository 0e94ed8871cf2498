"""Verdicts that must not move: real sessions, transformed without changing what the agent did.

A loop detector that reads a moving line counter, a fresh pid or a re-quoted argument as "something
new" lets real loops through; one that reads a repeated sentence of thought as "nothing new" while
every result is new blocks real work. Each transformation class below rewrites a real session (the
project's corpora and the shared public ones) in a way a different harness, shell or day would have
produced it, and the engine's verdict on the copy must equal its verdict on the original: blocked or
not, and when blocked, at the same call within `TOLERANCE` calls. The reverse class gives every
looping call's result new content (distinct words, not only numbers): the loop must then read as
progress and not be blocked.

Every class is applied to every session of the pool with two fixed seeds of its own (the sweep,
`test_invariant_over_every_session`): a flip in one long session is not left to sampling luck. On top,
Hypothesis draws further seeds (a seed for the fresh values, the session), with a fixed example
budget, no deadline and derandomized generation, so a run is the same every time. The fast tests apply
each class once, with a fixed seed, to a few short sessions.
"""

from __future__ import annotations

import random
import re
import string
import uuid
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from functools import cache
from pathlib import Path

import pytest
from hypothesis import HealthCheck, Phase, assume, example, given, settings
from hypothesis import strategies as st

from engine.config import BreakerConfig, EngineConfig
from engine.trace import TraceEvent, TraceMeta, simulate
from wrapper.records.evaluate import BLOCKS, read_trace

ROOT = Path(__file__).resolve().parents[3]
SHARED = ROOT.parent / "shared" / "detection"
CORPORA = (
    ROOT / "tests" / "data" / "real",
    ROOT / "tests" / "data" / "loops",
    SHARED / "real-public" / "traces",
    SHARED / "work",
)
# A transformed session may be stopped this many calls earlier or later than the original: a variant
# can be recognised one call later than the verbatim repeat, never let through.
TOLERANCE = 2
# Sessions longer than this many calls are left out of the property pool (cost, not meaning).
MAX_CALLS = 400

Transform = Callable[[list[TraceEvent], random.Random], list[TraceEvent]]


@dataclass(frozen=True, slots=True)
class Session:
    """One labelled real session."""

    name: str
    meta: TraceMeta
    events: tuple[TraceEvent, ...]

    @property
    def expected(self) -> str:
        return self.meta.expected or "no_loop"


@dataclass(frozen=True, slots=True)
class Verdict:
    """Whether the default rules block the session, and at which call (1-based, 0: not blocked)."""

    blocked: bool
    call: int
    rule: str
    action: str = ""  # deny, ask, abort (a stream trip) or cancel

    def same_as(self, other: Verdict) -> bool:
        """Blocked alike, and at most `TOLERANCE` calls apart."""
        return self.blocked == other.blocked and (not self.blocked or abs(self.call - other.call) <= TOLERANCE)


def verdict(meta: TraceMeta, events: list[TraceEvent] | tuple[TraceEvent, ...]) -> Verdict:
    """The first block of the default rules anywhere in the session."""
    found = simulate(meta, events, "deny", BreakerConfig(engine=EngineConfig(mode="default")))
    first = next((i for i in found if i.action in BLOCKS), None)
    if first is None:
        return Verdict(False, 0, "")
    calls = sum(1 for e in events if e.kind == "call" and e.index <= first.index)
    return Verdict(True, calls, first.rule, first.action)


@cache
def sessions() -> tuple[Session, ...]:
    """Every labelled session of the corpora that are present, shortest first."""
    out = []
    for folder in CORPORA:
        for path in sorted(folder.glob("*.jsonl")) if folder.is_dir() else []:
            meta, events = read_trace(path)
            if meta is None or meta.expected is None:
                continue
            if sum(e.kind == "call" for e in events) <= MAX_CALLS:
                out.append(Session(f"{folder.name}/{path.name}", meta, tuple(events)))
    return tuple(sorted(out, key=lambda s: len(s.events)))


@cache
def original(name: str) -> Verdict:
    s = by_name(name)
    return verdict(s.meta, s.events)


def by_name(name: str) -> Session:
    return next(s for s in sessions() if s.name == name)


# ---- helpers over events -------------------------------------------------------------------------


def renumbered(events: list[TraceEvent]) -> list[TraceEvent]:
    """Indices and lines made consecutive again after events were inserted."""
    return [replace(e, index=i, line=i + 2) for i, e in enumerate(events)]


SHELL_TOOLS = frozenset({"bash", "shell", "run_shell_command", "execute_command", "execute_bash", "run_command",
                         "terminal", "exec_command", "local_shell", "cmd_run", "run_terminal_cmd", "pwsh"})  # fmt: skip


def command_of(e: TraceEvent) -> str | None:
    """The command of a shell call (not an editor's `command` sub-command), or None."""
    if (
        e.kind == "call"
        and e.tool in SHELL_TOOLS
        and isinstance(e.args, dict)
        and isinstance(e.args.get("command"), str)
    ):
        return str(e.args["command"])
    return None


def with_command(e: TraceEvent, cmd: str) -> TraceEvent:
    return replace(e, args={**e.args, "command": cmd})


def map_outputs(events: list[TraceEvent], fn: Callable[[str, int], str]) -> list[TraceEvent]:
    """Every call's output rewritten by `fn(output, k)`, k the 1-based call number."""
    out, k = [], 0
    for e in events:
        if e.kind == "call":
            k += 1
            e = replace(e, output=fn(e.output, k))
        out.append(e)
    return out


def add_line(output: str, line: str, where: str) -> str:
    """`line` as the result's first or last line (a harness or a tool adds it there)."""
    if not output:
        return line
    return f"{line}\n{output}" if where == "head" else f"{output}\n{line}"


def volatile(forms: tuple[str, ...], value: Callable[[random.Random, int], object]) -> Transform:
    """A line of one form (chosen once per session, at one place) with a fresh `value` on every result
    that says something: the same message from the same tool, only its volatile part new.

    An empty result stays empty. There the line would not be a volatile part of a message but the whole
    message (`sshd[N]: session opened`), and it changes what the call did: `grep` exiting 1 with no
    output found nothing (`progress.failed`: an answer), exiting 1 with a line printed failed; five
    failures of one verb printing one message are what `same-error` is for (`pip install a`, `pip
    install b`, one network error), so a transform that writes that message in changes the session.
    """

    def apply(events: list[TraceEvent], rng: random.Random) -> list[TraceEvent]:
        form, where = rng.choice(forms), rng.choice(("head", "tail"))
        return map_outputs(events, lambda out, k: add_line(out, form.format(v=value(rng, k)), where) if out else out)

    return apply


def repeated_calls(events: list[TraceEvent]) -> Iterator[tuple[int, TraceEvent, int]]:
    """(position, event, how many times before) for every shell call whose command was made before."""
    seen: dict[str, int] = {}
    for i, e in enumerate(events):
        cmd = command_of(e)
        if cmd is None:
            continue
        n = seen.get(cmd, 0)
        seen[cmd] = n + 1
        if n:
            yield i, e, n


def respelled(respell: Callable[[str, random.Random], str], echo: bool, every: bool = False) -> Transform:
    """Every repeated shell call spelled anew (and, with `echo`, its result echoing the new spelling).

    With `every`, every shell call: a loop of fetches may already vary its spelling, so none repeats
    verbatim.
    """

    def apply(events: list[TraceEvent], rng: random.Random) -> list[TraceEvent]:
        out = list(events)
        chosen = [(i, e) for i, e in enumerate(events) if command_of(e)] if every else repeated_calls(events)
        for i, e, *_ in chosen:
            cmd = command_of(e) or ""
            new = respell(cmd, rng)
            out[i] = with_command(e, new)
            if echo and new != cmd:
                out[i] = replace(out[i], output=echoed(e.output, cmd, new))
        return out

    return apply


def echoed(output: str, old: str, new: str) -> str:
    """The result as a tool that prints the command as given would show it."""
    body = output.replace(old, new) if old in output else output
    return f"$ {new}\n{body}" if body else f"$ {new}"


# ---- fresh volatile values -------------------------------------------------------------------------

EPOCH = 1_700_000_000


def epoch_seconds(rng: random.Random, k: int) -> int:
    return EPOCH + k * 97 + rng.randint(0, 60)


def epoch_millis(rng: random.Random, k: int) -> int:
    return (EPOCH + k * 97) * 1000 + rng.randint(0, 59_999)


def a_pid(rng: random.Random, k: int) -> int:
    return rng.randint(1000, 4_000_000)


def a_port(rng: random.Random, k: int) -> int:
    return rng.randint(1024, 65535)


def a_temp_tail(rng: random.Random, k: int) -> str:
    return "".join(rng.choices(string.ascii_letters + string.digits, k=8))


def a_uuid(rng: random.Random, k: int) -> str:
    return str(uuid.UUID(int=rng.getrandbits(128), version=4))


def seconds(rng: random.Random, k: int) -> float:
    return rng.uniform(0.01, 90)


def ansi(events: list[TraceEvent], rng: random.Random) -> list[TraceEvent]:
    """Some results colored (as a tty would show them), others not."""

    def color(out: str, k: int) -> str:
        if not out or rng.random() < 0.4:
            return out
        code = rng.choice(("\x1b[31m", "\x1b[1;33m", "\x1b[0;32m", "\x1b[2K\x1b[1G"))
        return "\n".join(f"{code}{line}\x1b[0m" if line else line for line in out.split("\n"))

    return map_outputs(events, color)


def crlf(events: list[TraceEvent], rng: random.Random) -> list[TraceEvent]:
    """Some results with CRLF line ends."""
    return map_outputs(events, lambda out, k: out.replace("\n", "\r\n") if rng.random() < 0.6 else out)


# ---- harness framing --------------------------------------------------------------------------------

_SHELL_ERROR = re.compile(r"^((?:/usr)?(?:/bin/)?(?:ba)?sh): (?:line \d+: )?", re.MULTILINE)


def bash_line_counter(events: list[TraceEvent], rng: random.Random) -> list[TraceEvent]:
    """bash's own `line N:` on its error lines, N moving on every call (as a long-lived shell does)."""
    base = rng.randint(10, 20_000)
    return map_outputs(events, lambda out, k: _SHELL_ERROR.sub(lambda m: f"{m[1]}: line {base + k}: ", out))


def observation_prefix(events: list[TraceEvent], rng: random.Random) -> list[TraceEvent]:
    """Each result behind a harness's `Observation: ` prefix."""
    return map_outputs(events, lambda out, k: f"Observation: {out}")


def exit_code_framing(events: list[TraceEvent], rng: random.Random) -> list[TraceEvent]:
    """The exit status inside the result text (`[exit code: N]`) instead of a separate field."""
    out = []
    for e in events:
        if e.kind == "call" and e.exit is not None:
            text = f"{e.output}\n[exit code: {e.exit}]" if e.output else f"[exit code: {e.exit}]"
            e = replace(e, output=text, exit=None, error=bool(e.error) or e.exit != 0)
        out.append(e)
    return out


def step_counter(events: list[TraceEvent], rng: random.Random) -> list[TraceEvent]:
    """A harness's step counter in front of each result."""
    form = rng.choice(("[step {}] ", "Step {}: ", "({} steps left) "))
    return map_outputs(events, lambda out, k: form.format(k if "left" not in form else 100 - k) + out)


# ---- cosmetic re-spellings of repeated calls ---------------------------------------------------------

_PLAIN_WORD = re.compile(r"(?<=\s)[A-Za-z0-9_./-]+(?=\s|$)")


def requote(cmd: str, rng: random.Random) -> str:
    """One plain argument quoted (bash removes the quotes: the same command)."""
    if any(c in cmd for c in "'\"\\$`\n#"):
        return cmd
    words = list(_PLAIN_WORD.finditer(cmd))
    if not words:
        return cmd
    m = rng.choice(words)
    q = rng.choice(("'", '"'))
    return f"{cmd[: m.start()]}{q}{m[0]}{q}{cmd[m.end() :]}"


CD_DIR = "/testbed"  # one directory: `cd A &&` and `cd B &&` would be two different actions


def cd_prefix(cmd: str, rng: random.Random) -> str:
    """The call behind `cd DIR &&`, `cd DIR;` or `pushd DIR &&` (the directory it already runs in)."""
    if rng.random() >= 0.7:
        return cmd
    return rng.choice(("cd {} && {}", "cd {}; {}", "pushd {} && {}")).format(CD_DIR, cmd)


def and_spacing(cmd: str, rng: random.Random) -> str:
    """`a && b`, `a&&b` or `a  &&  b`."""
    if "\n" in cmd or "'" in cmd or '"' in cmd:
        return cmd
    sep = rng.choice(("&&", " && ", "  &&  ", " &&"))
    return re.sub(r"\s*&&\s*", sep, cmd)


_URL = re.compile(r"https?://[^\s'\"<>]+")


_FETCH = re.compile(r"^(?:cd \S+ && )?(?:curl|wget|http|https|xh|lynx -dump)\b[^<>|;&\n]*$")


def url_variant(cmd: str, rng: random.Random) -> str:
    """Tracking parameters, host case, `www.` or a fragment on every URL a fetch command asks for (a
    URL inside a file the command writes is content, not a spelling).
    """
    if not _FETCH.match(cmd):
        return cmd

    def one(m: re.Match[str]) -> str:
        url = m[0]
        scheme, _, rest = url.partition("://")
        host, slash, path = rest.partition("/")
        kind = rng.choice(("utm", "case", "www", "fragment"))
        if kind == "case":
            host = host.upper()
        elif kind == "www":
            host = host[4:] if host.startswith("www.") else f"www.{host}"
        elif kind == "utm":
            path += ("&" if "?" in path else "?") + f"utm_source=agent&utm_campaign=c{rng.randint(1, 99)}"
        else:
            path += f"#section-{rng.randint(1, 9)}"
        return f"{scheme}://{host}{slash}{path}"

    return _URL.sub(one, cmd)


def any_respelling(cmd: str, rng: random.Random) -> str:
    fn = rng.choice((requote, cd_prefix, and_spacing, url_variant))
    return fn(cmd, rng)


def attempt_counter(events: list[TraceEvent], rng: random.Random) -> list[TraceEvent]:
    """A repeated call's result echoing how many times it was tried (`try 3`)."""
    form = rng.choice(("(try {})", "attempt {}", "retry #{}"))
    out = list(events)
    for i, e, n in repeated_calls(events):
        out[i] = replace(e, output=add_line(e.output, form.format(n + 1), "tail"))
    return out


# ---- neutral thoughts ----------------------------------------------------------------------------------

NEUTRAL = ("Let me run this.", "Let me check the output.", "OK.", "Continuing.", "Let me look at this again.")


def neutral_thoughts(events: list[TraceEvent], rng: random.Random) -> list[TraceEvent]:
    """A short neutral sentence of thought before some calls."""
    out: list[TraceEvent] = []
    p = rng.uniform(0.3, 1.0)
    for e in events:
        if e.kind == "call" and rng.random() < p:
            out.append(TraceEvent(0, 0, "think", e.agent, text=rng.choice(NEUTRAL)))
        out.append(e)
    return renumbered(out)


# ---- the other direction: real information in every result ---------------------------------------

WORDS = [
    "parser",
    "buffer",
    "token",
    "stream",
    "encoder",
    "handler",
    "filter",
    "mapper",
    "schema",
    "record",
    "column",
    "index",
    "cursor",
    "batch",
    "socket",
    "session",
    "queue",
    "worker",
    "thread",
    "module",
    "symbol",
    "vector",
    "matrix",
    "config",
    "loader",
    "cache",
    "entry",
    "bucket",
    "ledger",
    "invoice",
    "account",
    "payload",
    "header",
    "footer",
    "anchor",
    "widget",
    "layout",
    "border",
    "margin",
    "canvas",
    "sprite",
    "kernel",
    "driver",
    "device",
    "signal",
    "packet",
    "router",
    "bridge",
    "tunnel",
    "cluster",
    "replica",
    "shard",
    "leader",
    "follower",
]


def new_content(events: list[TraceEvent], rng: random.Random, start: int = 0) -> list[TraceEvent]:
    """From event `start` on, every call's result carries lines it never carried before (new words)."""
    out = []
    for e in events:
        if e.kind == "call" and e.index >= start:
            lines = [" ".join(rng.sample(WORDS, 6)) for _ in range(3)]
            e = replace(e, output=add_line(e.output, "\n".join(lines), "tail"), error=False, exit=None)
        out.append(e)
    return out


# ---- the classes ------------------------------------------------------------------------------------

INVARIANT: dict[str, Transform] = {
    "epoch-seconds": volatile(("[{v}] done", "time={v}", "{v} INFO finished"), epoch_seconds),
    "epoch-millis": volatile(("ts={v}", "[{v}] done", "{v} INFO finished"), epoch_millis),
    "job-pid": volatile(("[1] {v}",), a_pid),
    "prog-pid": volatile(("java[{v}]: started", "sshd[{v}]: session opened", "node[{v}]: listening"), a_pid),
    "port": volatile(("listening on port {v}", "connected to 127.0.0.1 port {v}", "port {v} open"), a_port),
    "temp-name": volatile(
        ("wrote /var/folders/q7/x2/T/tmp{v}", "wrote /home/agent/.cache/tmp{v}", "wrote ./build/tmp.{v}"), a_temp_tail
    ),
    "dashed-uuid": volatile(("request {v}", "session: {v}", "({v})"), a_uuid),
    "duration": volatile(("took {v:.2f}s", "real\t0m{v:.3f}s", "({v:.1f} seconds)", "done in {v:.3f} sec"), seconds),
    "ansi": ansi,
    "crlf": crlf,
    "bash-line-counter": bash_line_counter,
    "observation-prefix": observation_prefix,
    "exit-code-framing": exit_code_framing,
    "step-counter": step_counter,
    "requote": respelled(requote, echo=False),
    "cd-prefix": respelled(cd_prefix, echo=False),
    "and-spacing": respelled(and_spacing, echo=False),
    "url-variant": respelled(url_variant, echo=False, every=True),
    "respelling-echoed": respelled(any_respelling, echo=True),
    "attempt-counter": attempt_counter,
    "neutral-thoughts": neutral_thoughts,
}

# Classes that still flip verdicts on this build, and what flips. Each stays a strict xfail, so the fix
# of a class shows up as an unexpected pass: then delete its line here. The property tests see every
# labelled loop; the fast tests only their few sessions, hence two lists.
# a line put in front of a RepairAgent run's `Command … returned: Error:` results once moved its stop
# from call 12 to 39 (real-public 202, Closure_117): kept as an example of every volatile-line class
_VOLATILE_CLASSES = ("epoch-seconds", "epoch-millis", "job-pid", "prog-pid", "port", "temp-name", "dashed-uuid",
                     "duration")  # fmt: skip
FAILING_PROPERTY: dict[str, str] = {}
FAILING_FAST: dict[str, str] = {}
NEW_CONTENT_FAILING = (
    "a real-public DeepSeek run (019, gson-1391) is still stopped at its second loop call by three identical "
    "failures of a read made before the loop starts, which the transformation leaves as they were"
)


# Where a sweep or an earlier run found a class flipping (session, seed): run first as explicit examples
# of the Hypothesis test too.
_TAU = "real/real-273-tau-airline-gpt4o-113-task13.jsonl"  # `Error: ... on date 2024-05-13` behind a stamp line
SWEEP_FLIPS: dict[str, tuple[tuple[str, int], ...]] = {
    **{
        name: (("traces/202-sola-repairagent__experiment_412_Closure_117.jsonl", 602), (_TAU, 1))
        for name in _VOLATILE_CLASSES
    },
    # `took 12.31s` in a call with `"bug_index": 12`: the echoed 12 once split the duration
    "duration": (
        ("traces/202-sola-repairagent__experiment_412_Closure_117.jsonl", 602),
        (_TAU, 1),
        ("traces/203-sola-repairagent__experiment_521_JxPath_12.jsonl", 2),
    ),
    "cd-prefix": (("traces/128-kimi-mailman__azhsPLd.jsonl", 0),),
    # found by the property test itself (another seed draws another spelling), then by the sweep: a heredoc
    # echoed whole, `$ cmd` above `Wrong flag!`, `$ cmd` above an error quoting the call's values
    "respelling-echoed": (
        ("traces/114-kimi-fix-ocaml-gc__sxV2aBK.jsonl", 11553350),
        ("loops/loop-043-ab-cycle.jsonl", 1),
        ("loops/loop-042-ab-cycle.jsonl", 3),
        ("real/real-098-sweagent-ctf-crypto-eps.jsonl", 1),
        ("traces/106-kimi-mteb-retrieve__Z9jgSzu.jsonl", 1),
    ),
}


def classes(failing: dict[str, str]) -> list[object]:
    """The invariant classes as test parameters, the failing ones as strict xfails."""
    return [
        pytest.param(n, marks=pytest.mark.xfail(strict=True, reason=failing[n]), id=n)
        if n in failing
        else pytest.param(n, id=n)
        for n in INVARIANT
    ]


# ---- the property tests (slow) -----------------------------------------------------------------------


def looping() -> list[str]:
    """The labelled loops that have calls after their start (a result can turn only those into progress)."""
    return [s.name for s in sessions() if s.expected == "loop" and any(e.kind == "call" for e in loop_part(s))]


def loop_part(s: Session) -> list[TraceEvent]:
    return [e for e in s.events if e.index >= s.meta.judge_from]


def pool() -> list[str]:
    """The property pool: every labelled loop, and the legitimate look-alikes (repetitive work made to
    resemble a loop). The verdicts that flip are loops let through; a legitimate session that already
    varies its results has little a transformation could take away.
    """
    lookalikes = ("loops/", "work/")
    return [s.name for s in sessions() if s.expected == "loop" or s.name.startswith(lookalikes)]


def applies(name: str, session: str) -> bool:
    """Whether a class rewrites anything in the session (a URL class has nothing to do without URLs)."""
    events = list(by_name(session).events)
    return INVARIANT[name](events, random.Random(0)) != events


# No shrinking: every example replays a whole session, a shrink would replay dozens more, and the
# failing session and seed are printed as found.
PROPERTY = settings(
    max_examples=60,
    deadline=None,
    derandomize=True,
    database=None,
    phases=[Phase.explicit, Phase.reuse, Phase.generate],
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much],
)


def check_invariant(name: str, session: str, seed: int) -> None:
    s = by_name(session)
    changed = INVARIANT[name](list(s.events), random.Random(seed))
    got, was = verdict(s.meta, changed), original(session)
    assert got.same_as(was), f"{name} on {session} (seed {seed}): {was} became {got}"


def sweep_seeds(name: str, session: str) -> tuple[int, int]:
    """The sweep's two seeds for one class on one session: fixed, and different for every pair (one seed
    shared by every session would draw the same form and place, head or tail, for all of them).
    """
    base = zlib.crc32(f"{name} {session}".encode())
    return base, base + 1


def rewritten(name: str) -> list[str]:
    """The sessions of the pool the class rewrites (the test is skipped when no corpus is present)."""
    names = [s for s in pool() if applies(name, s)]
    if not names:
        pytest.skip("no labelled corpus present")
    return names


@pytest.mark.slow
@pytest.mark.parametrize("name", classes(FAILING_PROPERTY))
def test_invariant_over_every_session(name: str) -> None:
    """Every session of the pool the class rewrites, with its two sweep seeds: no flip anywhere."""
    names = rewritten(name)
    flips = []
    for session in names:
        for seed in sweep_seeds(name, session):
            try:
                check_invariant(name, session, seed)
            except AssertionError as e:
                flips.append(str(e))
    assert flips == []


@pytest.mark.slow
@pytest.mark.parametrize("name", classes(FAILING_PROPERTY))
def test_invariant_over_real_sessions(name: str) -> None:
    """Further seeds drawn by Hypothesis on sampled sessions (the sweep's seeds are two per session)."""
    names = rewritten(name)

    @PROPERTY
    @given(session=st.sampled_from(names), seed=st.integers(0, 2**32 - 1))
    def prop(session: str, seed: int) -> None:
        check_invariant(name, session, seed)

    for session, seed in SWEEP_FLIPS.get(name, ()):
        if session in names:
            prop = example(session=session, seed=seed)(prop)
    prop()


@pytest.mark.slow
@pytest.mark.xfail(strict=True, reason=NEW_CONTENT_FAILING)
def test_new_content_turns_loops_into_progress() -> None:
    names = looping()
    if not names:
        pytest.skip("no labelled corpus present")

    @PROPERTY
    @given(session=st.sampled_from(names), seed=st.integers(0, 2**32 - 1))
    def prop(session: str, seed: int) -> None:
        was = original(session)
        # a loop the build does not stop, or stops by a stream trip (reasoning), has nothing to turn
        assume(was.blocked and was.action != "abort")
        s = by_name(session)
        changed = new_content(list(s.events), random.Random(seed), s.meta.judge_from)
        got = verdict(s.meta, changed)
        first_loop_call = sum(1 for e in s.events if e.kind == "call" and e.index < s.meta.judge_from)
        assert not got.blocked or got.call <= first_loop_call, f"{session} (seed {seed}) still blocked: {got}"

    prop()


# ---- the fast subset ---------------------------------------------------------------------------------


def fast_pool() -> list[str]:
    """One short loop of each class of the project's loops corpus, and the shared everyday-work loops."""
    out, seen = [], set()
    for s in sessions():
        cls = s.meta.name.split("/")[1] if s.name.startswith("loops/") else ""
        if cls and cls not in seen:
            seen.add(cls)
            out.append(s.name)
        elif s.name.startswith("work/") and s.expected == "loop":
            out.append(s.name)
    return out


@pytest.mark.parametrize("name", classes(FAILING_FAST))
def test_invariant_fast(name: str) -> None:
    names = fast_pool()
    if not names:
        pytest.skip("no labelled corpus present")
    for session in names:
        check_invariant(name, session, 0)


def test_transformations_change_the_text() -> None:
    """Each class rewrites real sessions (a no-op would pass every invariance test)."""
    names = pool()
    if not names:
        pytest.skip("no labelled corpus present")
    assert [n for n in INVARIANT if not any(applies(n, s) for s in names)] == []


# ---- the figures of every class on every loop, seed 0: `python -m tests.unit.engine.test_invariance [--jobs N]` ---


REVERSE = "new-content (still blocked)"


def sweep_one(session: str) -> dict[str, Verdict]:
    """Every class once (seed 0) on one session: the classes whose verdict moved, and what it became."""
    s, was = by_name(session), original(session)
    out = {}
    for name, fn in INVARIANT.items():
        events = list(s.events)
        changed = fn(events, random.Random(0))
        if changed != events and not (got := verdict(s.meta, changed)).same_as(was):
            out[name] = got
    if session in looping() and was.blocked and was.action != "abort":
        got = verdict(s.meta, new_content(list(s.events), random.Random(0), s.meta.judge_from))
        if got.blocked and got.call > sum(1 for e in s.events if e.kind == "call" and e.index < s.meta.judge_from):
            out[REVERSE] = got
    return out


def main(argv: list[str] | None = None) -> int:
    """Print, per class, how many labelled loops flip and the first few (the figures of docs/detection.md)."""
    import argparse
    from concurrent.futures import ProcessPoolExecutor

    p = argparse.ArgumentParser(description="Sweep every labelled loop through every invariance class once.")
    p.add_argument("--jobs", type=int, default=2, help="worker processes (default 2)")
    a = p.parse_args(argv)
    loops = [s.name for s in sessions() if s.expected == "loop"]
    with ProcessPoolExecutor(a.jobs) as pool:
        found = dict(zip(loops, pool.map(sweep_one, loops, chunksize=4), strict=True))
    print(f"{len(loops)} labelled loops; {sum(bool(f) for f in found.values())} flip in at least one class")
    for name in [*INVARIANT, REVERSE]:
        hit = [(s, f[name]) for s, f in found.items() if name in f]
        shown = ", ".join(f"{s} {original(s).rule}@{original(s).call}->{v.rule or '-'}@{v.call}" for s, v in hit[:3])
        print(f"{name:20} {len(hit):4}  {shown}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
