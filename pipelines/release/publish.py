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

One build at a time: each step that writes into a base holds its build lock (pipelines.release.build_lock),
and a publish refuses a version built on another version than the one ``latest`` names by then (its counts would
drop what that version added).
"""

from __future__ import annotations

import json
import logging
import os
import shutil
from pathlib import Path

from schemas import layout as L
from schemas import signing
from schemas.errors import PublishError, QabaseError
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
        # signed when QABASE_MANIFEST_KEY is set (schemas.signing): the signature vouches for every file's sha256
        manifest = signing.sign(dict(manifest, files=files))
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
