"""The `[wrapper]`, `[ui]`, `[acp]`, `[hooks]` and `[keys]` sections of the config file, and loading the whole file."""

from __future__ import annotations

import stat
import tomllib
from pathlib import Path
from typing import Any, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from engine.config import BreakerConfig, EngineConfig, ThinkingConfig, describe
from engine.errors import ConfigError
from engine.keynames import canonical, check_spellings, note
from engine.repeat_config import RepeatConfig
from wrapper.paths import default_config_file

M = TypeVar("M", bound=BaseModel)

# the bridge's timers cannot honour less than this; a smaller value is a config error, not "never"
MIN_TIMEOUT_S = 0.01


class AcpSettings(BaseModel):
    """How breaker-tui enforces its rules on an ACP agent (each choice can be `observe`)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    deny: Literal["reject", "observe"] = "reject"
    """A call the engine denies that comes with a permission request: answer `reject_once` (or only observe)."""
    unasked: Literal["reprompt", "cancel", "observe"] = "reprompt"
    """Calls that ran without asking and trip a rule: cancel the turn and send one follow-up prompt naming
    the repeat (`reprompt`; a second trip in the turn only cancels), only cancel, or only observe."""
    reasoning: Literal["reprompt", "cancel", "observe"] = "reprompt"
    """A reasoning-lens trip: cancel the turn and send one follow-up prompt asking for an answer without
    re-deliberating (`reprompt`; a second trip in the turn only cancels), only cancel, or only observe."""
    agent_asks: Literal["person", "allow"] = "person"
    """The agent's own permission requests for calls the engine allows: ask the person (the approval modal,
    or `--approvals` without a screen), or allow them (the preset made the agent ask only so breaker-tui
    can refuse repeats)."""
    make_ask: bool = True
    """Configure known agents to ask before tool calls (opencode's `permission`, Claude's `default` mode)."""
    startup_timeout_s: float = Field(90.0, gt=0, le=3600)
    """How long `initialize` and `session/new` may take before the agent counts as broken."""
    cancel_timeout_s: float = Field(10.0, gt=0, le=600)
    """After `session/cancel`, how long the turn may take to end before the follow-up prompt is dropped."""


class WrapperSettings(BaseModel):
    """How the child and the bridge are run."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    verdict_timeout_s: float = Field(30.0, ge=MIN_TIMEOUT_S, le=3600)
    """A tool call waiting for a verdict is denied (fail closed) after this many seconds (at least 0.01; the bridge
    cannot honour less)."""
    approval_timeout_s: float = Field(0.0, ge=0, le=86400)
    """An approval nobody answers is declined after this many seconds (0 = wait for the person, else at least 0.01)."""
    result_timeout_s: float = Field(5.0, ge=MIN_TIMEOUT_S, le=600)
    """A finished result waiting for the monitor is passed through unchanged after this many seconds (at least 0.01)."""
    kill_grace_s: float = Field(6.0, ge=0, le=120)
    """After SIGINT, how long the child gets before SIGKILL."""
    bridge_connect_timeout_s: float = Field(30.0, ge=0, le=600)
    """dsh's bridge must say hello, and answer each liveness check, within this many seconds, or the child is
    stopped (NOT MONITORED). dsh says hello 1-3 s after launch; 0 = never stop it (the status says OBSERVING)."""
    headless_approvals: Literal["deny", "allow"] = "deny"
    """With `--no-tui`, how approvals are answered (deny = fail closed)."""
    record: bool = True
    """Write a recording of every session under the state directory."""
    recordings_dir: str = ""
    """Where recordings go (empty = the platform state directory)."""
    max_line_bytes: int = Field(8 << 20, ge=65536, le=1 << 28)
    """Longest line on the bridge channel, both ways (65536 to 268435456; out of range is a config error); longer
    events are dropped, counted and reported."""
    max_consecutive_denials: int = Field(8, ge=0, le=10000)
    """End the turn (as `esc` does) after this many tool calls in a row were denied, and say why (0 = never)."""
    stall_warn_s: float = Field(120.0, ge=0, le=86400)
    """Warn when the model has sent nothing for this many seconds while a request is open (0 = never)."""
    recordings_keep_days: int = Field(30, ge=0, le=36500)
    """Delete recordings older than this many days when a session starts (0 = keep them)."""
    recordings_keep: int = Field(200, ge=0, le=1000000)
    """Keep at most this many recordings, newest first (0 = no limit)."""

    @field_validator("approval_timeout_s")
    @classmethod
    def _approval_timeout(cls, v: float) -> float:
        if 0 < v < MIN_TIMEOUT_S:
            raise ValueError(f"must be 0 (wait for the person) or at least {MIN_TIMEOUT_S}")
        return v


class UiSettings(BaseModel):
    """How the monitor looks and behaves."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    theme: str = "breaker-dark"
    """Theme name: breaker-dark, breaker-light, or any Textual theme."""
    show_reasoning: bool = True
    """Show reasoning in the stream (folded blocks when off)."""
    max_stream_lines: int = Field(4000, ge=100, le=200000)
    """How many lines the stream pane keeps."""
    max_output_lines: int = Field(2000, ge=100, le=200000)
    """How many lines the child-output pane keeps."""
    refresh_hz: float = Field(20.0, ge=1, le=120)
    """How often the child-output pane is painted at most (scores, window and status: 5 times a second). Streamed
    text is written by the screen's own frames, once a frame (up to 120 a second while it streams); a quiet stream
    costs nothing."""
    narrow_below: int = Field(100, ge=0, le=1000)
    """Below this many columns the scores and window collapse to a one-line summary (ctrl+b shows them)."""


ASK_WAIT_S = 15.0  # the hook server's default wait for an answer in `watch` (below the hook's own 20 s)


class HooksSettings(BaseModel):
    """The hook server (`breaker-tui serve`, started by the first hook) and its asks.

    A server a hook starts has no command line of its own, so what `serve`'s options say for a server
    started by hand, this section says for that one.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    metrics: str = ""
    """Serve Prometheus metrics on this `[HOST:]PORT` (e.g. "127.0.0.1:9464") from every hook server, the one a
    hook starts included (empty = only `serve --metrics`; needs the [metrics] extra). When the port cannot be
    taken the server runs without metrics and says why in its log."""
    ask_wait_s: float = Field(ASK_WAIT_S, ge=0, le=18)
    """How long a call the engine asks about waits for an answer in `breaker-tui watch` before it is refused
    (Claude: its own prompt asks instead); at most 18, below the hook's own 20 s wait for the server."""


# The approval modal's binding ids (its keys are remappable by `[keys]`, and every remap is named at start)
APPROVAL_KEY_IDS = ("approve.arm", "approve.once", "approve.turn", "approve.deny", "approve.cancel", "approve.escape")

KeyMap = dict[str, str]
"""`[keys]`: binding id -> key (`kill = "ctrl+x"`, several keys comma-separated); ids as in the help screen."""


SECTIONS = ("repeat", "thinking", "engine", "wrapper", "ui", "acp", "hooks", "keys")
MAX_CONFIG_BYTES = 1 << 20


class Settings(BaseModel):
    """Everything in the config file."""

    model_config = ConfigDict(frozen=True)

    engine: BreakerConfig = Field(default_factory=lambda: BreakerConfig())
    wrapper: WrapperSettings = Field(default_factory=lambda: WrapperSettings())
    ui: UiSettings = Field(default_factory=lambda: UiSettings())
    acp: AcpSettings = Field(default_factory=lambda: AcpSettings())
    hooks: HooksSettings = Field(default_factory=lambda: HooksSettings())
    keys: KeyMap = Field(default_factory=dict)
    """`[keys]`: remapped bindings by id."""
    source: str = "defaults"
    """Where the values came from."""
    origins: dict[str, str] = Field(default_factory=dict)
    """`section.key` (snake_case) -> the file that set it (keys not listed are defaults)."""
    aliases_used: dict[str, str] = Field(default_factory=dict)
    """`section.key` (snake_case) -> the camelCase name the file wrote it as (`config show` and `doctor` say so)."""
    held_back: tuple[str, ...] = ()
    """The loosened values of a config file nobody accepted, as `file: key = value (default …)`: their
    defaults hold (`wrapper.weakening.hold_back`), and the start-up, the TUI and the recording name them."""

    def alias_notes(self) -> list[str]:
        """One sentence per camelCase key the file used, saying which snake_case key it is."""
        return [note(k.split(".")[0], alias, k.split(".", 1)[1]) for k, alias in self.aliases_used.items()]


def load(path: Path | None, must_exist: bool = False) -> Settings:
    """Read and validate a TOML config; raise ConfigError naming the file, key, rule and value.

    A file someone named (`--config`, `$BREAKER_TUI_CONFIG`, or any caller's path) must be there: a typo in
    its name would otherwise run with the defaults, and a hardened config would silently not be used. Only
    the platform's own location, which nobody named, may be absent (all defaults), unless `must_exist`.
    """
    if path is None:
        return Settings()
    if not path.exists():
        if must_exist or path != default_config_file():
            raise ConfigError(f"{path}: no such config file")
        return Settings()
    try:
        if not stat.S_ISREG(path.stat().st_mode):
            raise ConfigError(f"{path}: not a regular file; give the path of a TOML file")
        raw = path.read_bytes()
        if len(raw) > MAX_CONFIG_BYTES:
            raise ConfigError(f"{path}: {len(raw):,} bytes is too large for a config file (limit {MAX_CONFIG_BYTES:,})")
        data = tomllib.loads(raw.decode("utf-8"))
    except UnicodeDecodeError as e:
        raise ConfigError(f"{path}: not UTF-8 text (byte {e.start}); save the file as UTF-8") from None
    except tomllib.TOMLDecodeError as e:
        raise ConfigError(f"{path}: not valid TOML: {e}") from None
    except RecursionError:
        raise ConfigError(f"{path}: nested too deeply to be a config file") from None
    except OSError as e:
        raise ConfigError(f"{path}: cannot read it: {e.strerror}") from None
    return from_mapping(data, str(path))


def from_mapping(data: dict[str, Any], where: str) -> Settings:
    """Validate a parsed config mapping."""
    for sec in SECTIONS:
        if sec in data and not isinstance(data[sec], dict):
            raise ConfigError(f"{where}: `{sec}` must be a table (`[{sec}]`), got {type(data[sec]).__name__}")
    unknown = [k for k in data if k not in SECTIONS]
    if unknown:
        raise ConfigError(f"{where}: unknown section `[{unknown[0]}]` (known: {', '.join(SECTIONS)})")
    engine = BreakerConfig.from_mapping({k: data[k] for k in ("repeat", "thinking", "engine") if k in data}, where)
    wrapper = _table(data, "wrapper", WrapperSettings, where)
    ui = _table(data, "ui", UiSettings, where)
    acp = _table(data, "acp", AcpSettings, where)
    hooks = _table(data, "hooks", HooksSettings, where)
    keys = _keys(data.get("keys", {}), where)
    written = {sec: canonical(data.get(sec) or {}, model, sec) for sec, model in _CAMEL_MODELS.items()}
    origins = {f"{sec}.{k}": where for sec in SECTIONS for k in written.get(sec, data.get(sec) or {})}
    used = {
        f"{sec}.{name}": alias
        for sec, model in _CAMEL_MODELS.items()
        for name, alias in check_spellings(data.get(sec) or {}, model, sec).items()
    }
    return Settings(
        engine=engine,
        wrapper=wrapper,
        ui=ui,
        acp=acp,
        hooks=hooks,
        keys=keys,
        source=where,
        origins=origins,
        aliases_used=used,
    )


def _table(data: dict[str, Any], sec: str, model: type[M], where: str) -> M:
    """One section validated by its model; a ConfigError naming the file, key, rule and value."""
    try:
        return model.model_validate(data.get(sec, {}))
    except ValidationError as e:
        raise ConfigError(f"{where}: {describe(e, sec, model)}") from None


# the tables whose keys also have a camelCase (seed) spelling
_CAMEL_MODELS: dict[str, type[BaseModel]] = {"repeat": RepeatConfig, "thinking": ThinkingConfig, "engine": EngineConfig}


def _keys(table: Any, where: str) -> KeyMap:
    """`[keys]` must map binding ids to non-empty key strings (the ids are checked by the app)."""
    if not isinstance(table, dict):
        raise ConfigError(f'{where}: [keys] must be a table of binding id = "key" (got {type(table).__name__})')
    for name, key in table.items():
        if not isinstance(key, str) or not key.strip():
            raise ConfigError(f'{where}: [keys] `{name}` must be a key name such as "ctrl+x" (got {key!r})')
    return {str(k): str(v) for k, v in table.items()}
