"""The `breaker-tui` command line: run a command under the monitor, replay, scan, demo and the helpers.

A person judges a command first by how soon it answers, so this module imports only what parsing
needs: `--version` and `--help` print before Textual, the engine or asyncio are loaded, and each
command imports its own machinery when it runs (`python -m tui.benchstart` measures it).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from engine.errors import ConfigError
from wrapper.exits import Exit, table
from wrapper.paths import config_file

if TYPE_CHECKING:
    from wrapper.settings import Settings
    from wrapper.toolchain import Check

EXIT_OK, EXIT_USAGE, EXIT_CANNOT_START, EXIT_INTERNAL = Exit.OK, Exit.USAGE, Exit.CANNOT_START, Exit.INTERNAL

USAGE_COLUMN = 47  # where the usage lines' descriptions start
RUN_LINE = ("[OPTIONS] -- COMMAND [ARGS...]", "run COMMAND (dsh, an agent name such as opencode) under the monitor")
VERSION_LINE = ("--version", "print the version")


def usage() -> str:
    """One line per way to call the command, built from `SUBCOMMANDS` (each subcommand is described there once)."""
    rows = [RUN_LINE, *((f"{name} {sub.args}".rstrip(), sub.does) for name, sub in SUBCOMMANDS.items()), VERSION_LINE]
    lines = []
    for args, does in rows:
        left = f"breaker-tui {args}"
        if len(left) < USAGE_COLUMN:
            lines.append(f"{left:<{USAGE_COLUMN - 1}} {does}")
        else:  # a long synopsis: its description on the next line, in the column
            lines += [left, f"{'':{USAGE_COLUMN - 1}} {does}"]
    return "\n".join(lines) + "\n"


HELP_TAIL = """
keys: F1 on the screen lists the keys of the current mode; ctrl+q quits.

exit status:
{exits}
"""


def full_help() -> str:
    """The usage, the run options, themes, exit codes and the config path."""
    return usage() + "\n" + _run_options() + HELP_TAIL.format(exits=table())


def _run_options() -> str:
    """The run options as the parser declares them (their `help=` is the only place they are described)."""
    p = _run_parser()
    p.usage = argparse.SUPPRESS
    p.formatter_class = _HelpLayout
    return p.format_help().replace("options:", "options (before `--`):", 1)


class _HelpLayout(argparse.HelpFormatter):
    """A fixed width, so `--help` and the generated reference read the same on every terminal."""

    def __init__(self, prog: str) -> None:
        super().__init__(prog, max_help_position=28, width=112)

    def _split_lines(self, text: str, width: int) -> list[str]:
        import textwrap

        # a path or an option is never cut at its hyphens (`breaker-` / `tui`, `--` / `digests`)
        return textwrap.wrap(" ".join(text.split()), width, break_on_hyphens=False, break_long_words=False)


def version() -> str:
    """`breaker-tui X.Y.Z (engine: compiled (mypyc) | plain Python)`: the package and the engine build running."""
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as v

    import engine

    try:
        number = v("breaker-tui")
    except PackageNotFoundError:
        number = "(not installed)"
    return f"breaker-tui {number} (engine: {engine.build_info()})"


def screen_problem(instead: str = "use --no-tui for scripts") -> str | None:
    """Why the screen cannot be drawn from here, or None.

    Textual reads keys from stdin and draws on stderr: a script that forgot `--no-tui` would get
    escape codes in its files and a screen nobody answers. A process outside the terminal's
    foreground group (`&`, or under `timeout`) is stopped by SIGTTOU when it takes the terminal,
    blank, for good. Both are refused before anything starts, so no child runs and no recording is made.
    """
    for name, stream in (("stdin", sys.__stdin__), ("stderr", sys.__stderr__)):
        try:
            tty = stream is not None and os.isatty(stream.fileno())
        except (ValueError, OSError):  # closed
            tty = False
        if not tty:
            return f"not a terminal ({name} is not one); {instead}"
    try:
        background = os.tcgetpgrp(sys.__stdin__.fileno()) != os.getpgrp()  # type: ignore[union-attr]
    except OSError:  # a terminal that is not this session's controlling one: nothing will stop us
        background = False
    if background:
        return (
            "started in a background process group (with `&`, or under `timeout` without --foreground), "
            f"where the screen would be stopped: run it in the foreground, or {instead}"
        )
    return None


def refuse_screen(why: str) -> int:
    """Say why the screen is refused (even from the background: SIGTTOU is ignored for the one line)."""
    import signal

    with contextlib.suppress(OSError, ValueError):
        signal.signal(signal.SIGTTOU, signal.SIG_IGN)
    print(f"breaker-tui: {why}", file=sys.stderr)
    return EXIT_USAGE


def _run_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="breaker-tui", usage=usage(), add_help=False)
    add = p.add_argument
    add("--config", type=Path, metavar="FILE", help=f"use this config file (default: {config_file()})")
    add("--theme", metavar="NAME", help="breaker-dark, breaker-light, or any Textual theme")
    add("--observe", action="store_true", help="start with enforcement paused (observe only)")
    add(
        "--acp",
        action="store_true",
        help="COMMAND is an ACP agent (speaks ACP on stdin/stdout); agent names need no flag",
    )
    add(
        "--resume",
        metavar="ID",
        help="continue the past session ID: an ACP agent loads it (session/load, when it advertises loadSession), "
        "dsh's runner gets --resume ID; ctrl+l lists them",
    )
    add(
        "--digest-to",
        action="append",
        default=[],
        metavar="FILE|syslog",
        help="also keep the recording's final digest there at exit, out of the agent's reach "
        "(`scan --digests FILE` checks a recording against it); repeatable",
    )
    add(
        "--no-tui",
        action="store_true",
        help="no screen: the answer on stdout (a plain command's own stdout, byte for byte), "
        "decisions, turn outcomes and the child's terminal output on stderr",
    )
    add("--json", action="store_true", help="with --no-tui: JSON lines on stdout instead (decisions, turns, output)")
    add(
        "--quiet", action="store_true", help="with --no-tui: drop the child's terminal output (it never goes to stdout)"
    )
    add(
        "--prompt",
        action="append",
        default=[],
        metavar="TEXT",
        help="with --no-tui: send TEXT to an interactive profile (repeatable; - reads stdin)",
    )
    add(
        "--approvals",
        choices=["deny", "allow"],
        metavar="deny|allow",
        help="with --no-tui: how approvals are answered (default: deny)",
    )
    return p


def load_settings(path: Path | None) -> Settings:
    """The effective settings: `--config`, else `$BREAKER_TUI_CONFIG`, else the platform file."""
    from tui.keys import validate_keymap
    from wrapper import settings as S

    s = S.load(path, must_exist=True) if path is not None else S.load(config_file())
    problems = validate_keymap(s.keys)
    if problems:
        raise ConfigError(f"{s.source}: [keys] {problems[0]}")
    return s


def main(argv: list[str] | None = None) -> int:
    """Entry point; returns the exit status (see the README's table)."""
    args = list(sys.argv[1:] if argv is None else argv)
    try:
        if "--" in args:
            k = args.index("--")
            return _run(args[:k], args[k + 1 :])
        args = _options_after_the_command(args)
        if args and args[0] in COMMANDS:
            return COMMANDS[args[0]](args[1:])
        if args and args[0] in ("-h", "--help"):
            print(full_help())
            return EXIT_OK
        if args and args[0] == "--version":
            print(version())
            return EXIT_OK
        # usage errors go to stderr, so `2>/dev/null` and `| head` see only what was asked for
        if not args:
            print(usage(), file=sys.stderr)
            return EXIT_USAGE
        if args[0].startswith("-"):  # an option is no command: one line says so, no usage to bury it
            print(f"breaker-tui: {_stray_option(args[0])}", file=sys.stderr)
            return EXIT_USAGE
        print(
            f"breaker-tui: unknown command {args[0]!r}. To run a program under the monitor, put it after `--`.\n",
            file=sys.stderr,
        )
        print(usage(), file=sys.stderr)
        return EXIT_USAGE
    except ConfigError as e:
        print(f"{_who(args)}: bad config: {e}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        return Exit.INTERRUPTED
    except BrokenPipeError:  # `breaker-tui scan f | head`: the reader left; nothing more to say
        with contextlib.suppress(OSError):
            sys.stdout = open(os.devnull, "w")  # noqa: SIM115
        return EXIT_OK
    except Exception:  # a bug in the monitor: say so, never exit 0
        import traceback

        with contextlib.suppress(OSError, ValueError):
            traceback.print_exc()
            print("breaker-tui: internal error (a bug: please report it with the lines above)", file=sys.stderr)
        return EXIT_INTERNAL


def _who(args: list[str]) -> str:
    """Who speaks in an error: `breaker-tui SUBCOMMAND`, as every subcommand's own errors begin, else `breaker-tui`."""
    return f"breaker-tui {args[0]}" if args and args[0] in COMMANDS and "--" not in args else "breaker-tui"


def _run_option_arity() -> dict[str, bool]:
    """Each run option, and whether it takes a value."""
    return {o: a.nargs != 0 for a in _run_parser()._actions for o in a.option_strings}


def _options_after_the_command(args: list[str]) -> list[str]:
    """`--theme NAME demo ...` read as `demo ... --theme NAME`: a run option before a subcommand goes to it.

    The subcommand's own parser then takes the option, or names it as one it does not take; either way the
    person is not told that an option is an unknown command.
    """
    takes = _run_option_arity()
    moved: list[str] = []  # each as `--option=VALUE`, so a subcommand that lacks it never reads VALUE as its own
    i = 0
    while i < len(args) and (name := args[i].split("=", 1)[0]) in takes:
        with_value = takes[name] and "=" not in args[i] and i + 1 < len(args)
        moved.append(f"{name}={args[i + 1]}" if with_value else args[i])
        i += 2 if with_value else 1
    if moved and i < len(args) and args[i] in COMMANDS:
        return [args[i], *args[i + 1 :], *moved]
    return args


def _stray_option(option: str) -> str:
    """What to say of an option with nothing to run after it."""
    name = option.split("=", 1)[0]
    if name not in _run_option_arity():
        return f"unknown option {name!r}; `breaker-tui --help` lists the options and the commands"
    return (
        f"{name} is an option, not a command: put the program it applies to after `--` "
        f"(breaker-tui {name} ... -- COMMAND), or give it to a subcommand that takes it "
        f"(breaker-tui SUBCOMMAND {name} ...)"
    )


def _run(opts: list[str], command: list[str]) -> int:
    """`breaker-tui [OPTIONS] -- COMMAND`: with the screen, or without it (`--no-tui`, or refused)."""
    if "-h" in opts or "--help" in opts:
        print(full_help())
        return EXIT_OK
    a = _run_parser().parse_args(opts)
    if bad := _usage_problem(a, command):
        print(f"breaker-tui: {bad}", file=sys.stderr)
        return EXIT_USAGE
    no_screen = None if a.no_tui else screen_problem()
    if not a.no_tui and no_screen is None:
        # the screen's libraries take a moment to load on a busy machine: say at once what is starting
        from wrapper.safetext import inert

        shown = inert(" ".join(command), keep_newlines=False)[:200]
        print(f"breaker-tui: starting {shown} (the screen opens in a moment)", file=sys.stderr, flush=True)
        import gc

        # the start-up allocates a great deal and frees little: the collector's passes over it cost a
        # tenth of the CPU before the first frame; the app collects once and turns it back on after
        # that frame (`BreakerApp._freeze_startup`, and `run_app` whatever happens)
        gc.disable()
    if bad := _option_problem(a, command):
        print(f"breaker-tui: {bad}", file=sys.stderr)
        return EXIT_USAGE
    settings = _run_settings(a)
    if a.no_tui or no_screen is not None:
        return _run_without_screen(a, command, settings, no_screen)
    from tui.run import run_app

    # the harnesses are imported, and the command checked, once the screen is up (`tui.run`)
    return run_app(
        command,
        settings,
        theme=a.theme,
        observe=a.observe,
        acp=a.acp,
        resume=a.resume,
        banner=lambda: _banner(a, command, settings),
    )


def _usage_problem(a: argparse.Namespace, command: list[str]) -> str:
    """What is wrong with the command line itself, or ""."""
    if not command:
        return "nothing to run after `--` (try: breaker-tui -- dsh --profile dev)"
    headless_only = (("--json", a.json), ("--quiet", a.quiet), ("--prompt", a.prompt), ("--approvals", a.approvals))
    needs_no_tui = [o for o, on in headless_only if on]
    if needs_no_tui and not a.no_tui:
        return (
            f"{', '.join(needs_no_tui)} only work(s) with --no-tui (on the screen you type prompts"
            " in the box and answer approvals in the modal); add --no-tui or drop it"
        )
    return ""


def _option_problem(a: argparse.Namespace, command: list[str]) -> str:
    """A `--resume` or `--digest-to` that cannot work, said before anything runs; or ""."""
    if a.resume is not None:
        from wrapper.harness.registry import resume_problem

        if bad := resume_problem(command, a.acp, a.resume):
            return f"--resume: {bad}"
    from wrapper.records import keep

    for target in a.digest_to:
        if unkept := keep.check_target(target):
            return f"--digest-to: {unkept}"
    keep.configure(a.digest_to)
    return ""


def _run_settings(a: argparse.Namespace) -> Settings:
    """The settings of a run: the config, a loosened value held back until `config accept`, `--approvals`."""
    from wrapper.weakening import hold_back

    settings = hold_back(load_settings(a.config))
    if a.approvals:
        settings = settings.model_copy(
            update={"wrapper": settings.wrapper.model_copy(update={"headless_approvals": a.approvals})}
        )
    return settings


def _banner(a: argparse.Namespace, command: list[str], settings: Settings) -> list[str]:
    """The start-up lines: loosened keys, and what changed in the harness's files since the last session."""
    from wrapper.harness.registry import watched_files
    from wrapper.startup import banner

    return banner(settings, a.config or config_file(), watched_files(command))


def _run_without_screen(a: argparse.Namespace, command: list[str], settings: Settings, no_screen: str | None) -> int:
    """`--no-tui`, or a screen refused (no terminal): the checks first, then the headless run or the refusal."""
    from wrapper.harness.registry import agent_cannot_run, cannot_start

    if why := agent_cannot_run(command):
        print(f"breaker-tui: {why}", file=sys.stderr)
        return EXIT_CANNOT_START
    if a.no_tui and (why := _prompt_problem(command, a.acp, bool(a.prompt))):
        print(f"breaker-tui: {why}", file=sys.stderr)
        return EXIT_USAGE
    if missing := cannot_start(command):  # nothing could start: that is the news, with or without a screen
        print(f"breaker-tui: {missing}", file=sys.stderr)
        return EXIT_CANNOT_START
    if no_screen is not None:
        return refuse_screen(no_screen)
    for line in _banner(a, command, settings):
        print(f"breaker-tui: {line}", file=sys.stderr)
    import asyncio

    from wrapper.headless import read_prompts, run

    prompts = read_prompts(a.prompt, sys.stdin)
    return asyncio.run(run(command, settings, prompts, a.json, acp=a.acp, quiet=a.quiet, resume=a.resume))


def _prompt_problem(command: list[str], acp: bool, prompted: bool) -> str:
    """Why `--prompt` is missing or cannot be delivered to `command` with `--no-tui`, or ""."""
    from wrapper.harness.registry import is_acp, takes_prompts

    if is_acp(command, acp):
        return "" if prompted else "an ACP agent takes its task from --prompt TEXT with --no-tui"
    if prompted and not takes_prompts(command):
        name = os.path.basename(command[0])
        return (
            f"--prompt: {name} is a plain command, which takes no prompts (only dsh and ACP agents do); "
            f"give it input on stdin instead: printf 'TEXT\\n' | breaker-tui --no-tui -- {name}"
        )
    return ""


def _load_source(path: Path):  # type: ignore[no-untyped-def]
    """A recording or dsh log, or None after printing why it cannot be read."""
    from wrapper.records.sources import SourceError, load

    try:
        return load(path)
    except SourceError as e:
        print(f"breaker-tui replay: {e}", file=sys.stderr)
        return None


def _replay(args: list[str]) -> int:
    p = _parser("replay")
    p.add_argument("file", type=Path, help="a breaker-tui recording or dsh's session.jsonl[.zstd] (traces: `scan`)")
    p.add_argument("--speed", type=float, default=1.0, help="playback speed (0 = as fast as possible)")
    p.add_argument("--paused", action="store_true", help="start paused (step with `.`)")
    p.add_argument("--config", type=Path, help="config file for the engine when the recording has none")
    a = p.parse_args(args)
    loaded = _load_source(a.file)
    if loaded is None:
        return EXIT_USAGE
    settings = load_settings(a.config)  # a config that cannot be used is the news, with or without a screen
    if why := screen_problem("for scripts: breaker-tui scan FILE"):
        return refuse_screen(why)
    from tui.run import run_replay

    return run_replay(loaded, settings, speed=a.speed, paused=a.paused)


def _scan(args: list[str]) -> int:
    from wrapper.harness.registry import replayer_for
    from wrapper.records.scan import main as scan_main

    return scan_main(args, replayer_for)


def _eval(args: list[str]) -> int:
    from wrapper.records.evalcmd import main as eval_main

    return eval_main(args)


def _demo(args: list[str]) -> int:
    from wrapper.mock.scenarios import SCENARIOS

    p = _parser("demo")
    p.add_argument(
        "scenario",
        nargs="?",
        default="tool-loop",
        help="a scenario name; `demo --list` lists them (default: tool-loop)",
    )
    p.add_argument("--list", action="store_true", help="list the scenarios")
    p.add_argument("--no-tui", action="store_true", help="run it headless")
    p.add_argument("--json", action="store_true", help="with --no-tui: JSON lines on stdout instead")
    p.add_argument("--quiet", action="store_true", help="with --no-tui: drop the child's terminal output")
    p.add_argument("--agent", help="run it with an installed ACP agent (see `breaker-tui agents`) instead of dsh")
    p.add_argument("--config", type=Path, help="config file (default: the platform path)")
    p.add_argument("--theme", help="breaker-dark, breaker-light, or any Textual theme")
    a = p.parse_args(args)
    from tui.demo import demo_problem, scenario_list

    if a.list:
        print(scenario_list())
        return EXIT_OK
    if a.scenario not in SCENARIOS:
        print(f"breaker-tui demo: unknown scenario {a.scenario!r}; see `breaker-tui demo --list`", file=sys.stderr)
        return EXIT_USAGE
    if stray := [o for o, on in (("--json", a.json), ("--quiet", a.quiet)) if on and not a.no_tui]:
        print(
            f"breaker-tui demo: {', '.join(stray)} only work(s) with --no-tui; add --no-tui or drop it", file=sys.stderr
        )
        return EXIT_USAGE
    no_screen = None if a.no_tui else screen_problem()
    if not a.no_tui and no_screen is None:  # the agent, its world and the mock take a moment: say so at once
        what = f"the demo {a.scenario} ({a.agent or 'dsh'} and the mock model"
        print(
            f"breaker-tui: starting {what}; the screen opens in a moment)",
            file=sys.stderr,
            flush=True,
        )
    if bad := demo_problem(a.scenario, a.agent):
        print(f"breaker-tui demo: {bad}", file=sys.stderr)
        return EXIT_USAGE
    from wrapper.weakening import hold_back

    # a live session: a loosened value waits for `config accept`; a config that cannot be used is the news,
    # with or without a screen
    settings = hold_back(load_settings(a.config))
    if no_screen is not None:
        return refuse_screen(no_screen)
    from tui.demo import Plain, run_demo

    plain = Plain(as_json_lines=a.json, quiet=a.quiet)
    return run_demo(a.scenario, settings, headless=a.no_tui, theme=a.theme, agent=a.agent, plain=plain)


def _mock(args: list[str]) -> int:
    from wrapper.mock.scenarios import SCENARIOS
    from wrapper.mock.server import serve

    p = _parser(
        "mock-llm",
        "Point your own dsh at it with DEEPSEEK_BASE_URL=<the printed URL> DEEPSEEK_API_KEY=sk-mock "
        "breaker-tui -- dsh --profile dev",
    )
    p.add_argument(
        "--scenario",
        default="normal",
        choices=list(SCENARIOS),
        metavar="S",
        help="what the model answers: a scenario name, as `demo --list` describes them (default: normal)",
    )
    p.add_argument(
        "--port-file",
        type=Path,
        metavar="FILE",
        help="write the port it listens on to FILE once it listens (for scripts; the URL is printed too)",
    )
    p.add_argument("--log", type=Path, help="append every request body here (JSON lines)")
    a = p.parse_args(args)
    serve(a.scenario, a.port_file, a.log)
    return EXIT_OK


def _setup(args: list[str]) -> int:
    from wrapper.harness.registry import harness
    from wrapper.toolchain import ProvisionError

    p = _parser("setup-dsh")
    p.add_argument("--force", action="store_true", help="reinstall even if present")
    a = p.parse_args(args)
    try:
        harness("dsh").setup(lambda s: print(s, flush=True), a.force)
    except ProvisionError as e:
        print(f"breaker-tui setup-dsh: {e}", file=sys.stderr)
        return EXIT_CANNOT_START
    return EXIT_OK


def _doctor(args: list[str]) -> int:
    p = _parser("doctor")
    p.add_argument("--config", type=Path, metavar="FILE", help="check this config file instead of the usual one")
    a = p.parse_args(args)
    from wrapper.doctor import doctor

    checks = doctor(a.config)
    print("\n".join(doctor_lines(checks)))
    print(f"\nnext: {next_step(os.environ)}")
    return EXIT_OK if all(c.ok for c in checks) else EXIT_CANNOT_START


def doctor_lines(checks: list[Check]) -> list[str]:
    """A line per check (`ok`, `MISSING` or `PROBLEM`, its name, what was found) and the fix under a failed one;
    the name column as wide as the longest name, so a long one (`agent opencode install`) shifts no detail.
    """
    width = max((len(c.name) for c in checks), default=0)
    out: list[str] = []
    for c in checks:
        mark = "ok " if c.ok else ("MISSING" if "not found" in c.detail or "missing" in c.detail else "PROBLEM")
        out.append(f"{mark:8} {c.name:{width}}  {c.detail}")
        if not c.ok:
            out.append(f"{'':8} {'':{width}}  fix: {c.fix}")
    return out


def _dsh_home(env: dict[str, str] | os._Environ[str]) -> Path:
    return Path(env.get("DSH_HOME", Path.home() / ".dsh"))


def next_step(env: dict[str, str] | os._Environ[str]) -> str:
    """What a newcomer does next to run their own dsh: a profile, then a key or the mock."""
    profiles = _dsh_home(env) / "profiles"
    names = sorted(p.name for p in profiles.glob("*") if p.is_dir()) if profiles.is_dir() else []
    offline = "breaker-tui demo runs offline as it is"
    if not names:
        return f"no dsh profile yet: breaker-tui init-profile dev writes one ({offline})"
    if not env.get("DEEPSEEK_API_KEY"):
        return (
            f"the {names[0]!r} profile needs a model: export DEEPSEEK_API_KEY=…, or try it offline against the mock "
            f"(breaker-tui mock-llm prints the line to run); {offline}"
        )
    return f"breaker-tui -- dsh --profile {names[0]}   (or an ACP agent: breaker-tui -- claude)"


def _calibrate(args: list[str]) -> int:
    p = _parser("calibrate")
    p.add_argument("--config", type=Path, help="take block_chars / min_repeat_gap / history_blocks from this config")
    a = p.parse_args(args)
    from engine.seed.report import full_report

    th = load_settings(a.config).engine.thinking
    print(full_report(th.block_chars, th.min_repeat_gap, th.history_blocks))
    return EXIT_OK


def _config(args: list[str]) -> int:
    p = _parser("config")
    p.add_argument(
        "action",
        choices=["show", "path", "accept"],
        help="show: print the effective config, each value with where it came from (file or default); "
        "path: print the config file's path; accept: record this exact file as accepted, so the values it "
        "loosens apply (a changed file needs a new accept)",
    )
    p.add_argument(
        "--config",
        type=Path,
        metavar="FILE",
        help="this config file instead of $BREAKER_TUI_CONFIG or the platform path",
    )
    a = p.parse_args(args)
    path = a.config or config_file()
    if a.action == "path":
        print(path)
        return EXIT_OK
    if a.action == "accept":
        return _accept_config(path)
    return _show_config(path, load_settings(a.config))


NOT_APPLIED = "not applied until `breaker-tui config accept`"


def _show_config(path: Path, s: Settings) -> int:
    """`config show`: the values a session runs with, each with where it came from, as TOML.

    A loosened value of a file nobody accepted is held back (`hold_back`): the default is what runs, so the
    default is what is printed, and the file's value sits beside it in a comment saying it is not applied.
    """
    from wrapper.weakening import accepted, hold_back, loosened

    print(f"# effective breaker-tui config; file: {path}{'' if path.exists() else ' (absent: all defaults)'}")
    for line in s.alias_notes():
        print(f"# {line}")
    found, taken = loosened(s), accepted(s)
    for x in found:
        print(f"# loosened, {'accepted (in effect)' if taken else NOT_APPLIED + ' (the default holds)'}: {x.key}")
    held: dict[str, list[str]] = {}  # `section.key` -> what the file says there, not applied
    if not taken:
        for x in found:
            sec, _, rest = x.key.partition(".")
            name, _, entry = rest.partition(".") if sec != "keys" else (rest, "", "")
            shown = f"{_toml_key(entry)} = {_toml(_limit(x.value))}" if entry else _toml(_limit(x.value))
            held.setdefault(f"{sec}.{name}", []).append(f"{shown} in {x.where} is {NOT_APPLIED}")
    run = hold_back(s)
    dump = {
        "repeat": run.engine.repeat.model_dump(mode="python"),
        "thinking": run.engine.thinking.model_dump(mode="python"),
        "engine": run.engine.engine.model_dump(mode="python"),
        "wrapper": run.wrapper.model_dump(mode="python"),
        "ui": run.ui.model_dump(mode="python"),
        "acp": run.acp.model_dump(mode="python"),
        "hooks": run.hooks.model_dump(mode="python"),
        "keys": dict(run.keys),
    }
    # a cap that is off is None in the model and "off" in the file (TOML has no null)
    dump["repeat"]["limits"] = {k: _limit(v) for k, v in dump["repeat"]["limits"].items()}
    for section, values in dump.items():
        print(f"\n[{section}]")
        for key, value in values.items():
            print(_shown_line(s, f"{section}.{key}", key, value, held.pop(f"{section}.{key}", [])))
        for key, notes in [(k, v) for k, v in held.items() if k.startswith(f"{section}.")]:
            # an approval key the file remaps: the built-in key holds
            print(f"# {_toml_key(key.partition('.')[2])} is built in    # {'; '.join(notes)}")
    return EXIT_OK


def _limit(v: object) -> object:
    """A cap as the file writes it: "off" for none, a whole number without `.0`."""
    if v is None:
        return "off"
    return int(v) if isinstance(v, float) and v.is_integer() else v


def _shown_line(s: Settings, dotted: str, key: str, value: object, held: list[str]) -> str:
    """One `key = value    # origin` line of `config show`; a held-back value's origin is the default."""
    whole = held and not isinstance(value, dict)  # a table keeps the entries of the file that were not held
    origin = "default" if whole else s.origins.get(dotted, "default")
    if dotted in s.aliases_used:
        origin += f" (written `{s.aliases_used[dotted]}`)"
    origin = "; ".join([origin, *held])
    if value is None:
        return f"# {_toml_key(key)} is not set    # {origin}"
    return f"{_toml_key(key)} = {_toml(value)}    # {origin}"


def _accept_config(path: Path) -> int:
    """Record this exact file as accepted: its loosened keys are no longer named at each start."""
    from wrapper.weakening import accept, loosened

    s = load_settings(path)
    found = loosened(s)
    if not found:
        print(f"breaker-tui: {path} loosens nothing; there is nothing to accept")
        return EXIT_OK
    for x in found:
        print(f"accepting: {x}")
    try:
        digest = accept(path)
    except OSError as e:
        print(f"breaker-tui config: cannot record the acceptance: {e}", file=sys.stderr)
        return EXIT_USAGE
    print(f"accepted {path} (sha256 {digest[:16]}); any change to the file needs a new accept")
    return EXIT_OK


def _toml_key(key: str) -> str:
    # a bare key is ASCII letters, digits, `_` and `-`; anything else is quoted
    return key if key and all(c.isascii() and (c.isalnum() or c in "_-") for c in key) else _toml_string(key)


def _toml(value: object) -> str:
    """A value as TOML (what `config show` prints can be pasted back into the file)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return "inf" if value == float("inf") else ("-inf" if value == float("-inf") else repr(value))
    if isinstance(value, int):
        return str(value)
    if isinstance(value, dict):
        inner = ", ".join(f"{_toml_key(str(k))} = {_toml(v)}" for k, v in value.items() if v is not None)
        return "{ " + inner + " }" if inner else "{}"
    if isinstance(value, list | tuple | set | frozenset):
        return "[" + ", ".join(_toml(v) for v in value) + "]"
    return _toml_string(str(value))


def _toml_string(text: str) -> str:
    """A TOML basic string: printable ASCII as is, everything else escaped, so no control reaches the terminal."""
    out = []
    for ch in text:
        code = ord(ch)
        if ch in '"\\':
            out.append("\\" + ch)
        elif 0x20 <= code < 0x7F:
            out.append(ch)
        elif code < 0x10000:
            # a lone surrogate is no Unicode scalar value, which TOML escapes must be
            out.append(f"\\u{0xFFFD if 0xD800 <= code < 0xE000 else code:04X}")
        else:
            out.append(f"\\U{code:08X}")
    return '"' + "".join(out) + '"'


def _init_profile(args: list[str]) -> int:
    from wrapper.harness.registry import harness
    from wrapper.safetext import inert

    p = _parser("init-profile")
    p.add_argument("name", nargs="?", default="dev", help="a plain name: letters, digits, - and _")
    p.add_argument("--force", action="store_true", help="replace an existing profile of that name")
    a = p.parse_args(args)
    home = _dsh_home(os.environ)
    try:
        d = harness("dsh").write_profile(home, a.name, a.force)
    except ValueError as e:  # the profile cannot be written: the message says why and what to do
        print(f"breaker-tui init-profile: {inert(str(e))}", file=sys.stderr)
        return EXIT_USAGE
    print(f"wrote the dsh profile {a.name!r} at {d}\nrun it with: breaker-tui -- dsh --profile {a.name}")
    print(
        "it needs a model: export DEEPSEEK_API_KEY=… first, or try it offline against the mock "
        "(breaker-tui mock-llm prints the line to run)"
    )
    return EXIT_OK


def _agents(args: list[str]) -> int:
    from wrapper.harness.registry import agents_command

    return agents_command(args, _description("agents"))


def _hooks(args: list[str]) -> int:
    from wrapper.hooks.cli import hooks

    return hooks(args)


def _hook(args: list[str]) -> int:
    from wrapper.hooks.cli import hook

    return hook(args)


def _serve(args: list[str]) -> int:
    from wrapper.hooks.cli import serve

    return serve(args)


def _watch(args: list[str]) -> int:
    _parser("watch").parse_args(args)
    if why := screen_problem("for scripts: breaker-tui hooks status"):
        return refuse_screen(why)
    from tui.watch import WatchApp

    while (recording := WatchApp().run()) is not None:  # back to the list when the replay ends
        _replay([recording, "--speed", "0"])
    return EXIT_OK


def _setup_agent(args: list[str]) -> int:
    from wrapper.harness.registry import setup_agent_command

    return setup_agent_command(args, _description("setup-agent"))


def _parser(name: str, more: str = "") -> argparse.ArgumentParser:
    """A subcommand's parser, described by its line in `SUBCOMMANDS` (and `more`)."""
    return argparse.ArgumentParser(prog=f"breaker-tui {name}", description=_description(name, more))


def _description(name: str, more: str = "") -> str:
    """What `name --help` says it does: its line in `SUBCOMMANDS` as a sentence (and `more`); also handed to
    the parsers the wrapper builds for a subcommand, so every `--help` says it the same way.
    """
    does = SUBCOMMANDS[name].does
    return f"{does[:1].upper()}{does[1:]}. {more}".strip()


class Sub(NamedTuple):
    """A subcommand: its arguments as the usage shows them, what it does, and what runs it.

    (A named tuple, not a dataclass: `dataclasses` imports `inspect`, a cost `--version` would pay.)
    """

    args: str
    does: str
    run: Callable[[list[str]], int]


# The one description of each subcommand: `--help` lists them from here, and each parser built in
# this module takes its description from here (`_parser`); the arguments' own help is argparse's.
SUBCOMMANDS: dict[str, Sub] = {
    "replay": Sub("FILE [--speed X] [--paused]", "play a recording or a dsh session log on the screen", _replay),
    "scan": Sub("FILE|DIR... [--json]", "every intervention in a session of any known agent; many: a table", _scan),
    "eval": Sub("DIR [--json] [--mode M]", "measure detection on a folder of labelled traces", _eval),
    "demo": Sub(
        "[SCENARIO] [--list] [--agent A] [--no-tui [--json]]",
        "a scripted loop, offline: a real dsh (or ACP agent) and the built-in mock model",
        _demo,
    ),
    "mock-llm": Sub("[--scenario S]", "serve the mock model on 127.0.0.1", _mock),
    "setup-dsh": Sub("[--force]", "install pnpm and the pinned dsh (Node 24 comes with breaker-tui)", _setup),
    "agents": Sub("", "the known ACP agents, which copy runs, how each is made to ask", _agents),
    "setup-agent": Sub("NAME|--all [--force]", "install a pinned ACP agent (or every one) beside dsh", _setup_agent),
    "doctor": Sub("", "say what is missing and how to fix it", _doctor),
    "calibrate": Sub("", "re-measure the detectors' threshold tables", _calibrate),
    "config": Sub(
        "show|path|accept", "print the effective config (and where each value came from), or accept it", _config
    ),
    "init-profile": Sub("[NAME] [--force]", "write an interactive dsh profile (default: dev)", _init_profile),
    "hooks": Sub(
        "install|uninstall|status [AGENT] [--project] [--dry-run] [--fail-closed]",
        "guard claude, codex or gemini in its own terminal (its native hooks)",
        _hooks,
    ),
    "hook": Sub("AGENT [--fail-closed]", "the hook command an agent runs for every tool call", _hook),
    "serve": Sub(
        "[--idle-exit S] [--metrics [HOST:]PORT] [--otlp URL]",
        "the per-user hook server (the first hook starts it; Prometheus, OTLP)",
        _serve,
    ),
    "watch": Sub(
        "",
        "every live hooked session, its panes and its asks (a allow, t allow for the turn, d deny); enter replays one",
        _watch,
    ),
}
COMMANDS = {name: sub.run for name, sub in SUBCOMMANDS.items()}
