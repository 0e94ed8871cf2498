"""The record side: recordings and other agents' logs read back, replayed, scanned and evaluated.

A new log format is an importer in `importers/`; nothing here launches an agent.
"""
