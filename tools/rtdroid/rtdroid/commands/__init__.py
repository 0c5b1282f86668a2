"""The `rtdroid` command groups: one module per group, each with ``register(commands)``.

A new group is a module here and one line in ``cli.GROUPS``. ``commands.add_parser`` adds a
top-level command; ``commands.group(name)`` gives the sub-commands of a group, so a module may add
a command to a group another module made (``rt trace`` beside ``rt services``). A command's
function takes the parsed arguments and returns the exit status; it raises ``CliError`` (one line
on stderr, exit 1) for what it refuses.
"""
from __future__ import annotations

import argparse


class Commands:
    """The top-level sub-commands of `rtdroid`, and the groups made under them."""

    def __init__(self, sub: argparse._SubParsersAction):
        self._sub = sub
        self._groups: dict[str, argparse._SubParsersAction] = {}

    def add_parser(self, name: str, **kw) -> argparse.ArgumentParser:
        return self._sub.add_parser(name, **kw)

    def group(self, name: str, help: str | None = None, dest: str = "action") -> argparse._SubParsersAction:
        """The sub-commands of group ``name`` (made on first use: ``rtdroid <name> <action>``)."""
        if name not in self._groups:
            self._groups[name] = self._sub.add_parser(name, help=help).add_subparsers(dest=dest, required=True)
        return self._groups[name]
