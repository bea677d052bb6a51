"""Publish a staged version atomically (the folder layout itself is schemas.layout's).

A build writes everything into its staging folder, checks it, writes the manifest
last, renames the folder into ``versions/`` and then swaps ``latest``. A failed
or interrupted build leaves ``latest`` where it was.

A base on a store (``gs://``, ``s3://``, ``hdfs://``: no rename, no symlink) works the same, in other
steps: the Beam graph writes into the staging prefix ``versions/.staging-<version>/`` in the store; the
launcher pulls it into a local working copy (the base's local mirror, schemas.layout) where everything
after the graph runs as for a local base, and pushes the changed files back after each step (so the
steps of the daily DAG may run on different machines); the publish copies the staging prefix to
``versions/<version>/`` (the manifest last), checks every file's size against the manifest, writes the
``LATEST`` object last, and only then deletes the staging prefix. Until ``LATEST`` is written, readers
see the previous version; a failed build deletes its staging prefix and never writes ``LATEST``.

One build at a time: each step that writes into a base holds its build lock (:func:`hold_build_lock`), and a
publish refuses a version built on another version than the one ``latest`` names by then (its counts would
drop what that version added). A local base's lock is ``.build.lock`` under ``flock``: the kernel frees it when
its holder dies, so a killed build never blocks the next. A base on a store has no such primitive: its lock is a
``.build.lock`` object, best-effort (written, then read back: two builds starting within one round trip may
both get it); a lock object is taken over when its holder's pid is dead on this host or when it is older than
:data:`STALE_AFTER_SECONDS`. Whoever takes the lock sweeps what killed builds left (:func:`sweep_leftovers`).
"""

from __future__ import annotations

import contextlib
import datetime as dt
import errno
import fcntl
import json
import logging
import os
import shutil
import socket
import threading
import uuid
from pathlib import Path

from schemas import layout as L
from schemas.errors import BuildLockedError, PublishError, QabaseError
from schemas.layout import MANIFEST, REPORT_FILES, STATE_DIR, BaseLayout, new_version_id, sha256_file

LOG = logging.getLogger("qabase.publish")


def _walk(folder: Path) -> list[str]:
    """Every file under a local folder, as sorted '/'-joined relative paths."""
    return sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file())


def _staged_name(rel: str) -> bool:
    """A file of a staged version (top level or state/), not a Beam sink's leftover temporary shard."""
    parts = rel.split("/")
    if parts[0].startswith(L.BEAM_TEMP_PREFIX):
        return False
    return len(parts) == 1 or (len(parts) == 2 and parts[0] == STATE_DIR)


class Publisher:
    """Owns one build's staging folder and its publication. ``staging`` and ``final`` are local folders (for
    a base on a store: in its local mirror); ``target`` is where the Beam graph writes."""

    def __init__(self, base_dir: str | Path, version: str | None = None):
        self.layout = BaseLayout(base_dir)
        self.base = self.layout.base
        if not self.layout.remote and self.base.exists() and not self.base.is_dir():
            raise PublishError(f"output: {self.base} exists and is not a directory")
        self.version = version or new_version_id()
        self.versions = self.layout.versions
        self.staging = self.layout.staging(self.version)
        self.final = self.layout.version(self.version)
        # what the store's staging prefix holds, {relative name: sha256}, as this machine last synced it
        self._synced_file = self.versions / f"{L.STAGING_PREFIX}{self.version}.synced.json"

    @property
    def remote(self) -> bool:
        return self.layout.remote

    @property
    def target(self) -> str:
        """Where the Beam graph writes the version: the staging folder, or the staging prefix in the store."""
        return self.layout.staging_url(self.version) if self.remote else str(self.staging)

    @property
    def location(self) -> str:
        """Where the published version lives: its folder, or its prefix in the store."""
        return self.layout.version_url(self.version) if self.remote else str(self.final)

    def prepare(self) -> Path:
        if self.remote:
            if L.list_tree(self.target):
                raise PublishError(f"output: staging prefix {self.target} already exists")
            shutil.rmtree(self.staging, ignore_errors=True)  # a working copy left by a crash
            self._synced_file.unlink(missing_ok=True)
        try:
            self.staging.mkdir(parents=True, exist_ok=False)
        except FileExistsError:
            raise PublishError(f"output: staging folder {self.staging} already exists") from None
        except OSError as exc:
            raise PublishError(f"output: cannot create {self.staging}: {exc.strerror}") from None
        return self.staging

    # --- a remote base: the local working copy and the staging prefix in the store ----------------------

    def _synced(self) -> dict[str, str]:
        try:
            return json.loads(self._synced_file.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}

    def _save_synced(self, synced: dict[str, str]) -> None:
        self._synced_file.parent.mkdir(parents=True, exist_ok=True)
        self._synced_file.write_text(json.dumps(synced, indent=0, sort_keys=True), encoding="utf-8")

    def pull(self, names: list[str] | None = None) -> None:
        """Download the staging prefix (the graph's files, or ``names``) into the local working copy."""
        if not self.remote:
            return
        names = names if names is not None else [n for n in L.list_tree(self.target) if _staged_name(n)]
        synced = {}
        for name in names:
            synced[name] = L.download(L.join(self.target, name), self.staging / name)
        self._save_synced(synced)

    def ensure_local(self, marker: str) -> None:
        """Make the local working copy current: kept when its ``marker`` file (build.json, manifest.json)
        is the store's, else downloaded whole (a step that runs on another machine than the one before)."""
        if not self.remote:
            return
        url = L.join(self.target, marker)
        if not L.exists(url):
            return  # the caller says what is missing
        local = self.staging / marker
        if local.is_file() and local.read_bytes() == L.read_bytes(url):
            return
        shutil.rmtree(self.staging, ignore_errors=True)
        self.staging.mkdir(parents=True)
        self.pull(L.list_tree(self.target))

    def push(self) -> None:
        """Upload the working copy's new and changed files to the staging prefix; delete there what is gone."""
        if not self.remote:
            return
        synced = self._synced()
        local = {name: sha256_file(self.staging / name) for name in _walk(self.staging)}
        for name, sha in local.items():
            if synced.get(name) != sha:
                L.upload(self.staging / name, L.join(self.target, name))
        gone = [L.join(self.target, n) for n in synced if n not in local]
        if gone:
            from apache_beam.io.filesystems import FileSystems

            try:
                FileSystems.delete(gone)
            except Exception as exc:  # noqa: BLE001
                raise PublishError(f"output: cannot delete {gone[0]} ({exc})") from None
        self._save_synced(local)

    def upload_failed(self, folder: Path) -> str:
        """A failed version's report (local ``failed/<version>/``) to the store; returns its URL."""
        url = self.layout.failed_url(self.version)
        for name in _walk(folder):
            L.upload(folder / name, L.join(url, name))
        return url

    # --- publication -------------------------------------------------------------------------------------

    def write_manifest(self, manifest: dict) -> None:
        files = {}
        names = sorted(os.listdir(self.staging))
        if (self.staging / STATE_DIR).is_dir():
            names += sorted(f"{STATE_DIR}/{n}" for n in os.listdir(self.staging / STATE_DIR))
        for name in names:
            p = self.staging / name
            if p.is_file() and name not in REPORT_FILES:  # reports can be regenerated: not checksummed
                files[name] = {"bytes": p.stat().st_size, "sha256": sha256_file(p)}
        manifest = dict(manifest, files=files)
        tmp = self.staging / (MANIFEST + ".tmp")
        tmp.write_text(json.dumps(manifest, indent=2, ensure_ascii=False, sort_keys=False), encoding="utf-8")
        os.replace(tmp, self.staging / MANIFEST)

    def publish(self) -> Path:
        """Local: rename staging into versions/ and point latest at it (atomic on POSIX). Remote: see the
        module's docstring. Returns the version's local folder (remote: the mirror's copy)."""
        if self.remote:
            return self._publish_remote()
        if not (self.staging / MANIFEST).is_file():
            raise PublishError("publish: no manifest in the staging folder")
        self._refuse_if_latest_moved(json.loads((self.staging / MANIFEST).read_text(encoding="utf-8")))
        os.rename(self.staging, self.final)
        try:
            self.layout.point_latest(self.version)
        except BaseException:
            self._undo_rename()
            raise
        return self.final

    def _refuse_if_latest_moved(self, manifest: dict) -> None:
        """A version counts the state of the version latest named when it was planned: published after another
        build moved latest, it would drop what that build added. Refused, and its staging removed."""
        built_on, now = manifest.get("previous_version"), self.layout.current_version()
        if now == built_on:
            return
        self.abort()
        pointer = L.LATEST_FILE if self.remote else L.LATEST
        raise PublishError(f"publish: {pointer} is now {now}, but version {self.version} was built on "
                           f"{built_on or 'an empty base'}: publishing it would drop what {now} added; {pointer} "
                           "is unchanged; build again")

    def _undo_rename(self) -> None:
        """A swap cut short (an interrupt, a full disk) before latest named the version: no complete version may
        stay that latest never named, so it goes back to staging and is removed."""
        if self.layout.current_version() == self.version:
            return  # the swap happened; what failed came after it
        for link in self.layout.latest_links():
            if link.name == f"{L.LATEST_LINK_PREFIX}{self.version}":
                link.unlink()
        os.rename(self.final, self.staging)
        self.abort()

    def _publish_remote(self) -> Path:
        staging, final = self.target, self.location
        if not L.exists(L.join(staging, MANIFEST)):
            raise PublishError(f"publish: no manifest in the staging prefix {staging}")
        manifest = json.loads(L.read_bytes(L.join(staging, MANIFEST)).decode("utf-8"))
        self._refuse_if_latest_moved(manifest)
        if L.list_tree(final):
            raise PublishError(f"publish: {final} already exists")
        names = [n for n in L.list_tree(staging) if n != MANIFEST and not n.startswith(L.BEAM_TEMP_PREFIX)]
        try:
            L.copy_files([L.join(staging, n) for n in names], [L.join(final, n) for n in names])
            for name, facts in (manifest.get("files") or {}).items():
                if name == MANIFEST:
                    continue
                got = L.size(L.join(final, name)) if L.exists(L.join(final, name)) else None
                if got != facts["bytes"]:
                    raise PublishError(f"publish: {L.join(final, name)} holds {got} bytes, the manifest says "
                                       f"{facts['bytes']}; LATEST is unchanged")
            L.copy_files([L.join(staging, MANIFEST)], [L.join(final, MANIFEST)])  # the version is complete
        except QabaseError:
            _quietly(L.delete_tree, final)
            raise
        self.layout.point_latest(self.version)  # LATEST last: from here on readers see this version
        _quietly(L.delete_tree, staging)
        self._synced_file.unlink(missing_ok=True)
        if (self.staging / MANIFEST).is_file():  # this machine's working copy is the version: keep it as cached
            shutil.rmtree(self.final, ignore_errors=True)
            os.rename(self.staging, self.final)
        return self.layout.fetch(self.version)

    def abort(self) -> None:
        shutil.rmtree(self.staging, ignore_errors=True)
        if self.remote:
            self._synced_file.unlink(missing_ok=True)
            _quietly(L.delete_tree, self.target)


def _quietly(fn, url: str) -> None:
    """Clean up after a failure without hiding it."""
    try:
        fn(url)
    except Exception as exc:  # noqa: BLE001
        LOG.warning("could not delete %s (%s); delete it by hand", url, exc)


# --- one build at a time -------------------------------------------------------------------------------------------

# a lock whose holder cannot be asked (another host, a store) is taken over after this long: longer than any build
STALE_AFTER_SECONDS = 24 * 3600.0

# the locks this process holds, by (base, thread): one thread's steps nest in run_build; another thread of the
# process is another build and goes through the lock like another process
_HELD: dict[tuple[str, int], object] = {}


def version_age_seconds(version: str) -> float | None:
    """How long ago a version id was made; None for an id given by hand."""
    created = L.version_created(version)
    return None if created is None else (dt.datetime.now(dt.timezone.utc) - created).total_seconds()


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
    if age > STALE_AFTER_SECONDS:
        return f"held for {age / 3600:.1f} h, longer than any build ({STALE_AFTER_SECONDS / 3600:.0f} h)"
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


def stale_staging_reason(layout: L.BaseLayout, version: str, dead_version: str | None) -> str | None:
    """Why a staging folder is left over (only while holding the lock), or None while a step may take it on."""
    if version == dead_version:
        return "its build is gone"
    if not layout.staged_complete(version):
        return "its build stopped before the end of its pipeline"
    age = version_age_seconds(version)
    if age is not None and age > STALE_AFTER_SECONDS:
        return f"staged {age / 3600:.0f} h ago and never published"
    return None  # staged, waiting for its gate or publish step (the daily DAG runs them as separate tasks)


def sweep_leftovers(layout: L.BaseLayout, dead_version: str | None = None, keep: str | None = None) -> None:
    """Remove what killed builds left in a base: staging folders whose build is gone, ``.latest-<v>`` links of
    a swap cut short, ``dead_version`` (the version a build whose stale lock was taken over was building) when
    it reached ``versions/`` but latest never named it, and lease files of versions no longer there. Only while
    holding the lock: then no other build is in its pipeline or its swap. One list of leftovers and one way of
    removing them, shared with ``qabase gc`` (pipelines.release.retention): what cannot be removed is said in
    the log and left for the next sweep, never silently skipped."""
    from pipelines.release import retention  # retention builds on this module: imported when sweeping

    # a warning: a build was killed, somebody may want to know why
    retention.apply_plan(layout, retention.Plan(retention.plan_leftovers(layout, dead_version, keep), []),
                         level=logging.WARNING)
