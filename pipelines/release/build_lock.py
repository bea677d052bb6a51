"""The build lock: one build at a time in a base.

Each step that writes into a base (stage, gate, report, publish, ``qabase gc``) holds the base's build lock
(:func:`hold_build_lock`); nested holds in one thread are one hold. A local base's lock is ``.build.lock``
under ``flock``: the kernel frees it when its holder dies, so a killed build never blocks the next. A base on a
store has no such primitive: its lock is a ``.build.lock`` object, best-effort (written, then read back: two
builds starting within one round trip may both get it); a lock object is taken over when its holder's pid is
dead on this host or when it is older than ``STALE_AFTER_SECONDS`` (pipelines.release.leftovers). Whoever takes
the lock sweeps what killed builds left (pipelines.release.leftovers.sweep_leftovers): this module depends on the
sweep, never the other way round.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import errno
import fcntl
import json
import logging
import os
import socket
import threading
import uuid

from pipelines.release import leftovers
from pipelines.release.leftovers import sweep_leftovers
from schemas import layout as L
from schemas.errors import BuildLockedError, PublishError, QabaseError

LOG = logging.getLogger("qabase.publish")  # the logger the lock's messages always went to

# the locks this process holds, by (base, thread): one thread's steps nest in run_build; another thread of the
# process is another build and goes through the lock like another process
_HELD: dict[tuple[str, int], object] = {}


def _pid_namespace() -> int | None:
    """This process's pid namespace (containers sharing a host name each have their own): a pid is only asked
    about in the namespace that gave it."""
    try:
        return os.stat("/proc/self/ns/pid").st_ino
    except OSError:
        return None


def _holder(version: str) -> dict:
    return {"pid": os.getpid(), "host": socket.gethostname(), "pidns": _pid_namespace(),
            "since": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"), "version": version,
            "token": uuid.uuid4().hex}


def _pid_is_ours_to_ask(holder: dict) -> bool:
    """Whether the holder's pid names a process we can see: same host, and the same pid namespace (when both
    are known)."""
    if holder.get("host") != socket.gethostname():
        return False
    theirs, ours = holder.get("pidns"), _pid_namespace()
    return theirs is None or ours is None or theirs == ours


def _parse_holder(raw: bytes) -> dict | None:
    """A lock's holder record; None for an empty (free) or unreadable lock."""
    try:
        holder = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        return None
    return holder if isinstance(holder, dict) else None


def _pid_running(pid) -> bool:
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # someone else's process
    except (TypeError, ValueError, OverflowError):
        return False
    return True


def _gone_because(holder: dict | None) -> str | None:
    """Why a lock's holder has stopped building, or None while it may still be building."""
    holder = holder or {}
    if _pid_is_ours_to_ask(holder) and not _pid_running(holder.get("pid")):
        return f"pid {holder.get('pid')} is not running"
    try:
        since = dt.datetime.fromisoformat(str(holder.get("since")))
    except ValueError:
        return "the lock is unreadable"
    if since.tzinfo is None:  # a record written without an offset (by hand, another tool): read as UTC
        since = since.replace(tzinfo=dt.timezone.utc)
    age = (dt.datetime.now(dt.timezone.utc) - since).total_seconds()
    if age > leftovers.STALE_AFTER_SECONDS:
        return f"held for {age / 3600:.1f} h, longer than any build ({leftovers.STALE_AFTER_SECONDS / 3600:.0f} h)"
    return None


def _who(holder: dict | None) -> str:
    if not holder:
        return "holder unknown"
    return f"pid {holder.get('pid')} on host {holder.get('host')} since {holder.get('since')}"


def _locked(where: str, holder: dict | None, lock: str, live: bool = False) -> BuildLockedError:
    """``live``: the kernel says the holder is alive (its flock is held): nothing to delete by hand."""
    advice = "" if live else f" (if no build is running there, delete {lock})"
    return BuildLockedError(f"another build is running in {where} ({_who(holder)}); wait for it to end{advice}")


class _ObjectLock:
    """A lock object (a base on a store, or a local filesystem without flock): best-effort, see the module."""

    def __init__(self, url: str, where: str):
        self.url, self.where, self.token = url, where, None

    def acquire(self, version: str) -> dict | None:
        """Take the lock; returns the holder record of a stale lock taken over (else None)."""
        gone = None
        if L.exists(self.url):
            holder = _parse_holder(L.read_bytes(self.url))
            reason = _gone_because(holder)
            if reason is None:
                raise _locked(self.where, holder, self.url)
            gone = dict(holder or {}, reason=reason)
        me = _holder(version)
        L.write_bytes(self.url, json.dumps(me).encode("utf-8"))
        back = _parse_holder(L.read_bytes(self.url))  # two builds that wrote at once: the last write won
        if not back or back.get("token") != me["token"]:
            raise _locked(self.where, back, self.url)
        self.token = me["token"]
        return gone

    def release(self, restore: dict | None = None) -> None:
        """Remove the lock object; ``restore``: write that (stale) record back instead (a dry run looked)."""
        try:
            if L.exists(self.url) and (_parse_holder(L.read_bytes(self.url)) or {}).get("token") == self.token:
                if restore is not None:
                    L.write_bytes(self.url, json.dumps(restore).encode("utf-8"))
                else:
                    L.delete(self.url)
        except QabaseError as exc:  # never hides what ended the build
            LOG.warning("could not remove the build lock %s (%s); delete it by hand", self.url, exc)


class _FileLock:
    """A local base's lock: ``flock`` on ``.build.lock``, which holds the holder record for the messages. The kernel
    frees it when the holder dies; the record a dead holder left says what to sweep."""

    def __init__(self, layout: L.BaseLayout):
        self.layout, self.path, self.fd = layout, layout.lock, None

    def _open_locked(self) -> int | None:
        """A descriptor of the lock file, locked; None when another process holds it."""
        while True:
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                self.fd = fd
                return None
            except BaseException:
                os.close(fd)
                raise
            try:  # the holder before us may have removed the file between our open and our lock: open it again
                if os.fstat(fd).st_ino == os.stat(self.path).st_ino:
                    return fd
            except FileNotFoundError:
                pass
            os.close(fd)

    def _record(self, fd: int) -> dict | None:
        os.lseek(fd, 0, os.SEEK_SET)
        return _parse_holder(os.read(fd, 1 << 16))

    def acquire(self, version: str) -> dict | None:
        fd = self._open_locked()
        if fd is None:
            holder = self._record(self.fd)
            os.close(self.fd)
            self.fd = None
            raise _locked(str(self.layout.base), holder, str(self.path), live=True)
        self.fd = fd
        holder = self._record(fd)
        gone = None
        if holder:  # its holder released no lock: killed (on this host the kernel's lock tells; elsewhere: its age)
            reason = (f"pid {holder.get('pid')} holds no lock on it" if holder.get("host") == socket.gethostname()
                      else _gone_because(holder))
            if reason is None:  # another host's build, on a filesystem whose locks may not reach it: its record
                os.close(fd)
                self.fd = None
                raise _locked(str(self.layout.base), holder, str(self.path))
            gone = dict(holder, reason=reason)
        try:
            self._write(fd, _holder(version))
        except BaseException:
            self.release()  # never keep a locked descriptor whose record could not be written
            raise
        return gone

    @staticmethod
    def _write(fd: int, record: dict) -> None:
        os.ftruncate(fd, 0)
        os.pwrite(fd, json.dumps(record).encode("utf-8"), 0)
        with contextlib.suppress(OSError):  # the record is for messages; the kernel's lock is what excludes
            os.fsync(fd)

    def release(self, restore: dict | None = None) -> None:
        """Free the lock (and remove the file); ``restore``: write that (stale) record back and keep the file, so
        the next holder still learns what the dead build left (a dry run only looked)."""
        if self.fd is None:
            return
        try:
            if restore is not None:
                with contextlib.suppress(OSError):
                    self._write(self.fd, restore)
            else:
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(self.path)  # while still locked: whoever opened it meanwhile opens it again
        finally:
            os.close(self.fd)
            self.fd = None


_NO_FLOCK = (errno.ENOLCK, errno.EOPNOTSUPP, errno.ENOSYS, errno.EINVAL)


def _new_lock(layout: L.BaseLayout):
    if layout.remote:
        return _ObjectLock(layout.lock_url(), layout.url)
    if layout.base.exists() and not layout.base.is_dir():
        raise PublishError(f"output: {layout.base} exists and is not a directory")
    try:
        layout.base.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise PublishError(f"output: cannot create {layout.base}: {exc.strerror}") from None
    return _FileLock(layout)


def _acquire(layout: L.BaseLayout, version: str):
    """(the lock, the record of a stale lock it took over or None)."""
    lock = _new_lock(layout)
    try:
        return lock, lock.acquire(version)
    except OSError as exc:
        if exc.errno not in _NO_FLOCK:
            raise PublishError(f"output: cannot lock {layout.lock}: {exc.strerror}") from None
    LOG.warning("%s has no file locks: a lock file stands in (best-effort, as on an object store)", layout.base)
    lock = _ObjectLock(str(layout.lock), str(layout.base))
    return lock, lock.acquire(version)


@contextlib.contextmanager
def hold_build_lock(layout: L.BaseLayout, version: str, sweep: bool = True, look_only: bool = False):
    """Hold the base's build lock while a step writes into it (nested holds in one thread are one hold). On
    taking it, sweep what killed builds left (:func:`sweep_leftovers`), all but ``version``'s own staging; with
    ``sweep=False`` (``qabase gc``, which shows what it removes) the lock's ``gone`` says whose stale lock was
    taken over. ``look_only`` (a dry run): a stale record taken over is put back on release, so the next holder
    still sweeps what that build left. BuildLockedError when another build holds it."""
    key = (layout.url or str(layout.base.resolve()), threading.get_ident())
    if key in _HELD:
        yield _HELD[key]
        return
    lock, gone = _acquire(layout, version)
    lock.gone = gone
    _HELD[key] = lock
    try:
        if gone:
            LOG.warning("took over the build lock of a build that is gone (%s, building version %s: %s)",
                        _who(gone), gone.get("version"), gone["reason"])
        if sweep:
            sweep_leftovers(layout, (gone or {}).get("version"), keep=version)
        yield lock
    finally:
        del _HELD[key]
        if look_only and gone:
            lock.release(restore={k: v for k, v in gone.items() if k != "reason"})
        else:
            lock.release()

