"""The one way a ``qabase`` command makes its argument parser: named ``qabase COMMAND``, defaults shown.

Every tool's module has ``build_parser()`` built on :func:`command_parser`, so ``qabase COMMAND --help`` and
``python -m MODULE --help`` print the same usage line (the name a user types in the docs) and every option's
default, and a test can read every command's help without running the tool.
"""

from __future__ import annotations

import argparse
from pathlib import Path, PurePath

_PROJECT = Path(__file__).resolve().parents[1]


def shown_default(value) -> str | None:
    """How a default reads in help, or None where saying it adds nothing (no value, an off switch, an empty
    list)."""
    if value is None or value is False or value == [] or value == () or value is argparse.SUPPRESS:
        return None
    if isinstance(value, (list, tuple)):
        return " ".join(map(shown_default, value))
    if isinstance(value, PurePath):  # said from the project's root, so help reads the same on every checkout
        for root, prefix in ((_PROJECT, ""), (_PROJECT.parent, "../")):
            if Path(value).is_relative_to(root):
                return prefix + str(Path(value).relative_to(root))
    return str(value)


class HelpFormatter(argparse.RawDescriptionHelpFormatter):
    """Descriptions and epilogs as written (tables stay tables); each option's help ends with its default,
    unless the help already says what the default is."""

    def _get_help_string(self, action: argparse.Action) -> str:
        text = action.help or ""
        if not action.option_strings or "default" in text.lower():
            return text
        default = shown_default(action.default)
        if default is None:
            return text
        return f"{text} (default: {default.replace('%', '%%')})"


def summary(doc: str | None) -> str | None:
    """A module docstring's first paragraph: what a command's help says it does."""
    return doc.strip().split("\n\n")[0] if doc else None


def command_parser(command: str, description: str | None = None, epilog: str | None = None,
                   **kwargs) -> argparse.ArgumentParser:
    """A parser whose usage says ``qabase COMMAND`` and whose help shows defaults (description and epilog
    printed as written)."""
    return argparse.ArgumentParser(prog=f"qabase {command}", description=description, epilog=epilog,
                                   formatter_class=HelpFormatter, **kwargs)


def check_port(port: int, option: str = "--port") -> int:
    """A TCP port to listen on, 1 to 65535. Refused otherwise (QabaseError): the socket layer would wrap 70000
    around to 4464 and listen there without a word, and 0 (any free port) would listen where no one is told."""
    from schemas.errors import QabaseError

    if not 1 <= port <= 65535:
        raise QabaseError(f"{option} must be between 1 and 65535, got {port}")
    return port


def listening_socket(host: str, port: int):
    """A TCP socket bound to (host, port) and listening: a service binds before it loads anything, so a taken
    port is one error at once (AddressInUseError), not a traceback after the load; the server is then handed the
    socket, so nothing can take the port in between."""
    import socket

    from schemas.errors import AddressInUseError, QabaseError

    try:
        family = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0][0]
    except socket.gaierror as exc:
        raise QabaseError(f"--host {host!r} is not an address this machine can listen on ({exc.strerror})") from None
    try:
        return socket.create_server((host, port), family=family)
    except OSError as exc:
        if exc.errno in (98, 48, 10048):  # EADDRINUSE on Linux, macOS, Windows
            raise AddressInUseError(f"{host}:{port} is taken (another server listens there): stop it or choose "
                                    f"another --port") from None
        raise QabaseError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from None

