"""The tool-call rules: shell and URL analysis, fingerprints, the repeat window, failures, progress, cycles.

A new rule about tool calls goes here (and is wired into `rules.DefaultRules`); nothing here reads reasoning text.
"""
