"""The one exception type the engine raises for bad configuration."""


class ConfigError(ValueError):
    """A configuration value broke a rule; the message names the key, the rule and the value."""
