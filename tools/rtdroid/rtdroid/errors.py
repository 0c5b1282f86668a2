"""The board tooling's user-facing error."""


class BoardError(Exception):
    """A refusal or failure with a message meant for the user."""
