"""Retention and ``qabase gc`` (issue 18): old versions and what killed builds left go; ``latest``, the versions a
service serves and the newest N stay; a dry run removes nothing; a running build is never raced.

One real base (tiny.jsonl, the fake models); older versions are copies of its version with earlier ids and
``created`` times, so every test runs on a realistic layout without building it many times.
"""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from fakes.models import FakeModels

from indexes import loading
from models.config_check import load_config
from pipelines import cli
from pipelines.build import run_build
from pipelines.release import retention
from schemas.config import RetentionConfig
from schemas.errors import ConfigError
from schemas.layout import LATEST, LOCK_FILE, MANIFEST, READERS_DIR, STAGING_PREFIX, BaseLayout
from schemas.leases import VersionInUse, exclusive_for_delete, take_reader_lease

ROOT = Path(__file__).resolve().parents[3]
FAST = {"aggregation.cache": False, "models.cache": False, "quality.data_docs": False}
OLD = [f"2025010{d}T000000000Z" for d in range(1, 6)]  # five older versions, oldest first


@pytest.fixture
def built(shared_fake_base):
    """The base of tiny.jsonl built once per test run (tests/conftest.py); tests change copies of it."""
    base, res = shared_fake_base
    return base, res.version


def _with_history(built, tmp_path) -> tuple[Path, str]:
    """A copy of the base with OLD versions beside its live one (each a real version folder, created earlier)."""
    base, live = built
    dst = tmp_path / "base"
    shutil.copytree(base, dst, symlinks=True)
    for i, version in enumerate(OLD):
        folder = dst / "versions" / version
        shutil.copytree(dst / "versions" / live, folder)
        manifest = json.loads((folder / MANIFEST).read_text(encoding="utf-8"))
        manifest.update(version=version, created=f"2025-01-0{i + 1}T00:00:00+00:00")
        (folder / MANIFEST).write_text(json.dumps(manifest), encoding="utf-8")
    return dst, live


def _versions(base: Path) -> list[str]:
    return sorted(p.name for p in (base / "versions").iterdir())


def test_a_dry_run_lists_what_would_go_and_removes_nothing(built, tmp_path, capsys):
    base, live = _with_history(built, tmp_path)
    before = _versions(base)
    assert cli.main(["gc", "--base", str(base), "--keep", "3", "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert _versions(base) == before
    for version in OLD[:3]:  # the oldest three of six: beyond the 3 newest
        assert "would remove  version" in out and version in out
    assert "latest" in out and live in out
    assert "3 item(s) would be removed" in out and "nothing was deleted (--dry-run)" in out


def test_gc_keeps_the_newest_n_latest_and_served_versions(built, tmp_path, capsys):
    """latest named back at an old version (a rollback) and a version a service process serves stay, beyond N."""
    base, live = _with_history(built, tmp_path)
    BaseLayout(base).point_latest(OLD[0])
    server = subprocess.Popen(  # another process serving OLD[1]: its reader lease, held until it is stopped
        [sys.executable, "-c", "import sys, time; from schemas.leases import take_reader_lease; "
         f"lease = take_reader_lease(sys.argv[1], {OLD[1]!r}); assert lease.held; print('ok', flush=True); "
         "time.sleep(60)", str(base)], cwd=ROOT, stdout=subprocess.PIPE, text=True)
    try:
        assert server.stdout.readline().strip() == "ok"
        assert cli.main(["gc", "--base", str(base), "--keep", "2"]) == 0
        out = capsys.readouterr().out
        assert _versions(base) == sorted([OLD[0], OLD[1], OLD[4], live])
        assert "served (a service holds its reader lease)" in out and "removed" in out
    finally:
        server.kill()
        server.wait()
    assert retention.gc(str(base), keep=2).remove[0].name == OLD[1]  # the lease ended with its process
    assert _versions(base) == sorted([OLD[0], OLD[4], live])
    assert not (base / READERS_DIR / f"{OLD[1]}.lock").exists()


def test_a_lease_and_a_deletion_exclude_each_other(built, tmp_path):
    base, live = _with_history(built, tmp_path)
    layout = BaseLayout(base)
    lease = take_reader_lease(base, OLD[2])
    with pytest.raises(VersionInUse, match="being served"):
        with exclusive_for_delete(layout, OLD[2]):
            pass
    lease.release()
    with exclusive_for_delete(layout, OLD[2]):
        with pytest.raises(VersionInUse, match="being deleted"):
            take_reader_lease(base, OLD[2])


def test_keep_zero_keeps_every_version_but_still_sweeps_leftovers(built, tmp_path, capsys):
    base, live = _with_history(built, tmp_path)
    (base / "versions" / f"{STAGING_PREFIX}20250101T000000000Z").mkdir()  # a killed build's half-written staging
    os.symlink(Path("versions") / live, base / f".{LATEST}-20250102T000000000Z")  # a swap cut short
    (base / READERS_DIR).mkdir(exist_ok=True)
    (base / READERS_DIR / "19990101T000000000Z.lock").write_text("")  # a lease file of a version long gone
    assert cli.main(["gc", "--base", str(base), "--keep", "0"]) == 0
    out = capsys.readouterr().out
    assert _versions(base) == sorted(OLD + [live])
    assert not list(base.glob(f".{LATEST}-*")) and not (base / READERS_DIR / "19990101T000000000Z.lock").exists()
    assert "its build stopped before the end of its pipeline" in out and "left by a swap of latest cut short" in out


def test_gc_refuses_while_a_build_holds_the_lock(built, tmp_path, capsys):
    base, _ = _with_history(built, tmp_path)
    holder = subprocess.Popen(
        [sys.executable, "-c", "import fcntl, os, sys, time; fd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT); "
         "fcntl.flock(fd, fcntl.LOCK_EX); os.write(fd, b'{\"pid\": %d, \"host\": \"h\", \"since\": \"now\"}' % "
         "os.getpid()); print('ok', flush=True); time.sleep(60)", str(base / LOCK_FILE)],
        stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "ok"
        before = _versions(base)
        assert cli.main(["gc", "--base", str(base), "--keep", "1"]) == 4  # busy, as a build's exit
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and err[0].startswith("error: another build is running in")
        assert _versions(base) == before
    finally:
        holder.kill()
        holder.wait()


def test_a_publish_applies_the_config_s_retention(built, tmp_path):
    base, live = _with_history(built, tmp_path)
    more = tmp_path / "more.jsonl"
    more.write_text(json.dumps({"question": "How tall is the Eiffel Tower?", "answer": "About 330 metres."}) + "\n",
                    encoding="utf-8")
    res = run_build([str(more)], base, load_config(None, {**FAST, "retention.keep_versions": 2}),
                    factory=FakeModels(), gate=False, report=False)
    assert _versions(base) == sorted([live, res.version])  # the new one and the one before it
    assert BaseLayout(base).current_version() == res.version


def test_old_failed_reports_go_beyond_keep_failed(built, tmp_path, capsys):
    base, _ = _with_history(built, tmp_path)
    for version in OLD:
        (base / "failed" / version).mkdir(parents=True)
        (base / "failed" / version / "report.html").write_text("<html></html>")
    assert cli.main(["gc", "--base", str(base), "--keep", "0", "--keep-failed", "2"]) == 0
    assert sorted(p.name for p in (base / "failed").iterdir()) == OLD[-2:]


def test_gc_of_a_folder_that_is_no_base_is_one_line(tmp_path, capsys):
    assert cli.main(["gc", "--base", str(tmp_path / "nowhere")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [f"error: base: {tmp_path / 'nowhere'} is not a qabase base directory (no latest, no versions/)"]
    assert cli.main(["gc", "--base", str(tmp_path), "--keep", "-1"]) == 2


def test_retention_is_config_that_changes_no_build():
    a, b = load_config(None, {}), load_config(None, {"retention.keep_versions": 3})
    assert a.config_hash() == b.config_hash() and b.retention == RetentionConfig(3, 10)
    with pytest.raises(ConfigError, match="retention.keep_failed must be 0"):
        load_config(None, {"retention.keep_failed": -2})


def test_the_policy_defaults_to_the_latest_version_s_config(built, tmp_path):
    base, live = _with_history(built, tmp_path)
    manifest_path = base / "versions" / live / MANIFEST
    manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
    manifest["config"]["retention"] = {"keep_versions": 4, "keep_failed": 1}
    manifest_path.write_text(json.dumps(manifest), encoding="utf-8")
    plan = retention.gc(str(base), dry_run=True)
    assert sorted(i.name for i in plan.remove) == OLD[:2]


def test_a_serving_live_base_holds_its_version_until_it_serves_the_next(built, tmp_path, monkeypatch):
    """qabase serve / the MCP server (LiveBase) lease the version they serve: gc keeps it while they serve it,
    and they give it back once latest has moved and the next version serves."""
    import models.registry
    from fakes.models import HashEmbedder

    from indexes.serve import LiveBase

    monkeypatch.setattr(models.registry, "load_embedder", lambda spec, **kw: HashEmbedder())
    base, live = _with_history(built, tmp_path)
    layout = BaseLayout(base)
    layout.point_latest(OLD[0])
    served = LiveBase(base)
    assert served.current()[2] == OLD[0]
    layout.point_latest(live)  # a rollback undone: OLD[0] is neither latest nor among the newest now
    assert [i.why for i in retention.gc(str(base), keep=1, dry_run=True).keep if i.name == OLD[0]] == [
        "served (a service holds its reader lease)"]
    assert served.current()[2] == live  # the next request serves latest, and gives OLD[0] back
    # and its memory: the process's cache of loaded bases no longer holds it (a daily publish would pile up)
    held = {Path(k[0]).resolve() for k in loading._CACHE}
    assert (base / "versions" / live).resolve() in held and (base / "versions" / OLD[0]).resolve() not in held
    plan = retention.gc(str(base), keep=1)
    assert sorted(i.name for i in plan.remove) == OLD and _versions(base) == [live]
    assert served.current()[2] == live


def _dead_pid() -> int:
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc.pid


def test_a_dry_run_leaves_a_dead_build_s_record_for_the_gc_that_follows(built, tmp_path, capsys):
    """A killed build's record names the version it had moved into place; a dry run shows it once (not also as
    kept) and puts the record back, so the real gc still removes it."""
    import socket

    base, live = _with_history(built, tmp_path)
    dead = OLD[4]  # as if a killed build had renamed it into versions/ before the swap
    (base / LOCK_FILE).write_text(json.dumps({"pid": _dead_pid(), "host": socket.gethostname(),
                                              "since": "2025-01-05T00:00:00", "version": dead}))  # no offset
    plan = retention.gc(str(base), keep=10, dry_run=True)
    assert [(i.name, i.why) for i in plan.remove] == [(dead, "never published: its build stopped before latest named it")]
    assert dead not in [i.name for i in plan.keep]
    assert json.loads((base / LOCK_FILE).read_text())["version"] == dead and dead in _versions(base)
    assert [i.name for i in retention.gc(str(base), keep=10).remove] == [dead]
    assert dead not in _versions(base) and not (base / LOCK_FILE).exists()


def test_another_thread_of_the_process_is_another_build(built, tmp_path):
    """Nested holds in one thread are one hold; a second thread must wait its turn like another process."""
    import threading

    from pipelines.release.build_lock import hold_build_lock
    from schemas.errors import BuildLockedError

    base, _ = _with_history(built, tmp_path)
    layout, seen = BaseLayout(base), []

    def other():
        try:
            with hold_build_lock(layout, "other", sweep=False):
                seen.append("got it")
        except BuildLockedError as exc:
            seen.append(str(exc))

    with hold_build_lock(layout, "mine", sweep=False):
        with hold_build_lock(layout, "mine", sweep=False):  # nested: the same hold
            thread = threading.Thread(target=other)
            thread.start()
            thread.join()
    assert len(seen) == 1 and seen[0].startswith("another build is running in")
    assert "delete" not in seen[0]  # the kernel says its holder is alive: nothing to delete by hand


def test_a_service_given_the_latest_link_leases_the_real_version_and_follows_latest(built, tmp_path, monkeypatch):
    import models.registry
    from fakes.models import HashEmbedder

    from indexes.serve import LiveBase

    monkeypatch.setattr(models.registry, "load_embedder", lambda spec, **kw: HashEmbedder())
    base, live = _with_history(built, tmp_path)
    served = LiveBase(base / LATEST)
    assert served.current()[2] == live and (base / READERS_DIR / f"{live}.lock").is_file()
    assert not list((base / "versions" / live).glob(".readers"))  # never inside a published version
    BaseLayout(base).point_latest(OLD[3])
    assert served.current()[2] == OLD[3]  # followed latest
    assert [i.why for i in retention.gc(str(base), keep=1, dry_run=True).keep if i.name == OLD[3]] == ["latest"]
    # the version served before gave its lease back: nothing is kept for being served any more
    assert not any(i.why.startswith("served") for i in retention.gc(str(base), keep=1, dry_run=True).keep)
