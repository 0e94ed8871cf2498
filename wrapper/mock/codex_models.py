"""The mock model's entry in a Codex model catalog, so Codex runs it without a warning in the answer.

Codex looks every model up in its catalog of model metadata. `mock-model` is not in the one it ships, so
it ran on its fallback metadata and said so at each session: ``Model metadata for `mock-model` not found.
Defaulting to fallback metadata; this can degrade performance and cause issues.`` codex-acp forwards
Codex's warnings as agent message text, so the demo and the tests showed that sentence glued to the
model's answer, where a newcomer reads it as the model's words.

`model_catalog_json` in the mock's `$CODEX_HOME/config.toml` names a catalog file that Codex then uses
instead of its own; the entry written here carries the fallback's own values (`model_info_from_slug` in
the Codex that codex-acp 0.16.0 is built on), so Codex truncates output and asks the same way as before.
Three things differ, all only for the mock: the model's system text is the one line below (a catalog
entry must carry one, and Codex's own prompt is not ours to copy; the scripted mock never reads it);
Codex's model list offers the mock model alone (it serves no other); and Codex declares its
`apply_patch` tool (freeform, as for its own models; the fallback declares none, and a patch is Codex's
only way to edit or write a file, so a scenario's edit reached Codex as an unsupported call and the
answer claimed an edit that never happened).
A person's own Codex config is never touched: only the private home the demo and the tests build gets it.
"""

from __future__ import annotations

import json
from pathlib import Path

CATALOG_FILE = "mock-model-catalog.json"  # beside config.toml; not `models_cache.json`, Codex's own cache
INSTRUCTIONS = "You are Codex, a coding agent. You are talking to breaker-tui's scripted mock model."


def fallback_entry(model: str) -> dict[str, object]:
    """Codex's fallback metadata for `model`, as a catalog entry: the tools and limits an unknown model gets."""
    return {
        "slug": model,
        "display_name": model,
        "description": "breaker-tui's scripted mock model",
        "default_reasoning_level": None,
        "supported_reasoning_levels": [],
        "shell_type": "default",
        "visibility": "none",
        "supported_in_api": True,
        "priority": 99,
        "additional_speed_tiers": [],
        "service_tiers": [],
        "availability_nux": None,
        "upgrade": None,
        "base_instructions": INSTRUCTIONS,
        "supports_reasoning_summaries": False,
        "default_reasoning_summary": "auto",
        "support_verbosity": False,
        "default_verbosity": None,
        "apply_patch_tool_type": "freeform",
        "web_search_tool_type": "text",
        "truncation_policy": {"mode": "bytes", "limit": 10_000},
        "supports_parallel_tool_calls": False,
        "supports_image_detail_original": False,
        "context_window": 272_000,
        "max_context_window": 272_000,
        "auto_compact_token_limit": None,
        "effective_context_window_percent": 95,
        "experimental_supported_tools": [],
        "input_modalities": ["text", "image"],
        "supports_search_tool": False,
    }


def add_model_catalog(codex_home: Path, model: str) -> Path:
    """Write the catalog beside `codex_home`'s config.toml and name it there; returns the catalog's path.

    The key goes first in the file, since TOML's top-level keys must come before its first table.
    """
    catalog = codex_home / CATALOG_FILE
    catalog.write_text(json.dumps({"models": [fallback_entry(model)]}, indent=1))
    config = codex_home / "config.toml"
    old = config.read_text() if config.exists() else ""
    # a JSON string is a valid TOML basic string (same quotes, backslash and \uXXXX escapes)
    config.write_text(f"model_catalog_json = {json.dumps(str(catalog))}\n{old}")
    return catalog
