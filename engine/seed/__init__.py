"""The seed plugins' exact semantics: their lenient options, the conformance runner, the calibration corpora and tables.

`seed` mode reproduces the two dsh plugins breaker-tui was born from; this room is how that is proved.
"""
