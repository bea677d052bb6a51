"""Exceptions with messages a person can act on.

The CLI turns any :class:`QabaseError` into one readable line and a non-zero exit,
never a traceback.
"""

from __future__ import annotations


class QabaseError(Exception):
    """Base class: the message is the whole story, printed as one line."""


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


class BuildLockedError(QabaseError):
    """Another build holds the base directory's build lock (two builds would publish over each other)."""
