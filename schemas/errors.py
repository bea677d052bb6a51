"""Exceptions with messages a person can act on.

The CLI turns any :class:`QabaseError` into one readable line and its class's ``exit_code``, never a
traceback: 2 a usage, config or input error (the default), 3 the quality gate refused the version, 4 another
build holds the base (try later). The table the commands print: :data:`EXIT_CODES`.
"""

from __future__ import annotations


class QabaseError(Exception):
    """Base class: the message is the whole story, printed as one line."""

    exit_code = 2


class ConfigError(QabaseError):
    """A bad config file, unknown key, or out-of-range value."""


class InputError(QabaseError):
    """A missing input path, an unsupported format, or an unreadable file."""


class PublishError(QabaseError):
    """The built version could not be published (the live base is unchanged)."""


class ModelLoadError(QabaseError):
    """A model directory or packaged model could not be loaded."""


class BaseIntegrityError(QabaseError):
    """The published base is missing, corrupted, or its files do not match each other."""


class StoreError(QabaseError):
    """A file in a store (gs://, s3://, hdfs://, any Beam filesystem) could not be read, written or listed."""


class GateRefused(PublishError):
    """The quality gate refused the staged version (a critical expectation failed, an empty base among them):
    the base is unchanged, the version's report kept under ``failed/``."""

    exit_code = 3


class BuildLockedError(QabaseError):
    """Another build holds the base directory's build lock (two builds would publish over each other): the
    base is busy, not broken; the same command later succeeds."""

    exit_code = 4


class AddressInUseError(QabaseError):
    """The address a service was asked to listen on is taken (another server listens there)."""

    exit_code = 5


# what `qabase build` and `qabase daily` exit with (their --help prints it)
EXIT_CODES = (
    (0, "built, or nothing new to build"),
    (1, "an unexpected failure (--traceback shows it)"),
    (2, "a usage, config or input error"),
    (GateRefused.exit_code, "the quality gate refused the version (an empty base too, without --allow-empty)"),
    (BuildLockedError.exit_code, "another build holds the base: try again later"),
    (130, "interrupted"),
)


def exit_code_table() -> str:
    return "exit codes:\n" + "\n".join(f"  {code:<3}  {meaning}" for code, meaning in EXIT_CODES)
