"""dsh profiles breaker-tui writes: the interactive `dev` profile, pointed at a model of your choice.

The profile keeps its plain (uncompressed, tail-friendly) session logs in its own sessions root,
`$DSH_HOME/sessions-plain`: dsh's own profiles write `.jsonl.zstd` under `$DSH_HOME/sessions`, and
one backend refuses the other's files, so sharing a root would break whichever ran second.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

SESSIONS_ROOT = "sessions-plain"
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,63}")


class ProfileError(ValueError):
    """The profile cannot be written; the message says why and what to do."""


def check_name(name: str) -> str:
    """A profile name is one plain word (letters, digits, `-`, `_`): never a path."""
    if not _NAME.fullmatch(name):
        raise ProfileError(f"{name!r} is not a profile name: use letters, digits, '-' and '_' only (for example: dev)")
    return name


DEV_PACKAGE = {
    "name": "dsh-profile-dev",
    "private": True,
    "dependencies": {},
    "dsh": {"profile": {"bundles": ["@deepseek-ai/dsh-base"]}},
}

# The model endpoint comes from BREAKER_LLM_BASE_URL when set (the demo and tests point it at the
# mock model), else DEEPSEEK_BASE_URL, else DeepSeek's own API.
DEV_PATCH = """\
# dsh profile written by breaker-tui: dsh-base, driven interactively by breaker-tui's bridge runner.
- id: hmr
  disabled: true
- id: session-title-llm
  disabled: true
- id: llm-deepseek
  config:
    baseURL: !!js process.env.BREAKER_LLM_BASE_URL ?? process.env.DEEPSEEK_BASE_URL ?? 'https://api.deepseek.com'
    apiKeyEnv: DEEPSEEK_API_KEY
    streamIdleTimeoutMs: {idle_ms}
    retryPolicy: {{ mode: normal, maxRetries: {retries} }}
{models}
- id: session-persistence-jsonl
  config: {{ root: !!js dshHomePath('{root}'), compression: none, packChunks: false, writeBatchMaxDelayMs: 20 }}
# Code Mode when DSH_TOOLS_MODE asks for it (native|code|both), the opt-in dsh's headless and web profiles use
- id: tools
  config:
    mode: !!js process.env.DSH_TOOLS_MODE
- insert:
    - id: code-runtime
      name: '@deepseek-ai/dsh-code-runtime-worker-thread'
"""

MOCK_MODELS = """\
    models: [{ id: mock-model, name: Mock Model }]
- id: agent-default-model
  config: { provider: deepseek-official, model: mock-model }"""


def write_dev_profile(
    dsh_home: Path,
    name: str = "dev",
    mock: bool = False,
    idle_ms: int = 30000,
    retries: int = 0,
    overwrite: bool = True,
) -> Path:
    """Create `$DSH_HOME/profiles/<name>` (replacing it only with `overwrite`); returns the profile directory."""
    d = dsh_home / "profiles" / check_name(name)
    if not overwrite and d.exists():
        raise ProfileError(f"the dsh profile {name!r} already exists at {d}; add --force to replace it")
    d.mkdir(parents=True, exist_ok=True)
    (d / "package.json").write_text(json.dumps(DEV_PACKAGE, indent=2) + "\n")
    models = MOCK_MODELS if mock else "    {}"
    patch = DEV_PATCH.format(idle_ms=idle_ms, retries=retries, models=models, root=SESSIONS_ROOT)
    if not mock:
        patch = patch.replace("\n    {}\n", "\n")
    (d / "cordis.patch.yml").write_text(patch)
    return d


def mock_env(dsh_home: Path, base_url: str) -> dict[str, str]:
    """Environment for a dsh that talks to the mock model only."""
    return {
        "DSH_HOME": str(dsh_home),
        "DSH_TELEMETRY_DISABLED": "1",
        "DEEPSEEK_API_KEY": "sk-mock",
        "DEEPSEEK_BASE_URL": base_url,
        "BREAKER_LLM_BASE_URL": base_url,
    }
