"""The operator's tool's one refusal: the command is not carried out, and the operator is told why."""

__all__ = ["Refused"]


class Refused(Exception):
    """The command would be unsafe as asked (a live lease without --force, an unknown id)."""
