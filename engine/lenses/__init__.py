"""The reasoning lenses: repetition, degeneracy and verbatim loops in a model's streamed text, per request.

A new lens goes here (and into `streams`); nothing here looks at tool calls.
"""
