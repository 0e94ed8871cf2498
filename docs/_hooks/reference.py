"""The docs' reference tables, generated from the code at build time (an mkdocs hook).

The configuration keys, the key bindings and the agents change while the manual stays put. Written
by hand, their tables drifted from the code; generated, a page cannot miss a key. A page asks for a
table with a marker line (`<!-- generated: config -->`), which `on_page_markdown` replaces. The
generators are plain functions, so `tests/unit/test_docs.py` checks them without building the site.
"""

from __future__ import annotations

import ast
import contextlib
import importlib
import inspect
import io
import os
import pkgutil
import textwrap
from collections.abc import Callable, Iterator
from typing import Any

from pydantic import BaseModel
from pydantic_core import PydanticUndefined

MARKER = "<!-- generated: {} -->"


def field_docs(cls: type[BaseModel]) -> dict[str, str]:
    """Each field's docstring (the string literal under its annotation), whitespace collapsed."""
    out: dict[str, str] = {}
    for klass in reversed(cls.__mro__):
        if not (isinstance(klass, type) and issubclass(klass, BaseModel)) or klass is BaseModel:
            continue
        body = ast.parse(textwrap.dedent(inspect.getsource(klass))).body[0]
        assert isinstance(body, ast.ClassDef)
        for node, after in zip(body.body, body.body[1:], strict=False):
            if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and _is_doc(after):
                assert isinstance(after, ast.Expr) and isinstance(after.value, ast.Constant)
                out[node.target.id] = " ".join(str(after.value.value).split())
    return out


def _is_doc(node: ast.stmt) -> bool:
    return isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)


def _cell(text: str) -> str:
    """Text made safe for one Markdown table cell."""
    return text.replace("|", "\\|").replace("\n", " ")


def _default(field: Any) -> str:
    """A field's default as TOML would spell it (maps and lists say 'see below' when long)."""
    value = field.default_factory() if field.default is PydanticUndefined and field.default_factory else field.default
    if isinstance(value, BaseModel):
        value = value.model_dump()
    if isinstance(value, bool):
        return "`true`" if value else "`false`"
    if isinstance(value, str):
        return f'`"{value}"`'
    if isinstance(value, dict | list | tuple) and len(repr(value)) > 40:
        return "see below"
    if isinstance(value, tuple):
        value = list(value)
    return f"`{value!r}`".replace("'", '"')


def config_sections() -> dict[str, type[BaseModel]]:
    """Every config table with keys, in the order of the file: `[section]` -> its model."""
    from engine.config import BreakerConfig
    from wrapper.settings import Settings

    out: dict[str, type[BaseModel]] = {}
    for owner in (BreakerConfig, Settings):
        for name, field in owner.model_fields.items():
            model = field.annotation
            if isinstance(model, type) and issubclass(model, BaseModel) and name not in out:
                if model is BreakerConfig:
                    continue
                out[name] = model
    return out


def config_reference() -> str:
    """One table per config section: key, default, and what it does (the field's docstring)."""
    parts: list[str] = []
    for section, model in config_sections().items():
        docs = field_docs(model)
        intro = (model.__doc__ or "").strip().split("\n\n")[0]
        parts += [
            f"### `[{section}]`",
            "",
            " ".join(intro.split()),
            "",
            "| key | default | what it does |",
            "|---|---|---|",
        ]
        for key, field in model.model_fields.items():
            parts.append(f"| `{key}` | {_cell(_default(field))} | {_cell(docs.get(key, ''))} |")
        parts.append("")
    return "\n".join(parts)


def _key(spec: str) -> str:
    """A binding spec as the help shows it, each key in code (`escape,q` -> `esc` / `q`)."""
    from tui.keys import Key, shown_key

    return " / ".join(f"`{k}`" for k in shown_key(Key("", spec, "", "", ""), {}).split(" / "))


def _screens() -> Iterator[tuple[type, list[Any]]]:
    """(screen class, its bindings) for every screen under `tui.screens` that declares bindings."""
    from textual.binding import Binding
    from textual.screen import Screen

    import tui.screens

    for info in pkgutil.iter_modules(tui.screens.__path__, "tui.screens."):
        module = importlib.import_module(info.name)
        for _, cls in inspect.getmembers(module, inspect.isclass):
            if cls.__module__ != module.__name__ or not issubclass(cls, Screen):
                continue
            bindings = [b for b in cls.__dict__.get("BINDINGS", []) if isinstance(b, Binding)]
            if bindings:
                yield cls, bindings


def keys_reference() -> str:
    """The main screen's keys (tui/keys.py) and every other screen's bindings, with their `[keys]` ids."""
    from tui.keys import KEYS, PROMPT_KEYS

    rows = ["### The main screen", "", "| key | `[keys]` id | where | what it does |", "|---|---|---|---|"]
    for keys, what in PROMPT_KEYS:
        shown = " / ".join(f"`{k}`" for k in keys.split(" / "))
        rows.append(f"| {shown} | | live, with a prompt box | {_cell(what)} |")
    for k in KEYS:
        where = " and ".join(k.modes) + (f" (when the source can {k.needs.replace('_', ' ')})" if k.needs else "")
        rows.append(f"| {_key(k.key)} | `{k.id}` | {where} | {_cell(k.help)} |")
    rows.append("| `ctrl+p` | | everywhere | the command palette: every action by name |")
    main = {k.id for k in KEYS}
    for screen, bindings in sorted(_screens(), key=lambda s: s[0].__name__):
        if all(b.id in main for b in bindings):
            continue  # the main screen's own bindings, listed above
        about = (screen.__doc__ or "").strip().split("\n")[0]
        rows += ["", f"### {screen.__name__}", "", about, "", "| key | `[keys]` id | what it does |", "|---|---|---|"]
        rows += [f"| {_key(b.key)} | {_id(b.id)} | {_cell(b.description or b.action)} |" for b in bindings]
    return "\n".join(rows + watch_keys()) + "\n"


def watch_keys() -> list[str]:
    """`breaker-tui watch`'s own table: an app of its own (tui/watch.py), not a screen of the main one."""
    from textual.binding import Binding

    from tui.watch import WatchApp

    by_action: dict[str, list[Binding]] = {}
    for b in WatchApp.BINDINGS:
        if isinstance(b, Binding):
            by_action.setdefault(b.action, []).append(b)
    about = (WatchApp.__doc__ or "").strip().split("\n")[0]
    rows = [
        "",
        "### breaker-tui watch",
        "",
        f"{about} See [hooks](hooks.md#watching-the-sessions-answering-the-asks).",
        "",
    ]
    rows += ["| key | what it does |", "|---|---|"]
    rows.append("| `↑` / `↓` | select a session |")
    for same in by_action.values():
        keys = " / ".join(_key(b.key) for b in same)  # the hidden aliases too (y, n): they answer as well
        rows.append(f"| {keys} | {_cell(same[0].description or same[0].action)} |")
    return rows


def _id(binding_id: str | None) -> str:
    """The id, when `[keys]` accepts it (the config's own check decides), else a dash."""
    from tui.keys import validate_keymap

    return f"`{binding_id}`" if binding_id and not validate_keymap({binding_id: "x"}) else "—"


def keymap_ids() -> list[str]:
    """Every binding id `[keys]` accepts, as the config's own check decides."""
    from tui.keys import KEYS, validate_keymap

    ids = [k.id for k in KEYS] + [b.id for _, bindings in _screens() for b in bindings if b.id]
    return sorted({i for i in ids if not validate_keymap({i: "x"})})


def agents_reference() -> str:
    """The agents breaker-tui guards: dsh and every ACP preset, from their declarations."""
    from wrapper.harness.acp.presets import PRESETS

    rows = [
        "| agent | package (pinned) | install | other names | how it is made to ask | what the monitor cannot do |",
        "|---|---|---|---|---|---|",
        dsh_row(),
    ]
    for p in PRESETS.values():
        names = ", ".join(f"`{a}`" for a in getattr(p, "aliases", ()))
        size = getattr(p, "size_mb", None)
        rows.append(
            f"| **{p.name}** | `{p.package}` {p.version} | {f'{size} MB' if size else ''} | {names} "
            f"| {_cell(p.asks)} | {_cell(p.cannot)} |"
        )
    return "\n".join(rows) + "\n"


def dsh_row() -> str:
    """dsh's row: the harness breaker-tui was first built for, installed by `setup-dsh`."""
    from wrapper.harness.dsh.provision import DSH_VERSION

    return (
        f"| **dsh** | `@deepseek-ai/dsh` {DSH_VERSION} | about 270 MB with Node 24 and pnpm | | "
        "a bridge plugin asks the monitor for a verdict before every tool call (`tools/pre-execute`), "
        "and dsh's own guard denies any call the monitor did not allow | nothing it runs goes unjudged; "
        "see the limits in [Security](security.md) |"
    )


def _help_of(run: Callable[[list[str]], object]) -> str:
    """What a command prints for `--help` (argparse prints, then exits), at 100 columns."""
    out = io.StringIO()
    old = os.environ.get("COLUMNS")
    os.environ["COLUMNS"] = "100"
    try:
        with contextlib.redirect_stdout(out), contextlib.suppress(SystemExit):
            run(["--help"])
    finally:
        if old is None:
            os.environ.pop("COLUMNS", None)
        else:
            os.environ["COLUMNS"] = old
    return _home(out.getvalue().rstrip())


def _home(text: str) -> str:
    """The builder's home folder spelled `~`, so the page says what every reader's help says."""
    return text.replace(os.path.expanduser("~"), "~")


def cli_reference() -> str:
    """`breaker-tui --help` and every subcommand's `--help`, as the command line prints them."""
    from tui.cli import COMMANDS, full_help

    parts = ["## `breaker-tui`", "", "```text", _home(full_help().rstrip()), "```", ""]
    for name, run in COMMANDS.items():
        parts += [f"## `breaker-tui {name}`", "", "```text", _help_of(run), "```", ""]
    return "\n".join(parts)


GENERATORS: dict[str, Callable[[], str]] = {
    "config": config_reference,
    "keys": keys_reference,
    "agents": agents_reference,
    "cli": cli_reference,
}


def render(markdown: str) -> str:
    """The page with every generator marker replaced by its table."""
    for name, make in GENERATORS.items():
        marker = MARKER.format(name)
        if marker in markdown:
            markdown = markdown.replace(marker, make())
    return markdown


def on_page_markdown(markdown: str, **_: Any) -> str:
    """mkdocs hook: fill the generated tables in before the page is rendered."""
    return render(markdown)
