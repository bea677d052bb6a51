"""Retention: which versions and leftovers of a base may go, and :func:`gc`, which removes them (``qabase gc``,
its command line: pipelines.commands.gc).

Kept, always: the version ``latest`` names, every version a service is serving (its reader lease,
schemas.leases), and the newest ``keep`` published versions (by when they were built). Removed: older published
versions, reports of refused versions (``failed/``) beyond the newest ``keep_failed``, staging folders whose
build is gone, ``.latest-<v>`` links a cut-short swap left, and lease files of versions no longer there.
``keep`` 0 keeps every version (leftovers are still removed).

Everything happens under the base's build lock (pipelines.release.build_lock.hold_build_lock): while a build runs,
gc refuses with one line (exit 4, as a build does), and a build never sees a half-removed version. A publish
applies the same policy right after it moves ``latest`` (``retention.keep_versions`` / ``keep_failed`` of its
config).
"""

from __future__ import annotations

import logging
import sys
from pathlib import Path

from pipelines.release.build_lock import hold_build_lock
from pipelines.release.leftovers import Item, Plan, apply_plan, local_size, plan_leftovers, version_size
from schemas import layout as L
from schemas.config import RetentionConfig
from schemas.errors import QabaseError
from schemas.layout import BaseLayout
from schemas.leases import version_served

LOG = logging.getLogger("qabase.retention")

GC_VERSION = "gc"  # the build lock's holder record names this instead of a version


def _built_at(layout: BaseLayout, version: str) -> str:
    """When a version was built (its manifest's ``created``); the id's own time, or '' when neither tells."""
    try:
        created = layout.read_manifest(version).get("created")
    except (OSError, QabaseError):
        created = None
    if isinstance(created, str) and created:
        return created
    stamp = L.version_created(version)
    return stamp.isoformat(timespec="seconds") if stamp else ""


def plan_versions(layout: BaseLayout, keep_versions: int, keep: str | None = None) -> tuple[list[Item], list[Item]]:
    """(to remove, kept) among the published versions."""
    latest = layout.current_version()
    newest_first = sorted(layout.published_versions(), key=lambda v: (_built_at(layout, v), v), reverse=True)
    remove, kept = [], []
    for rank, version in enumerate(newest_first):
        if version == latest:
            why = "latest"
        elif version == keep:
            why = "being published"
        elif keep_versions == 0 or rank < keep_versions:
            why = f"among the {keep_versions} newest" if keep_versions else "retention keeps every version"
        elif version_served(layout, version):
            why = "served (a service holds its reader lease)"
        else:
            remove.append(Item("version", version, f"older than the {keep_versions} newest",
                               version_size(layout, version)))
            continue
        kept.append(Item("version", version, why, version_size(layout, version)))
    return remove, kept


def plan_failed(layout: BaseLayout, keep_failed: int) -> list[Item]:
    if keep_failed == 0:
        return []
    old = sorted(layout.failed_versions(), reverse=True)[keep_failed:]
    return [Item("failed report", v, f"older than the {keep_failed} newest refused versions' reports",
                 None if layout.remote else local_size(layout.failed(v))) for v in old]


def make_plan(layout: BaseLayout, policy: RetentionConfig, dead_version: str | None = None,
              keep: str | None = None) -> Plan:
    old, kept = plan_versions(layout, policy.keep_versions, keep)
    leftovers = plan_leftovers(layout, dead_version, keep)
    seen = {i.name for i in leftovers if i.kind == "version"}  # a dead build's version: removed, whatever its age
    return Plan(leftovers + [i for i in old if i.name not in seen] + plan_failed(layout, policy.keep_failed),
                [i for i in kept if i.name not in seen])


def apply_retention(output: str | Path, policy: RetentionConfig, published: str) -> list[Item]:
    """The policy after a publish of ``published`` (called under its build lock). Never fails the publish: a
    version that cannot be removed is a warning."""
    layout = BaseLayout(output)
    try:
        return apply_plan(layout, make_plan(layout, policy, keep=published))
    except (OSError, QabaseError) as exc:
        LOG.warning("retention: %s; the published version is fine, run qabase gc --base %s later", exc, output)
        return []


def retention_policy(manifest: dict) -> RetentionConfig:
    """The retention policy a published version's config asked for (the defaults where it says nothing, or
    nothing readable: a base built before retention)."""
    section = (manifest.get("config") or {}).get("retention") or {}
    base = RetentionConfig()
    try:
        return RetentionConfig(int(section.get("keep_versions", base.keep_versions)),
                               int(section.get("keep_failed", base.keep_failed)))
    except (AttributeError, TypeError, ValueError):
        return base


def _policy(layout: BaseLayout, keep: int | None, keep_failed: int | None) -> RetentionConfig:
    """The command line's numbers, else the latest version's config, else the defaults."""
    base = RetentionConfig()
    latest = layout.current_version()
    if latest:
        try:
            base = retention_policy(layout.read_manifest(latest))
        except (OSError, QabaseError):
            pass
    return RetentionConfig(base.keep_versions if keep is None else keep,
                           base.keep_failed if keep_failed is None else keep_failed)


def gc(base: str, keep: int | None = None, keep_failed: int | None = None, dry_run: bool = False) -> Plan:
    """Plan (and unless ``dry_run`` apply) retention and the leftovers sweep of a base, under its build lock.
    Returns the plan, its ``remove`` narrowed to what was removed."""
    layout = BaseLayout(base)
    if not layout.remote and not (layout.base.is_dir() and (layout.latest.exists() or layout.versions.is_dir())):
        raise QabaseError(f"base: {base} is not a qabase base directory (no latest, no versions/)")
    for value, flag in ((keep, "--keep"), (keep_failed, "--keep-failed")):
        if value is not None and value < 0:
            raise QabaseError(f"usage: {flag} must be 0 (keep all) or positive, got {value}")
    policy = _policy(layout, keep, keep_failed)
    with hold_build_lock(layout, GC_VERSION, sweep=False, look_only=dry_run) as lock:
        plan = make_plan(layout, policy, dead_version=(getattr(lock, "gone", None) or {}).get("version"))
        if dry_run:
            return plan
        return Plan(apply_plan(layout, plan), plan.keep)


if __name__ == "__main__":  # the command moved to pipelines/commands/gc.py; this module only does the work
    sys.exit(print("error: run `qabase gc` (python -m pipelines.cli gc ...)", file=sys.stderr) or 2)
