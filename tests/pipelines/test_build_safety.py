"""The build's safety (issue 18, from a fault probe): an empty base never silently replaces a real one, two builds
never publish over each other, bad runners and unreadable inputs fail before anything is created, an interrupt
exits 130 with one line, and what killed builds leave behind is swept by the next one.

Small inputs and the fake models (tests/fakes/models.py); the kill and SIGINT cases run a real build in
a subprocess with a scorer that waits, and signal it once scoring has started.
"""

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from fakes.models import FakeModels, HashEmbedder, QuestionMarkIntent, RuleGec

from models.registry import ScoringModels
from models.config_check import load_config
from pipelines import build_base
from pipelines.build import publish_version, run_build, stage_version
from pipelines.release import leftovers
from pipelines.release.build_lock import hold_build_lock
from schemas.errors import BuildLockedError, GateRefused, InputError, PublishError, QabaseError
from schemas.layout import (
    LATEST,
    LATEST_FILE,
    LOCK_FILE,
    MANIFEST,
    QA_FILE,
    REPORT_FILES,
    STAGING_PREFIX,
    BaseLayout,
    new_version_id,
)

ROOT = Path(__file__).resolve().parents[2]
FAST = {"aggregation.cache": False, "models.cache": False, "quality.data_docs": False}


def _cfg(**extra):
    return load_config(None, {**FAST, **extra})


def _logs(path: Path, pairs) -> Path:
    path.write_text("".join(json.dumps({"question": q, "answer": a}) + "\n" for q, a in pairs), encoding="utf-8")
    return path


def _all_bad(path: Path) -> Path:
    """Every row rejected at read or validation: nothing can reach the base."""
    path.write_text('{not json\n[1, 2]\n{"question": "", "answer": "x"}\n{"answer": "no question"}\n',
                    encoding="utf-8")
    return path


def _staging(base: Path) -> list[str]:
    versions = base / "versions"
    return sorted(p.name for p in versions.iterdir() if p.name.startswith(STAGING_PREFIX)) if versions.is_dir() else []


def _error_lines(err: str) -> list[str]:
    return [ln for ln in err.splitlines() if ln.startswith("error:")]


@pytest.fixture
def warnings_logged():
    """The qabase loggers' warnings (build_base.main replaces the root logger's handlers, pytest's among them)."""
    import logging

    class Keep(logging.Handler):
        def __init__(self):
            super().__init__(logging.WARNING)
            self.messages: list[str] = []

        def emit(self, record):
            self.messages.append(record.getMessage())

    keep = Keep()
    logger = logging.getLogger("qabase")
    logger.addHandler(keep)
    yield keep.messages
    logger.removeHandler(keep)


@pytest.fixture
def with_fakes(monkeypatch):
    """build_base.main() builds with the fake models (main itself names none)."""
    from pipelines import build

    real = build.run_build
    monkeypatch.setattr(build, "run_build", lambda *a, **k: real(*a, **{"factory": FakeModels(), **k}))


@pytest.fixture
def published(shared_fake_base):
    """A real base (tiny.jsonl, built once per test run: tests/conftest.py), copied by each test that changes it."""
    return shared_fake_base


def _copy(published, tmp_path) -> tuple[Path, str]:
    base, res = published
    dst = tmp_path / "base"
    shutil.copytree(base, dst, symlinks=True)
    return dst, res.version


# --- an empty base ---------------------------------------------------------------------------------------------


@pytest.mark.slow  # several whole builds (fake models)
def test_an_all_bad_full_rebuild_never_replaces_a_real_base(published, tmp_path, with_fakes, capsys):
    base, live = _copy(published, tmp_path)
    bad = _all_bad(tmp_path / "bad.jsonl")
    with pytest.raises(GateRefused, match=r"0 entries.*--allow-empty.*quality\.allow_empty: true") as err:
        run_build([str(bad)], base, _cfg(), factory=FakeModels(), full_rebuild=True)
    assert "previous version" in str(err.value) and "latest is unchanged" in str(err.value)
    assert BaseLayout(base).current_version() == live and not _staging(base)
    assert sorted(p.name for p in (base / "versions").iterdir()) == [live]
    # the command line: exit 3 (the gate refused), one line that says how to opt in
    assert build_base.main(["--input", str(bad), "--output", str(base), "--full-rebuild", "-q"]) == 3
    lines = _error_lines(capsys.readouterr().err)
    assert len(lines) == 1 and "--allow-empty" in lines[0], lines
    # opted in: published, and the drift check says what was lost instead of being skipped
    assert build_base.main(["--input", str(bad), "--output", str(base), "--full-rebuild", "--allow-empty", "-q"]) == 0
    now = BaseLayout(base).current_version()
    assert now != live and pq.read_metadata(base / LATEST / QA_FILE).num_rows == 0
    quality = json.loads((base / LATEST / MANIFEST).read_text())["quality"]
    assert quality["drift"]["carried_over"] == 0.0
    assert {(w["suite"], w["column"]) for w in quality["warnings"]} >= {("drift", "carried_over"),
                                                                       ("base", "entries")}


@pytest.mark.slow  # several whole builds (fake models)
def test_a_new_base_from_input_with_no_good_row_is_refused_unless_allowed(tmp_path, with_fakes, capsys):
    base = tmp_path / "base"
    empty = ROOT / "tests" / "fixtures" / "empty.jsonl"
    assert build_base.main(["--input", str(empty), "--output", str(base), "-q"]) == 3  # the gate refused
    lines = _error_lines(capsys.readouterr().err)
    assert len(lines) == 1 and "0 entries" in lines[0] and "--allow-empty" in lines[0], lines
    assert BaseLayout(base).current_version() is None and not _staging(base)
    assert (base / "failed").is_dir()  # the refused version's report is kept, as for every refusal
    # opted in through the config file as well as the flag
    config = tmp_path / "allow.yaml"
    config.write_text("quality: {allow_empty: true, data_docs: false}\n", encoding="utf-8")
    assert build_base.main(["--input", str(empty), "--output", str(base), "--config", str(config), "-q"]) == 0
    assert pq.read_metadata(base / LATEST / QA_FILE).num_rows == 0


# --- two builds into one base -------------------------------------------------------------------------------------

_HOLD_LOCK = """
import sys, time
from pipelines.release.build_lock import hold_build_lock
from schemas.layout import BaseLayout
with hold_build_lock(BaseLayout(sys.argv[1]), "20260101T000000000Z"):
    print("held", flush=True)
    time.sleep(120)
"""


def _python(code: str, *args, **kw) -> subprocess.Popen:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), str(ROOT / "tests")]),
               OMP_WAIT_POLICY="PASSIVE")
    return subprocess.Popen([sys.executable, "-c", code, *map(str, args)], cwd=ROOT, env=env, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, **kw)


@pytest.mark.slow  # a kill test (a build or lock holder in a subprocess)
def test_a_second_build_is_refused_while_one_runs_then_takes_the_lock_over_once_it_is_killed(
        published, tmp_path, with_fakes, capsys, warnings_logged):
    base, live = _copy(published, tmp_path)
    holder = _python(_HOLD_LOCK, base)
    try:
        assert holder.stdout.readline().strip() == "held", holder.stderr.read()
        more = _logs(tmp_path / "more.jsonl", [("How tall is the Eiffel Tower?", "About 330 metres.")])
        with pytest.raises(BuildLockedError, match=rf"another build is running in {base} \(pid {holder.pid} on host "
                                                   rf"{socket.gethostname()} since 20\d\d-"):
            run_build([str(more)], base, _cfg(), factory=FakeModels())
        assert build_base.main(["--input", str(more), "--output", str(base), "-q"]) == 4  # busy: try later
        lines = _error_lines(capsys.readouterr().err)
        assert len(lines) == 1 and f"pid {holder.pid}" in lines[0], lines
        assert BaseLayout(base).current_version() == live and not _staging(base)
    finally:
        holder.kill()
        holder.wait()
    # killed: its lock file names a process that is gone; the next build takes over, with a warning
    assert json.loads((base / LOCK_FILE).read_text())["pid"] == holder.pid
    res = run_build([str(more)], base, _cfg(), factory=FakeModels())
    assert BaseLayout(base).current_version() == res.version != live
    assert any("took over the build lock" in m and f"pid {holder.pid}" in m for m in warnings_logged)
    assert not (base / LOCK_FILE).exists()  # released


@pytest.mark.slow  # several whole builds (fake models)
def test_a_version_staged_before_another_was_published_is_never_published_over_it(published, tmp_path):
    """The daily DAG's steps hold the lock one task at a time: a build that publishes between its stage and its
    publish would have its rows dropped by that publish. The publish refuses instead."""
    base, live = _copy(published, tmp_path)
    day2 = _logs(tmp_path / "day2.jsonl", [("How tall is the Eiffel Tower?", "About 330 metres.")])
    day3 = _logs(tmp_path / "day3.jsonl", [("How deep is the Mariana Trench?", "About 11 km.")])
    staged = stage_version([str(day2)], base, _cfg(), factory=FakeModels())
    other = run_build([str(day3)], base, _cfg(), factory=FakeModels(), gate=False, report=False)
    from pipelines.build import gate_version

    gate_version(base, staged.version)
    with pytest.raises(PublishError, match=rf"latest is now {other.version}, but version {staged.version} was built "
                                           rf"on {live}"):
        publish_version(base, staged.version)
    assert BaseLayout(base).current_version() == other.version
    assert not _staging(base) and not (base / "versions" / staged.version).exists()


def test_an_interrupt_between_the_rename_and_the_swap_leaves_no_orphan_version(published, tmp_path, monkeypatch):
    base, live = _copy(published, tmp_path)
    more = _logs(tmp_path / "more.jsonl", [("How tall is the Eiffel Tower?", "About 330 metres.")])

    def interrupted(self, version):
        raise KeyboardInterrupt

    monkeypatch.setattr(BaseLayout, "point_latest", interrupted)
    with pytest.raises(KeyboardInterrupt):
        run_build([str(more)], base, _cfg(), factory=FakeModels(), gate=False)
    monkeypatch.undo()
    assert BaseLayout(base).current_version() == live
    assert sorted(p.name for p in (base / "versions").iterdir()) == [live]
    assert not (base / LOCK_FILE).exists()


# --- runner names and unreadable inputs: one line, exit 2, nothing created ---------------------------------------


@pytest.mark.parametrize("runner", ["--runner=NoSuchRunner", "--runner=no.such.Runner"])
def test_an_unknown_runner_fails_before_anything_is_created(tmp_path, capsys, runner):
    base = tmp_path / "base"
    tiny = ROOT / "tests" / "fixtures" / "tiny.jsonl"
    assert build_base.main(["--input", str(tiny), "--output", str(base), runner]) == 2
    lines = _error_lines(capsys.readouterr().err)
    assert len(lines) == 1 and "--runner" in lines[0] and "Traceback" not in lines[0], lines
    assert not base.exists()
    # the build itself (the DAG's steps, the API) checks it too, before it creates anything
    with pytest.raises(QabaseError, match=r"--runner NoSuchRunner: Beam knows no such runner \(DirectRunner, "):
        run_build([str(tiny)], base, _cfg(), ["--runner=NoSuchRunner"], factory=FakeModels())
    assert not base.exists()


def test_short_runner_names_beam_accepts_pass_the_check():
    build_base.check_beam_args(["--runner=DirectRunner"])
    build_base.check_beam_args(["--runner", "direct"])  # Beam adds "runner" and ignores case
    build_base.check_beam_args(["--runner=DaskRunner"]) if _has_dask() else None


def _has_dask() -> bool:
    import importlib.util

    return importlib.util.find_spec("distributed") is not None


def test_an_input_that_cannot_be_read_is_one_line_before_anything_is_created(tmp_path, capsys, monkeypatch):
    """The first read of every input is its sha256, before anything is written: an OSError there (no permission,
    an I/O error) is an input error. Tests run as root, who reads any file: the read is made to fail as it does
    for a user without permission (the next test, for such a user, does it for real)."""
    from pipelines import build

    logs = _logs(tmp_path / "a.jsonl", [("What is the capital of France?", "Paris.")])
    real = build.sha256_file

    def no_permission(path):
        if Path(path) == logs:
            raise PermissionError(13, "Permission denied", str(path))
        return real(path)

    monkeypatch.setattr(build, "sha256_file", no_permission)
    base = tmp_path / "base"
    assert build_base.main(["--input", str(logs), "--output", str(base)]) == 2
    lines = _error_lines(capsys.readouterr().err)
    assert lines == [f"error: input: cannot read {logs} (Permission denied)"], lines
    assert not base.exists()
    with pytest.raises(InputError, match="cannot read"):
        run_build([str(logs)], base, _cfg(), factory=FakeModels())
    assert not base.exists()


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads files whatever their mode")
def test_an_input_without_read_permission_is_one_line(tmp_path, capsys):
    logs = _logs(tmp_path / "a.jsonl", [("What is the capital of France?", "Paris.")])
    logs.chmod(0)
    assert build_base.main(["--input", str(logs), "--output", str(tmp_path / "base")]) == 2
    assert _error_lines(capsys.readouterr().err) == [f"error: input: cannot read {logs} (Permission denied)"]
    assert not (tmp_path / "base").exists()


# --- interrupts -----------------------------------------------------------------------------------------------------


class _InterruptingGec(RuleGec):
    def score(self, texts):
        raise KeyboardInterrupt


@dataclass(frozen=True)
class _Interrupting(FakeModels):
    def scoring(self):
        return ScoringModels(_InterruptingGec(), _InterruptingGec(), QuestionMarkIntent(HashEmbedder()))


def test_an_interrupt_inside_the_pipeline_exits_130_with_one_line(published, tmp_path, monkeypatch, capsys):
    """Beam re-raises a KeyboardInterrupt of a worker as RuntimeError('KeyboardInterrupt [while running ...]')."""
    from pipelines import build

    base, live = _copy(published, tmp_path)
    real = build.run_build
    monkeypatch.setattr(build, "run_build", lambda *a, **k: real(*a, **{**k, "factory": _Interrupting()}))
    more = _logs(tmp_path / "more.jsonl", [("How tall is the Eiffel Tower?", "About 330 metres.")])
    assert build_base.main(["--input", str(more), "--output", str(base)]) == 130
    lines = _error_lines(capsys.readouterr().err)
    assert lines == ["error: interrupted; the published base is unchanged"], lines
    assert not _staging(base) and BaseLayout(base).current_version() == live and not (base / LOCK_FILE).exists()


# a build through build_base.main whose scorer waits (a marker file says it has started) until it is signalled
_WAITING_BUILD = """
import sys, time
from dataclasses import dataclass
from pathlib import Path
from fakes.models import FakeModels, HashEmbedder, QuestionMarkIntent, RuleGec
from models.registry import ScoringModels
import pipelines.build as build
import pipelines.build_base as build_base

MARK = Path(sys.argv[1])

class WaitingGec(RuleGec):
    def score(self, texts):
        MARK.write_text("scoring")
        for _ in range(600):
            time.sleep(0.1)
        return super().score(texts)

@dataclass(frozen=True)
class Waiting(FakeModels):
    def scoring(self):
        return ScoringModels(WaitingGec(), WaitingGec(), QuestionMarkIntent(HashEmbedder()))

real = build.run_build
build.run_build = lambda *a, **k: real(*a, **{**k, "factory": Waiting()})
sys.exit(build_base.main(sys.argv[2:]))
"""


def _start_waiting_build(tmp_path, base, inputs) -> tuple[subprocess.Popen, Path]:
    mark = tmp_path / "scoring.mark"
    proc = _python(_WAITING_BUILD, mark, "--input", inputs, "--output", base, "--config", _fast_config(tmp_path),
                   start_new_session=True)
    deadline = time.monotonic() + 120
    while not mark.exists():
        assert proc.poll() is None and time.monotonic() < deadline, proc.communicate()
        time.sleep(0.2)
    return proc, mark


def _fast_config(tmp_path) -> Path:
    path = tmp_path / "fast.yaml"
    path.write_text("aggregation: {cache: false}\nmodels: {cache: false}\nquality: {data_docs: false}\n")
    return path


@pytest.mark.slow  # a kill test (a build or lock holder in a subprocess)
def test_sigint_during_scoring_exits_130_with_one_line_and_no_staging(published, tmp_path):
    base, live = _copy(published, tmp_path)
    more = _logs(tmp_path / "more.jsonl", [("How tall is the Eiffel Tower?", "About 330 metres.")])
    proc, _ = _start_waiting_build(tmp_path, base, more)
    assert _staging(base)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, err[-3000:]
    assert _error_lines(err) == ["error: interrupted; the published base is unchanged"], err[-3000:]
    assert "Traceback" not in err
    assert not _staging(base) and BaseLayout(base).current_version() == live and not (base / LOCK_FILE).exists()


# --- what killed builds leave behind ------------------------------------------------------------------------------


@pytest.mark.slow  # a kill test (a build or lock holder in a subprocess)
def test_the_next_build_sweeps_what_a_killed_build_left(published, tmp_path, warnings_logged):
    """SIGKILL during scoring leaves its lock and staging folder; older kills left a staging folder with no draft,
    a `.latest-<v>` link and (killed between the rename and the swap) a complete version that latest never named.
    The next build, once it holds the lock, removes them all and publishes."""
    base, live = _copy(published, tmp_path)
    more = _logs(tmp_path / "more.jsonl", [("How tall is the Eiffel Tower?", "About 330 metres.")])
    proc, _ = _start_waiting_build(tmp_path, base, more)
    killed = _staging(base)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    assert killed and (base / LOCK_FILE).is_file()
    killed_version = json.loads((base / LOCK_FILE).read_text())["version"]
    assert killed == [f"{STAGING_PREFIX}{killed_version}"]
    # an older kill's leftovers: a half-written staging folder, and the link of a swap cut short
    (base / "versions" / f"{STAGING_PREFIX}20250101T000000000Z").mkdir()
    (base / "versions" / f"{STAGING_PREFIX}20250101T000000000Z" / "stats.json").write_text("{}")
    os.symlink(Path("versions") / live, base / f".{LATEST}-20250101T000000000Z")
    # the killed build had got as far as renaming its version into place (latest never named it)
    shutil.copytree(base / "versions" / live, base / "versions" / killed_version)

    res = run_build([str(more)], base, _cfg(), factory=FakeModels())
    assert BaseLayout(base).current_version() == res.version
    assert sorted(p.name for p in (base / "versions").iterdir()) == sorted([live, res.version])
    assert not list(base.glob(f".{LATEST}-*")) and not (base / LOCK_FILE).exists()
    messages = " ".join(warnings_logged)
    assert "took over the build lock" in messages and f"removed version {killed_version} (never published" in messages


@pytest.mark.slow  # several whole builds (fake models)
def test_a_staged_version_waiting_for_its_gate_is_kept_until_it_is_stale(published, tmp_path, monkeypatch):
    """The daily DAG stages in one task and gates in the next: another build in between keeps that staging folder
    (it has its draft) unless it is older than the lock timeout (then whoever takes the lock removes it)."""
    base, _ = _copy(published, tmp_path)
    day2 = _logs(tmp_path / "day2.jsonl", [("How tall is the Eiffel Tower?", "About 330 metres.")])
    staged = stage_version([str(day2)], base, _cfg(), factory=FakeModels())
    day3 = _logs(tmp_path / "day3.jsonl", [("How deep is the Mariana Trench?", "About 11 km.")])
    run_build([str(day3)], base, _cfg(), factory=FakeModels(), gate=False, report=False)
    assert _staging(base) == [f"{STAGING_PREFIX}{staged.version}"]
    monkeypatch.setattr(leftovers, "STALE_AFTER_SECONDS", 0.0)
    with hold_build_lock(BaseLayout(base), new_version_id()):  # what every build does first
        assert _staging(base) == []


def test_a_rerun_after_a_kill_after_the_swap_writes_the_missing_report(published, tmp_path, with_fakes, capsys):
    base, live = _copy(published, tmp_path)
    for name in REPORT_FILES:
        (base / "versions" / live / name).unlink()
    tiny = ROOT / "tests" / "fixtures" / "tiny.jsonl"
    assert build_base.main(["--input", str(tiny), "--output", str(base), "--config", str(_fast_config(tmp_path)),
                            "-q"]) == 0
    assert BaseLayout(base).current_version() == live  # nothing new: nothing published
    assert all((base / "versions" / live / name).is_file() for name in REPORT_FILES)
    assert not (base / LOCK_FILE).exists()


# --- a base on an object store: a best-effort lock object ----------------------------------------------------------

BASE = "mem://bucket/safety"


def _lock_object(pid: int, host: str, since: str, version: str = "20250101T000000000Z") -> bytes:
    return json.dumps({"pid": pid, "host": host, "since": since, "version": version, "token": "other"}).encode()


def test_a_store_base_is_locked_by_an_object_and_a_stale_one_is_taken_over(store, warnings_logged):
    tiny = str(ROOT / "tests" / "fixtures" / "tiny.jsonl")
    lock = f"{BASE}/{LOCK_FILE}"
    fresh = _lock_object(4242, "builder-7", time.strftime("%Y-%m-%dT%H:%M:%S+00:00", time.gmtime()))
    store.OBJECTS[lock] = fresh
    with pytest.raises(BuildLockedError, match=rf"another build is running in {BASE} \(pid 4242 on host builder-7 "):
        run_build([tiny], BASE, _cfg(), factory=FakeModels())
    assert store.OBJECTS[lock] == fresh and not [k for k in store.OBJECTS if k != lock]
    # a lock older than the timeout (its holder cannot be asked: another host) is taken over
    store.OBJECTS[lock] = _lock_object(4242, "builder-7", "2020-01-01T00:00:00+00:00")
    store.OBJECTS[f"{BASE}/versions/{STAGING_PREFIX}20250101T000000000Z/stats.json"] = b"{}"  # its leftovers
    res = run_build([tiny], BASE, _cfg(), factory=FakeModels(), gate=False, report=False)
    assert store.OBJECTS[f"{BASE}/{LATEST_FILE}"].decode().strip() == res.version
    assert lock not in store.OBJECTS and not [k for k in store.OBJECTS if STAGING_PREFIX in k]
    assert any("took over the build lock" in m for m in warnings_logged)


def test_a_store_lock_names_this_host_s_dead_pid_is_stale(store):
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    store.OBJECTS[f"{BASE}/{LOCK_FILE}"] = _lock_object(dead.pid, socket.gethostname(),
                                                        time.strftime("%Y-%m-%dT%H:%M:%S+00:00", time.gmtime()))
    res = run_build([str(ROOT / "tests" / "fixtures" / "tiny.jsonl")], BASE, _cfg(), factory=FakeModels(), gate=False,
                    report=False)
    assert store.OBJECTS[f"{BASE}/{LATEST_FILE}"].decode().strip() == res.version


def test_version_ids_are_what_the_sweep_dates_staging_by():
    assert leftovers.version_age_seconds(new_version_id()) < 5
    assert leftovers.version_age_seconds("my-version") is None


def test_ctrl_c_in_any_qabase_command_is_one_line_and_130(monkeypatch, capsys):
    from pipelines import cli

    def interrupted(argv):
        raise KeyboardInterrupt

    monkeypatch.setattr("pipelines.commands.report.main", interrupted)
    assert cli.main(["report", "--base", "x"]) == 130
    assert capsys.readouterr().err == "error: interrupted\n"
