"""Scripted model behaviours for the mock model: normal answers, loops, floods, failures, errors, hangs."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any


@dataclass
class ToolCallSpec:
    """One tool call the mock model makes."""

    name: str
    args: dict[str, Any]


@dataclass
class Reply:
    """One scripted model response."""

    reasoning: list[str] = field(default_factory=list)
    content: str = ""
    tool_calls: list[ToolCallSpec] = field(default_factory=list)
    status: int = 200
    error: str = ""
    hang: bool = False
    delay_ms: float = 2.0
    force_reasoning: bool = False  # stream reasoning even when the request turned thinking off


@dataclass(frozen=True)
class Turn:
    """What the mock sees of a request: its position in the conversation and what came back."""

    index: int  # number of assistant messages already in the conversation
    thinking: bool
    last_tool_texts: list[str]
    user_texts: list[str]


Script = Callable[[Turn], Reply]


def _chunks(text: str, size: int = 40) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)]


def _done(turn: Turn, summary: str) -> Reply:
    return Reply(reasoning=["Wrapping up with what I have."], content=summary)


def normal(turn: Turn) -> Reply:
    """Answers every prompt directly after a short thought."""
    return Reply(
        reasoning=_chunks("The user wants a short answer. I can reply directly without tools."),
        content=f"Hello from the mock model (reply {turn.index + 1}).",
    )


def _reread(i: int, thought: str, **extra: Any) -> Reply:
    """Attempt `i` of a cosmetic re-read of notes.txt: the spacing and the description change, the read does not."""
    args = {
        "command": "cat" + " " * (1 + i % 2) + "notes.txt; echo ran >> calls.log",
        "description": f"Read the notes, attempt {i + 1}",
        **extra,
    }
    return Reply(reasoning=_chunks(thought), tool_calls=[ToolCallSpec("bash", args)])


def tool_loop(turn: Turn) -> Reply:
    """Re-reads the same file with cosmetic changes (description, timeout, spacing) six times."""
    if turn.index < 6:
        i = turn.index
        thought = f"I should read notes.txt again to be sure (attempt {i + 1})."
        return _reread(i, thought, timeoutMs=30000 + 1000 * i)
    blocked = any("REPEAT_TOOL_BLOCKED" in t for t in turn.last_tool_texts)
    return _done(turn, "I was stopped from re-reading notes.txt." if blocked else "Done reading notes.txt.")


def stubborn_loop(turn: Turn) -> Reply:
    """The cosmetic loop of `tool_loop`, which goes on in every turn, even after "go on" (12 attempts)."""
    if turn.index < 12:
        return _reread(turn.index, f"I must read notes.txt again (attempt {turn.index + 1}).")
    return _done(turn, "I give up re-reading notes.txt.")


def alias_ping_pong(turn: Turn) -> Reply:
    """Fetches one resource alternating two spellings of the same host, into the same file."""
    if turn.index < 6:
        host = "open-data.canada.ca" if turn.index % 2 == 0 else "open.canada.ca"
        cmd = f"curl -s --max-time {turn.index + 1} https://{host}/data/x.csv -o data.csv || true"
        return Reply(
            reasoning=_chunks("The dataset must be on the other mirror, let me fetch it again."),
            tool_calls=[ToolCallSpec("bash", {"command": cmd, "description": f"Fetch dataset try {turn.index}"})],
        )
    return _done(turn, "The dataset could not be fetched.")


def dev_server_loop(turn: Turn) -> Reply:
    """Polls a local development server's health endpoint over and over."""
    if turn.index < 7:
        cmd = f"curl -s -w 'code-{turn.index}' -o /dev/null http://127.0.0.1:18999/health || true"
        return Reply(
            reasoning=_chunks("The dev server may be up now; poll its health endpoint."),
            tool_calls=[ToolCallSpec("bash", {"command": cmd, "description": f"Poll health {turn.index}"})],
        )
    return _done(turn, "Stopped polling the dev server.")


LOOP_SENTENCE = (
    "I need to verify the adapter accepts this reasoning effort value. Checking attempt {i} of 40, "
    "still no new conclusion, so I will check the same field once more.\n"
)


# A looping stream does not end by itself: the scripted loops run for hundreds of chunks (about a
# second at the mock's pace), so the monitor's abort always lands mid-stream, even on a loaded machine.
LOOP_CHUNKS = 400
# ...and at a real model's pace (about 50 chunks a second), so a cancel lands mid-stream as it does with a real
# model: at the default 2 ms an agent such as opencode had the whole reply before the cancel reached it.
LOOP_DELAY_MS = 20.0


def reasoning_loop(turn: Turn) -> Reply:
    """Reasoning that repeats itself; with thinking off it answers directly."""
    if not turn.thinking:
        return Reply(content="Answering directly: the adapter accepts the value.")
    return Reply(
        reasoning=[LOOP_SENTENCE.format(i=i) for i in range(LOOP_CHUNKS)],
        content="(never reached)",
        delay_ms=LOOP_DELAY_MS,
    )


def reasoning_loop_twice(turn: Turn) -> Reply:
    """Reasoning that keeps looping even when the step is retried with thinking off."""
    return Reply(
        reasoning=[LOOP_SENTENCE.format(i=i) for i in range(LOOP_CHUNKS)],
        content="(never reached)",
        force_reasoning=True,
        delay_ms=LOOP_DELAY_MS,
    )


def star_flood(turn: Turn) -> Reply:
    """Reasoning that decays into `*** *** ***`; with thinking off it answers."""
    if not turn.thinking:
        return Reply(content="Answering without the star storm.")
    return Reply(
        reasoning=["Let me think. "] + ["*** " * 10] * LOOP_CHUNKS, content="(never reached)", delay_ms=LOOP_DELAY_MS
    )


def failing_tool(turn: Turn) -> Reply:
    """Retries a failing command with only its numbers changed."""
    if turn.index < 5:
        n = turn.index + 1
        return Reply(
            reasoning=_chunks("The script failed; try it once more."),
            tool_calls=[
                ToolCallSpec("bash", {"command": f"python3 -c 'print({n}/0)'", "description": f"Run the script {n}"})
            ],
        )
    return _done(turn, "The script keeps failing; stopping.")


def read_loop(turn: Turn) -> Reply:
    """Re-reads the same file with a read-only tool (agents run these without asking)."""
    if turn.index < 8 and not any("[breaker-tui]" in u for u in turn.user_texts[-1:]):
        return Reply(
            reasoning=_chunks(f"Let me look at notes.txt once more (look {turn.index + 1})."),
            tool_calls=[ToolCallSpec("read", {"path": "notes.txt"})],
        )
    return _done(turn, "I stopped re-reading notes.txt: the release is on Friday.")


def http_500(turn: Turn) -> Reply:
    """The provider fails."""
    return Reply(status=500, error="mock boom")


def hang(turn: Turn) -> Reply:
    """Starts thinking, then never finishes the first response; later prompts get normal answers."""
    if turn.index == 0:  # the mock hangs once per server (`MockModel.once`): ACP agents keep cancelled prompts
        return Reply(reasoning=_chunks("Let me think about this very carefully before answering."), hang=True)
    return normal(turn)


SPANISH_SENTENCE = (
    "Necesito comprobar que el adaptador acepta este valor de esfuerzo de razonamiento, "
    "así que lo verifico una vez más antes de responder. "
)


def reasoning_loop_es(turn: Turn) -> Reply:
    """One Spanish sentence repeated verbatim for 8,640 characters; with thinking off it answers."""
    if not turn.thinking:
        return Reply(content="Respondo directamente: el adaptador acepta el valor.")
    text = (SPANISH_SENTENCE * (8640 // len(SPANISH_SENTENCE) + 1))[:8640]
    return Reply(reasoning=_chunks(text), content="(never reached)")


def sparkle_flood(turn: Turn) -> Reply:
    """Reasoning that decays into a ✦✧ flood; with thinking off it answers."""
    if not turn.thinking:
        return Reply(content="Answering without the sparkles.")
    return Reply(
        reasoning=["Let me plan this out. "] + ["✦✧✦✧ ✧✦✧✦ ✦✦✧✧ ✧✧✦✦ "] * LOOP_CHUNKS, content="(never reached)"
    )


# The edit -> check cycle: calc.py starts with one bug per function, check.py stops at the first
# wrong answer. Each fix makes the next run fail differently, until the last run prints PASS.
CALC_PY = """\
def add(a, b):
    return a - b


def sub(a, b):
    return a + b


def mul(a, b):
    return a + b


def div(a, b):
    return b / a
"""
CHECK_PY = """\
import sys

from calc import add, div, mul, sub

CASES = [("add", add(2, 3), 5), ("sub", sub(7, 4), 3), ("mul", mul(3, 4), 12), ("div", div(8, 2), 4)]
for name, got, want in CASES:
    if got != want:
        print(f"FAIL {name}: got {got}, want {want}")
        sys.exit(1)
print("PASS")
"""
CALC_FIXES = [
    ("return a - b", "return a + b  # add"),
    ("return a + b\n\n\ndef mul", "return a - b\n\n\ndef mul"),
    ("return a + b\n\n\ndef div", "return a * b\n\n\ndef div"),
    ("return b / a", "return a / b"),
]
RUN_CHECK = ToolCallSpec("bash", {"command": "python3 check.py", "description": "Run the checks"})


def _setup_calls(turn: Turn) -> Reply | None:
    """Steps 0-2 of both check scenarios: write calc.py and check.py, then read calc.py."""
    if turn.index == 0:
        return Reply(
            reasoning=_chunks("I will set up the module and its check script."),
            tool_calls=[ToolCallSpec("write", {"file_path": "calc.py", "content": CALC_PY})],
        )
    if turn.index == 1:
        return Reply(
            reasoning=_chunks("Now the check script."),
            tool_calls=[ToolCallSpec("write", {"file_path": "check.py", "content": CHECK_PY})],
        )
    if turn.index == 2:
        return Reply(
            reasoning=_chunks("Read calc.py before running anything."),
            tool_calls=[ToolCallSpec("read", {"file_path": "calc.py"})],
        )
    return None


def edit_check_cycle(turn: Turn) -> Reply:
    """Read, run the check (fails), fix one function, run again (fails differently), ... until PASS."""
    setup = _setup_calls(turn)
    if setup is not None:
        return setup
    k = turn.index - 3  # runs at even k, edits at odd k
    if k % 2 == 0 and k // 2 <= len(CALC_FIXES):
        return Reply(reasoning=_chunks(f"Run the checks (round {k // 2 + 1})."), tool_calls=[RUN_CHECK])
    if k % 2 == 1 and k // 2 < len(CALC_FIXES):
        old, new = CALC_FIXES[k // 2]
        return Reply(
            reasoning=_chunks(f"The check failed; fix the function it names (fix {k // 2 + 1})."),
            tool_calls=[ToolCallSpec("edit", {"file_path": "calc.py", "old_string": old, "new_string": new})],
        )
    last = turn.last_tool_texts[0] if turn.last_tool_texts else ""
    return _done(turn, "All checks pass." if "PASS" in last else f"Stopped: {last[:200]}")


def same_check_six(turn: Turn) -> Reply:
    """Runs the same failing check verbatim six times with nothing changed in between."""
    setup = _setup_calls(turn)
    if setup is not None:
        return setup
    if turn.index < 9:
        return Reply(reasoning=_chunks("Maybe it passes this time; run it again."), tool_calls=[RUN_CHECK])
    return _done(turn, "The check keeps failing the same way.")


CODE_MODE_LOOP = """const out = [];
for (let i = 0; i < 6; i++) {
  try {
    await tools.bash({ command: "cat notes.txt", description: `Read the notes, attempt ${i + 1}` });
    out.push("ran");
  } catch (e) {
    out.push("refused: " + String(e && e.message).slice(0, 80));
  }
}
return out.join("\\n");
"""


def code_mode_loop(turn: Turn) -> Reply:
    """Under dsh's Code Mode: one `run_code` program that re-reads the same file six times."""
    if turn.index == 0:
        return Reply(
            reasoning=_chunks("I will read notes.txt in a small program, a few times to be sure."),
            tool_calls=[ToolCallSpec("run_code", {"code": CODE_MODE_LOOP, "description": "Read the notes"})],
        )
    refused = any("refused" in t for t in turn.last_tool_texts)
    return _done(turn, "Some of the reads were refused." if refused else "All six reads ran.")


# A build log that grows while the agent watches it: a writer started in the background by the first
# call appends a line every 20 ms (for at most 1,000 lines, or until `stop` exists), in its own session
# so the harness's process group does not end it; its pid is left in `writer.pid` for whoever cleans up.
LOG_WRITER = (
    "setsid sh -c 'i=0; while [ $i -lt 1000 ] && [ ! -e stop ]; do i=$((i+1)); "
    'echo "build step $i done" >> app.log; sleep 0.02; done\' >/dev/null 2>&1 </dev/null & echo $! > writer.pid'
)
GROWING_READS = 12


def growing_log_read(turn: Turn) -> Reply:
    """Starts a background writer, then reads the same growing log 12 times (every result differs)."""
    if turn.index == 0:
        return Reply(
            reasoning=_chunks("Start the build in the background, then watch its log."),
            tool_calls=[ToolCallSpec("bash", {"command": LOG_WRITER, "description": "Start the build"})],
        )
    if turn.index <= GROWING_READS:
        return Reply(
            reasoning=_chunks(f"Check how far the build got (look {turn.index})."),
            tool_calls=[ToolCallSpec("read", {"file_path": "app.log"})],
        )
    return _done(turn, "The build is progressing.")


# The same answer whatever the attempt number: only the counter in the command changes.
FETCH_PY = 'import json\nprint(json.dumps({"status": "pending", "items": [], "next": None}))\n'
COUNTER_RETRIES = 8


def counter_retry(turn: Turn) -> Reply:
    """Writes fetch.py, then runs it 8 times with only `--attempt N` changed; each run answers the same."""
    if turn.index == 0:
        return Reply(
            reasoning=_chunks("Write the export fetcher."),
            tool_calls=[ToolCallSpec("write", {"file_path": "fetch.py", "content": FETCH_PY})],
        )
    if turn.index <= COUNTER_RETRIES:
        n = turn.index
        return Reply(
            reasoning=_chunks(f"Maybe the export is ready now; try again (attempt {n})."),
            tool_calls=[
                ToolCallSpec("bash", {"command": f"python3 fetch.py --attempt {n}", "description": f"Fetch {n}"})
            ],
        )
    return _done(turn, "The export is still pending.")


# One weekly export fetched seven times in cosmetic variants (tracking parameters, host case, `www.`, a
# fragment, curl <-> wget, flags). The `.invalid` host never resolves, so every run fails the same way and
# its error names the host as this call spelled it: only the spelling differs between the answers. The
# pipe hides the failure's status (`| head` exits 0), as agents' fetches often do.
COSMETIC_FETCHES = (
    "curl -sS 'https://open.canada.invalid/data/weekly-export.csv?utm_source=chat' 2>&1 | head -20",
    "curl -sS 'https://Open.Canada.INVALID/data/weekly-export.csv' 2>&1 | head -20",
    "curl -sSL 'https://www.open.canada.invalid/data/weekly-export.csv#latest' 2>&1 | head -20",
    "wget -nv -O - 'https://open.canada.invalid/data/weekly-export.csv?fbclid=xyz' 2>&1 | tail -5",
    "curl --fail --silent --show-error 'https://OPEN.canada.invalid/data/weekly-export.csv' 2>&1 | head",
    "curl -sS --max-time 30 'https://www.Open.Canada.invalid/data/weekly-export.csv?utm_medium=x' 2>&1 | head",
    "wget -nv -O- 'https://open.canada.invalid/data/weekly-export.csv#top' 2>&1 | tail -5",
)


def cosmetic_fetch(turn: Turn) -> Reply:
    """Fetches one weekly export seven times in cosmetic variants; each failure echoes its own spelling."""
    if turn.index < len(COSMETIC_FETCHES):
        return Reply(
            reasoning=_chunks("The export did not come; fetch it again, maybe this spelling works."),
            tool_calls=[ToolCallSpec("bash", {"command": COSMETIC_FETCHES[turn.index], "description": "Fetch"})],
        )
    return _done(turn, "The weekly export could not be fetched.")


PLAN = [
    ("Read notes.txt", "high"),
    ("Move the release to Monday in notes.txt", "medium"),
    ("Show the release checklist", "low"),
]
CHECKLIST = (
    "for i in 1 2 3 4 5 6 7 8 9 10 11 12; do echo \"checklist item $i: ok\"; done; echo 'checklist: 12 items, 1 note'"
)


def _plan(done: int) -> ToolCallSpec:
    """The todo tool with the plan's first `done` steps completed and the next one in progress."""
    todos = [
        {
            "content": text,
            "activeForm": text,
            "priority": prio,
            "status": "completed" if i < done else ("in_progress" if i == done else "pending"),
        }
        for i, (text, prio) in enumerate(PLAN)
    ]
    return ToolCallSpec("todowrite", {"todos": todos})


def plan_and_edit(turn: Turn) -> Reply:
    """A plan (the agent's todo tool), an edit of notes.txt, a command with 13 lines of output, the plan done."""
    steps = [
        Reply(reasoning=_chunks("I will plan this first."), tool_calls=[_plan(0)]),
        Reply(
            reasoning=_chunks("Now the edit."),
            tool_calls=[
                ToolCallSpec("edit", {"path": "notes.txt", "old_string": "on Friday", "new_string": "on Monday"})
            ],
        ),
        Reply(
            reasoning=_chunks("Show the checklist."),
            tool_calls=[ToolCallSpec("bash", {"command": CHECKLIST, "description": "Show the release checklist"})],
        ),
        Reply(reasoning=_chunks("All steps are done."), tool_calls=[_plan(len(PLAN))]),
    ]
    if turn.index < len(steps):
        return steps[turn.index]
    return _done(turn, "The release is now on Monday; the checklist has 12 items.")


# A command that leaves a child behind and then keeps running: the cancel lands while it runs. The background
# job runs in a session of its own (`setsid`), as Codex runs its commands, so neither the agent's process group
# nor the command's own ends it: only tracking the agent's descendants does. Python, not `sleep`: Claude Code
# refuses a command that starts with a bare `sleep N`.
SLEEPER = "setsid python3 -c 'import time; time.sleep(300)' & python3 -c 'import time; time.sleep(301)'; echo done"


def sleeper(turn: Turn) -> Reply:
    """Starts a long job that forks a background child, then waits on it (cancel it mid-call)."""
    if turn.index == 0:
        return Reply(
            reasoning=_chunks("Start the long job and wait for it."),
            tool_calls=[ToolCallSpec("bash", {"command": SLEEPER, "description": "Run the long job"})],
        )
    return _done(turn, "The long job was stopped.")


SCENARIOS: dict[str, tuple[Script, str, str]] = {
    # name: (script, default prompt, one-line description)
    "normal": (normal, "Say hello.", "a plain answer, no loop"),
    "tool-loop": (tool_loop, "Read notes.txt.", "the same call re-run with cosmetic changes (denied at the 5th)"),
    "stubborn-loop": (stubborn_loop, "Read notes.txt.", "the cosmetic loop that goes on after every refusal and turn"),
    "alias-ping-pong": (alias_ping_pong, "Fetch the dataset.", "one URL under two host spellings (caught on net:)"),
    "dev-server-loop": (dev_server_loop, "Wait for the dev server.", "a local-only repeat (the operator is asked)"),
    "reasoning-loop": (reasoning_loop, "Check the adapter.", "reasoning that repeats (abort, retry thinking off)"),
    "reasoning-loop-twice": (reasoning_loop_twice, "Check the adapter.", "loops even after the retry (terminal)"),
    "reasoning-loop-es": (reasoning_loop_es, "Check the adapter.", "a Spanish sentence repeated for 8,640 chars"),
    "sparkle-flood": (sparkle_flood, "Plan the release.", "reasoning decays into a ✦✧ flood (degeneracy lens)"),
    "edit-check-cycle": (edit_check_cycle, "Fix calc.py.", "edit -> run the check, failing differently, until PASS"),
    "same-check-six": (same_check_six, "Make the check pass.", "the same failing check re-run verbatim six times"),
    "star-flood": (star_flood, "Summarise the plan.", "reasoning decays into *** floods (degeneracy lens)"),
    "failing-tool": (failing_tool, "Run the script.", "a failing call retried (steered, then denied)"),
    "read-loop": (read_loop, "Read notes.txt.", "the same read-only call again and again (never asks)"),
    "http-500": (http_500, "Say hello.", "the model provider returns HTTP 500"),
    "hang": (hang, "Think hard.", "the model stalls mid-stream (cancel it)"),
    "plan-and-edit": (plan_and_edit, "Move the release to Monday.", "a plan, an edit (a diff), 13 lines of output"),
    "code-mode-loop": (code_mode_loop, "Read notes.txt.", "Code Mode: one program re-reads a file six times"),
    "growing-log-read": (growing_log_read, "Watch the build.", "the same read of a log that grows (never refused)"),
    "counter-retry": (counter_retry, "Fetch the export.", "a retry with only a counter changed, same answer"),
    "cosmetic-fetch": (cosmetic_fetch, "Fetch the weekly export.", "one export fetched in 7 cosmetic spellings"),
    "sleeper": (sleeper, "Run the long job.", "a command that forks a background child and keeps running (cancel)"),
}

# Scenarios that mean what they say with one kind of agent only, and why: `demo --list` marks them and
# `demo` refuses the other kind with the reason rather than play a script the agent cannot follow.
NEEDS_ACP: dict[str, str] = {"plan-and-edit": "an ACP agent's todo tool (todowrite), which dsh does not have"}
NEEDS_DSH: dict[str, str] = {"code-mode-loop": "dsh's Code Mode (run_code), which ACP agents do not have"}
# The same for one ACP agent: scenario -> {agent: why it cannot play it}. An agent missing here plays the
# scenario to its outcome (tests/integration/test_acp_demos.py runs every pair).
_LOOP_GUARD = "ends the turn itself at the fifth identical call (its own loop guard), so breaker-tui's check never acts"
NOT_WITH: dict[str, dict[str, str]] = {
    "read-loop": {"gemini": f"Gemini CLI {_LOOP_GUARD}"},
    "same-check-six": {"gemini": f"Gemini CLI {_LOOP_GUARD}"},
    "growing-log-read": {
        "gemini": f"Gemini CLI {_LOOP_GUARD}",
        "qwen": "Qwen Code's shell does not keep the background writer running, so the log never appears",
    },
    "plan-and-edit": {
        "gemini": "Gemini CLI declares no todo tool, so there is no plan to show",
        "qwen": "Qwen Code offers its todo tool only through its tool search, so there is no plan to show",
    },
    "http-500": {
        agent: f"{name} retries a failing provider quietly for minutes before it says so"
        for agent, name in (("claude", "Claude Code"), ("gemini", "Gemini CLI"))
    },
}

# What a scenario needs from dsh's environment to mean what it says.
SCENARIO_ENV: dict[str, dict[str, str]] = {"code-mode-loop": {"DSH_TOOLS_MODE": "code"}}
