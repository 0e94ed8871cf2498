"""Guarding Claude Code, Codex and Gemini CLI in their own terminals, through their native tool hooks.

`agents` holds each agent's payload and answer format, `install` merges breaker's entries into (and out
of) each agent's own config, `client` is the small `breaker-tui hook AGENT` process the agent runs for
every tool call, and `server` is the per-user `breaker-tui serve` that holds one engine per agent session.
The client imports neither the engine nor Textual: it runs before every tool call and must start fast.
"""
