"""The bundled themes (dark and light) and the app's stylesheet; score colours are theme variables."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from textual.theme import Theme

STYLESHEET = Path(__file__).resolve().parent / "breaker.tcss"

# cool / warm / hot: how close a score is to tripping.
BREAKER_DARK = Theme(
    name="breaker-dark",
    primary="#5fafd7",
    secondary="#87af87",
    accent="#d7af5f",
    warning="#d7af5f",
    error="#ff5f5f",
    success="#87d787",
    foreground="#d0d0d0",
    background="#121417",
    surface="#1b1e23",
    panel="#23272e",
    dark=True,
    variables={
        "score-cool": "#5fafd7",
        "score-warm": "#d7af5f",
        "score-hot": "#ff5f5f",
        "reasoning": "#7f8793",
        "footer-key-foreground": "#5fafd7",
    },
)

BREAKER_LIGHT = Theme(
    name="breaker-light",
    primary="#005f87",
    secondary="#2e7d32",
    accent="#9a6700",
    warning="#9a6700",
    error="#c62828",
    success="#2e7d32",
    foreground="#1f2328",
    background="#fafafa",
    surface="#f0f1f3",
    panel="#e4e6ea",
    dark=False,
    variables={
        "score-cool": "#005f87",
        "score-warm": "#9a6700",
        "score-hot": "#c62828",
        "reasoning": "#6e7781",
        "footer-key-foreground": "#005f87",
    },
)

THEMES = (BREAKER_DARK, BREAKER_LIGHT)


@dataclass(frozen=True, slots=True)
class Palette:
    """The colours widgets paint Rich text with, all taken from the current theme."""

    cool: str
    warm: str
    hot: str
    reasoning: str
    tool: str
    ok: str
    warning: str
    error: str
    muted: str


def palette(theme: Theme) -> Palette:
    """A theme's colours for the stream, scores and banners (any Textual theme works)."""
    cool, warm, hot = score_colours(theme)
    v = theme.variables
    muted = v.get("reasoning", "#808080")
    return Palette(
        cool=cool,
        warm=warm,
        hot=hot,
        reasoning=muted,
        tool=theme.primary,
        ok=theme.success or "green",
        warning=theme.warning or "yellow",
        error=theme.error or "red",
        muted=muted,
    )


def score_colours(theme: Theme) -> tuple[str, str, str]:
    """(cool, warm, hot) of a theme, with sensible fallbacks for Textual's own themes."""
    v = theme.variables
    return (
        v.get("score-cool", theme.primary),
        v.get("score-warm", theme.warning or "yellow"),
        v.get("score-hot", theme.error or "red"),
    )
