"""What killed builds left in a base, and the one way of removing items from a base.

A killed build leaves a staging folder, a ``.latest-<v>`` link of a swap cut short, a version that reached
``versions/`` but that ``latest`` never named, or a reader lease of a version no longer there. Whoever takes the
build lock (pipelines.release.build_lock) sweeps them (:func:`sweep_leftovers`); ``qabase gc``
(pipelines.release.retention) lists the same leftovers next to the versions its policy retires and removes
both through :func:`apply_plan`. The order of dependence is one way: retention > build_lock > leftovers >
publish (a staging folder goes as a failed publish removes it).
"""

from __future__ import annotations

import datetime as dt
import logging
import shutil
from dataclasses import dataclass
from pathlib import Path

from pipelines.release.publish import Publisher
from schemas import layout as L
from schemas.errors import QabaseError
from schemas.layout import BaseLayout
from schemas.leases import VersionInUse, drop_reader_lock, exclusive_for_delete

LOG = logging.getLogger("qabase.retention")  # the sweep's and gc's removals are said under one name, as before

# a build never takes longer: a staging folder older than this was left by a build that is gone, and a build
# lock whose holder cannot be asked (another host, a store) is taken over after it (pipelines.release.build_lock)
STALE_AFTER_SECONDS = 24 * 3600.0


def version_age_seconds(version: str) -> float | None:
    """How long ago a version id was made; None for an id given by hand."""
    created = L.version_created(version)
    return None if created is None else (dt.datetime.now(dt.timezone.utc) - created).total_seconds()


def stale_staging_reason(layout: BaseLayout, version: str, dead_version: str | None) -> str | None:
    """Why a staging folder is left over (only while holding the lock), or None while a step may take it on."""
    if version == dead_version:
        return "its build is gone"
    if not layout.staged_complete(version):
        return "its build stopped before the end of its pipeline"
    age = version_age_seconds(version)
    if age is not None and age > STALE_AFTER_SECONDS:
        return f"staged {age / 3600:.0f} h ago and never published"
    return None  # staged, waiting for its gate or publish step (the daily DAG runs them as separate tasks)


@dataclass(frozen=True)
class Item:
    """One thing in a base that retention keeps or removes, and why."""

    kind: str  # version, failed report, staging, latest link, reader lease
    name: str
    why: str
    size: int | None  # bytes on the local disk; None where not measured (a store)


@dataclass(frozen=True)
class Plan:
    remove: list[Item]
    keep: list[Item]

    @property
    def freed(self) -> int:
        return sum(i.size or 0 for i in self.remove)


def local_size(path: Path) -> int | None:
    """Bytes a file, link or folder takes on the local disk; None when nothing is there."""
    if path.is_symlink() or path.is_file():
        return path.lstat().st_size
    if not path.is_dir():
        return None
    return sum(p.lstat().st_size for p in path.rglob("*") if not p.is_dir() or p.is_symlink())


def version_size(layout: BaseLayout, version: str) -> int | None:
    """A published version's bytes on the local disk; None on a store (not measured)."""
    return None if layout.remote else local_size(layout.version(version))


def plan_leftovers(layout: BaseLayout, dead_version: str | None, keep: str | None) -> list[Item]:
    """What killed builds left, and stale lease files: the one list both the sweep of whoever takes the build
    lock (:func:`sweep_leftovers`) and ``qabase gc`` (pipelines.release.retention) remove. Only meaningful while holding
    the build lock."""
    items = [Item("latest link", link.name, "left by a swap of latest cut short", 0) for link in layout.latest_links()]
    for version in layout.staged_versions():
        why = None if version == keep else stale_staging_reason(layout, version, dead_version)
        if why:
            items.append(Item("staging", version, why,
                              None if layout.remote else local_size(layout.staging(version))))
    if dead_version and dead_version not in (keep, layout.current_version()) \
            and layout.holds_version(dead_version):
        items.append(Item("version", dead_version, "never published: its build stopped before latest named it",
                          version_size(layout, dead_version)))
    readers = layout.base / L.READERS_DIR
    if readers.is_dir():  # a base on a store: the leases of its local mirror
        present = set(layout.published_versions())
        items += [Item("reader lease", p.name, "its version is gone", 0) for p in sorted(readers.glob("*.lock"))
                  if p.name[:-len(".lock")] not in present]
    return items


def _rmtree(path: Path) -> None:
    """Remove a folder, saying so when it cannot (never counted as removed then)."""
    if path.exists():
        shutil.rmtree(path)


def _remove(layout: BaseLayout, item: Item) -> None:
    if item.kind == "version":
        with exclusive_for_delete(layout, item.name):  # VersionInUse: a service leased it since the plan
            if layout.remote:
                L.delete_tree(layout.version_url(item.name))
            _rmtree(layout.version(item.name))  # the folder, or a store's local copy
            drop_reader_lock(layout, item.name)
    elif item.kind == "failed report":
        if layout.remote:
            L.delete_tree(layout.failed_url(item.name))
        _rmtree(layout.failed(item.name))
    elif item.kind == "staging":
        Publisher(layout.url or layout.base, item.name).abort()
    elif item.kind == "latest link":
        (layout.base / item.name).unlink(missing_ok=True)
    elif item.kind == "reader lease":
        version = item.name[:-len(".lock")]
        with exclusive_for_delete(layout, version):
            drop_reader_lock(layout, version)
    else:
        raise ValueError(f"unknown kind of item {item.kind!r}")


def apply_plan(layout: BaseLayout, plan: Plan, level: int = logging.INFO) -> list[Item]:
    """Remove what the plan says (under the build lock); returns what was removed, each said in the log at
    ``level``. A version a service leased since the plan stays, said in the log."""
    removed = []
    for item in plan.remove:
        try:
            _remove(layout, item)
        except VersionInUse as exc:
            LOG.warning("kept version %s: %s", item.name, exc)
            continue
        except (OSError, QabaseError) as exc:  # one item that cannot go stops none of the others
            LOG.warning("could not remove %s %s (%s); remove it by hand", item.kind, item.name, exc)
            continue
        LOG.log(level, "removed %s %s (%s)", item.kind, item.name, item.why)
        removed.append(item)
    return removed



def sweep_leftovers(layout: BaseLayout, dead_version: str | None = None, keep: str | None = None) -> None:
    """Remove what killed builds left in a base: staging folders whose build is gone, ``.latest-<v>`` links of
    a swap cut short, ``dead_version`` (the version a build whose stale lock was taken over was building) when
    it reached ``versions/`` but latest never named it, and lease files of versions no longer there. Only while
    holding the lock (pipelines.release.build_lock calls it on taking the lock): then no other build is in its
    pipeline or its swap. One list of leftovers and one way of removing them, shared with ``qabase gc``: what
    cannot be removed is said in the log and left for the next sweep, never silently skipped."""
    # a warning: a build was killed, somebody may want to know why
    apply_plan(layout, Plan(plan_leftovers(layout, dead_version, keep), []), level=logging.WARNING)
