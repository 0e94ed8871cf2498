"""The one exception type the engine raises for bad configuration."""


class ConfigError(ValueError):
    """A configuration value broke a rule; the message names the key, the rule and the value.

    `key` is the offending key as the user wrote it, when there is one, so a caller that knows the key
    was a camelCase alias can add its snake_case name.
    """

    def __init__(self, message: str, key: str | None = None) -> None:
        super().__init__(message)
        self.key = key
