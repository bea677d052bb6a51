"""Reader leases: which published versions a service is serving, so that retention never deletes one.

A service (``qabase serve``, the MCP server) holds a *shared* ``flock`` on ``BASE/.readers/<version>.lock`` for
as long as it serves that version. Retention (pipelines.release.retention) takes the same lock *exclusively*,
without waiting, before it deletes a version, and holds it while it deletes: a version whose lock it cannot take
is in use and stays. The kernel frees a lock when its holder dies, so a killed service blocks nothing.

A base on an object store has no such primitive in the store: its services read a local mirror copy
(schemas.layout), and their leases are in the mirror, so retention run on the same host (the same
``$QABASE_CACHE_DIR``) keeps what they serve; a service on another host is not seen, and there only ``latest``
and the newest versions are sure to stay (see the README).
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import logging
import os
from collections.abc import Iterator
from pathlib import Path

from schemas.errors import QabaseError
from schemas.layout import BaseLayout

LOG = logging.getLogger("qabase.leases")

_NO_FLOCK = (errno.ENOLCK, errno.EOPNOTSUPP, errno.ENOSYS, errno.EINVAL)


class VersionInUse(QabaseError):
    """The version's reader lock is held by a deleter (taking a lease) or by a reader (deleting)."""


class ReaderLease:
    """A shared lock on one version's reader lock file; :meth:`release` (or a dying process) gives it back."""

    def __init__(self, path: Path, version: str, fd: int | None):
        self.path, self.version, self._fd = path, version, fd

    @property
    def held(self) -> bool:
        return self._fd is not None

    def release(self) -> None:
        if self._fd is not None:
            os.close(self._fd)  # closing the descriptor frees the flock
            self._fd = None


def _open_lock(path: Path) -> int:
    path.parent.mkdir(parents=True, exist_ok=True)
    return os.open(path, os.O_RDWR | os.O_CREAT, 0o644)


def take_reader_lease(base_dir: str | Path, version: str) -> ReaderLease:
    """Lease ``version`` of a base for a reader (a base on a store: in its local mirror). A filesystem without
    ``flock`` or that cannot be written (a read-only mount: nobody deletes there either) gives a lease that
    holds nothing. VersionInUse when retention is deleting the version right now."""
    layout = BaseLayout(base_dir)
    path = layout.reader_lock(version)
    try:
        fd = _open_lock(path)
    except OSError as exc:
        LOG.info("cannot write %s (%s): serving %s without a reader lease", path, exc.strerror, version)
        return ReaderLease(path, version, None)
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        raise VersionInUse(f"version {version} is being deleted by retention") from None
    except OSError as exc:
        os.close(fd)
        level = logging.INFO if exc.errno in _NO_FLOCK else logging.WARNING
        LOG.log(level, "cannot lock %s (%s): serving %s without a reader lease", path, exc.strerror, version)
        return ReaderLease(path, version, None)
    return ReaderLease(path, version, fd)


def version_served(layout: BaseLayout, version: str) -> bool:
    """Whether a reader holds a lease on ``version`` right now (a base on a store: a reader of its mirror)."""
    if not layout.reader_lock(version).is_file():
        return False
    try:
        with exclusive_for_delete(layout, version):
            return False
    except VersionInUse:
        return True


@contextlib.contextmanager
def exclusive_for_delete(layout: BaseLayout, version: str) -> Iterator[None]:
    """Hold ``version``'s reader lock exclusively while deleting it: no reader can lease it meanwhile.
    VersionInUse when a reader holds a lease. A filesystem without locks: nothing to hold."""
    path = layout.reader_lock(version)
    try:
        fd = _open_lock(path)
    except OSError:
        yield  # a base that cannot be written: the deletion itself will say so
        return
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise VersionInUse(f"version {version} is being served") from None
        except OSError as exc:
            if exc.errno not in _NO_FLOCK:
                raise
        yield
    finally:
        os.close(fd)


def drop_reader_lock(layout: BaseLayout, version: str) -> None:
    """Remove a deleted version's lock file (a reader that opened it meanwhile finds no version behind it)."""
    with contextlib.suppress(FileNotFoundError):
        layout.reader_lock(version).unlink()
