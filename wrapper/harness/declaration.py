"""What the registry needs to know of a harness, in one declaration per harness.

A harness folder keeps its workings to itself and hands the registry one `Harness` value (dsh's is
`harness.dsh.declaration.DSH`): how to tell its command lines, open and replay its sessions, set it up,
check it for `doctor`, lay out a demo world against the mock model and feed scripted messages through its
monitor. The CLI, the demo, the screen's sources and the benchmarks reach a harness only through these
fields (by way of the registry), so a harness's name appears outside its folder in its declaration alone.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from wrapper.items import Answer, Item, Question

if TYPE_CHECKING:
    from wrapper.harness.base import Approver, HarnessSession
    from wrapper.harness.capabilities import Capabilities
    from wrapper.mock.world import World
    from wrapper.monitor import Monitor
    from wrapper.records.recorder import Recorder
    from wrapper.records.sources import Loaded
    from wrapper.settings import Settings
    from wrapper.toolchain import Check, Say


@dataclass
class Played:
    """What one scripted message did: the items to show, and the question it asks (if any) with its answerer."""

    items: list[Item] = field(default_factory=list)
    question: Question | None = None
    answer: Callable[[Answer], None] | None = None


class ScriptedFeed(Protocol):
    """A harness's messages played from memory through its real monitor (Pilot tests and snapshots)."""

    @property
    def monitor(self) -> Monitor: ...

    def play(self, raw: dict[str, Any]) -> Played: ...


@dataclass
class Chosen:
    """A setting switched in a scripted feed: the request an agent would get, the setting's name, what it showed."""

    method: str
    name: str
    items: list[Item] = field(default_factory=list)


class ScriptedAgentFeed(ScriptedFeed, Protocol):
    """An agent's frames played from memory: a scripted feed whose agent also offers settings to switch."""

    @property
    def capabilities(self) -> Capabilities: ...

    def choose(self, choice_id: str, value: str) -> Chosen | None: ...


class Opener(Protocol):
    """Opens the harness's session for a command line (`resume`: a past session to continue, or None)."""

    def __call__(
        self,
        argv: list[str],
        settings: Settings,
        approver: Approver,
        cwd: str | None,
        env: dict[str, str] | None,
        recorder: Recorder | None,
        resume: str | None,
    ) -> HarnessSession: ...


@dataclass(frozen=True)
class Harness:
    """One harness as the registry sees it.

    `cannot_start(argv)`: why the harness's own program cannot run (with the fix), "" when it can, None to
    leave the question to the generic PATH check. `resume_problem(argv)`: why `--resume` cannot work, or "".
    `write_profile(home, name, overwrite)` raises ValueError with what to do when the profile cannot be written.
    `load(script, env, timeout_s)` runs a load generator against a real channel of the harness and returns the
    generator's stdout and the count of lines the channel refused (the round-trip benchmark).
    """

    name: str
    matches: Callable[[list[str]], bool]
    open: Opener
    replayer: Callable[[Loaded, Settings], Any]
    checks: Callable[[], list[Check]]
    find: Callable[[], Path | None]
    setup: Callable[[Say, bool], Path]
    cannot_start: Callable[[list[str]], str | None]
    resume_problem: Callable[[list[str]], str]
    watched_files: Callable[[list[str], dict[str, str] | None], dict[str, Path]]
    demo_argv: tuple[str, ...]
    demo_world: Callable[[str], World]
    write_profile: Callable[[Path, str, bool], Path]
    scripted: Callable[[Settings], ScriptedFeed]
    load: Callable[[Path, dict[str, str], float], Awaitable[tuple[str, int]]]
