"""The ACP harness: any agent speaking the Agent Client Protocol, presets, installer, decisions, replay."""
