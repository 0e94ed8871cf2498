"""Where breaker-tui keeps its things: config, data (the dsh install), state (recordings)."""

from __future__ import annotations

import os
from pathlib import Path

from platformdirs import user_config_dir, user_data_dir, user_state_dir

APP = "breaker-tui"


def config_file() -> Path:
    """The TOML config file: `$BREAKER_TUI_CONFIG`, else the platform config directory."""
    env = os.environ.get("BREAKER_TUI_CONFIG")
    return Path(env) if env else default_config_file()


def default_config_file() -> Path:
    """The platform's config file: the one place nobody named, so the one that may be absent (all defaults)."""
    return Path(user_config_dir(APP)) / "config.toml"


def data_dir() -> Path:
    """Where `setup-dsh` installs Node tools and dsh: `$BREAKER_TUI_DATA_DIR` or the platform data dir."""
    env = os.environ.get("BREAKER_TUI_DATA_DIR")
    return Path(env) if env else Path(user_data_dir(APP))


def state_dir() -> Path:
    """Where recordings go: `$BREAKER_TUI_STATE_DIR` or the platform state dir."""
    env = os.environ.get("BREAKER_TUI_STATE_DIR")
    return Path(env) if env else Path(user_state_dir(APP))


def recordings_dir() -> Path:
    """One JSON-lines file per session lives here."""
    return state_dir() / "recordings"


def bridge_file() -> Path:
    """The bridge plugin shipped inside the package."""
    return Path(__file__).resolve().parent / "harness" / "dsh" / "bridge" / "breaker-bridge.mjs"
