"""A base on an object store (issue 17): every file through Beam FileSystems, published with a LATEST pointer.

``mem://`` is an in-process object store (tests/fakes/store.py: flat keys, no folders, no symlinks,
rename = copy + delete, every rename and write recorded). The builds use the small fake models.
"""

import hashlib
import json
import shutil
from pathlib import Path

from fakes import store as fake_store
import pyarrow.parquet as pq
import pytest
from fakes.models import FakeModels, HashEmbedder

from models.config_check import load_config
from pipelines.build import run_build
from schemas.errors import BaseIntegrityError, PublishError
from schemas.layout import LATEST, LATEST_FILE, MANIFEST, QA_FILE, REPORT_FILES, STAGING_PREFIX

BASE = "mem://bucket/base"
FAST = {"aggregation.cache": False, "models.cache": False, "quality.data_docs": False}


def _cfg(**extra):
    return load_config(None, {**FAST, **extra})


def _latest() -> str:
    return fake_store.OBJECTS[f"{BASE}/{LATEST_FILE}"].decode().strip()


def _inputs(fixtures):
    return [str(fixtures / "tiny.jsonl"), str(fixtures / "bad.jsonl"), str(fixtures / "pairs.csv")]


@pytest.fixture(scope="module")
def first_build(tmp_path_factory):
    """One build to the store (with Data Docs: nested files), and the store as it left it."""
    work = tmp_path_factory.mktemp("remote")
    fake_store.reset()
    mp = pytest.MonkeyPatch()
    mp.setenv("QABASE_CACHE_DIR", str(work / "cache"))
    mp.chdir(work)  # nothing may land in a local folder named like the URL ("mem:/...")
    try:
        res = run_build(_inputs(Path(__file__).resolve().parents[1] / "fixtures"), BASE, _cfg(**{"quality.data_docs": True}), factory=FakeModels())
    finally:
        mp.undo()
    snapshot = (dict(fake_store.OBJECTS), list(fake_store.WRITES), list(fake_store.RENAMES))
    fake_store.reset()
    return res, snapshot, work


@pytest.fixture
def built(first_build, store):
    """The store holding the first build's base (a test's own local mirror is empty)."""
    res, (objects, writes, renames), _ = first_build
    store.OBJECTS.update(objects)
    store.WRITES.extend(writes)
    store.RENAMES.extend(renames)
    return res


def test_a_build_to_a_store_publishes_its_prefix_then_latest(first_build, built, store):
    res, _, work = first_build
    v = res.version
    assert _latest() == v
    names = store.keys(BASE)
    assert not [n for n in names if STAGING_PREFIX in n or "beam-temp" in n], names  # no staging left
    assert {n.split("/")[0] for n in names} == {"versions", LATEST_FILE}
    assert not (work / "mem:").exists()
    version = f"{BASE}/versions/{v}"
    manifest = json.loads(store.OBJECTS[f"{version}/{MANIFEST}"])
    assert manifest["quality"]["critical_failures"] == [] and manifest["counts"]["published"] > 0
    # the quality gate and the checksums work the same: every file the manifest lists is in the store, as summed
    assert {"qa.parquet", "index.faiss", "state/questions.parquet", "state/state.json", "stats.json"} <= set(
        manifest["files"])
    for name, facts in manifest["files"].items():
        data = store.OBJECTS[f"{version}/{name}"]
        assert len(data) == facts["bytes"] and hashlib.sha256(data).hexdigest() == facts["sha256"], name
    assert {f"{version}/{n}" for n in REPORT_FILES} <= set(store.OBJECTS)
    assert any(n.startswith(f"versions/{v}/data_docs/") and n.endswith(".html") for n in names)  # nested files
    # LATEST last: after every file of the version (the reports are regenerable and follow, as on a local disk)
    writes = store.WRITES
    at = writes.index(f"{BASE}/{LATEST_FILE}")
    assert all(writes.index(f"{version}/{n}") < at for n in [*manifest["files"], MANIFEST])
    assert writes.index(f"{version}/{MANIFEST}") > max(writes.index(f"{version}/{n}") for n in manifest["files"])
    # no rename publishes anything (Beam's sinks rename their shards inside the staging prefix only)
    assert store.RENAMES and all(f"/{STAGING_PREFIX}{v}/" in d for _, d in store.RENAMES)
    # the result's folder is the local copy of the published version
    assert (res.path / QA_FILE).read_bytes() == store.OBJECTS[f"{version}/{QA_FILE}"]
    assert res.path.is_relative_to(work / "cache")


def test_an_incremental_build_continues_the_store_s_latest_from_another_machine(fixtures, built, store, tmp_path):
    first = built
    new = tmp_path / "day2.jsonl"
    new.write_text("".join(json.dumps({"question": "How tall is the Eiffel Tower?", "answer": a}) + "\n"
                           for a in ["About 330 metres.", "It is 330 m tall.", "About 330 metres."]), encoding="utf-8")
    # this machine's local mirror is empty: the previous version and its state come from the store
    inputs = _inputs(fixtures) + [str(new)]
    second = run_build(inputs, BASE, _cfg(), factory=FakeModels(), gate=False)  # its report: the rerun writes none
    inc = second.manifest["increment"]
    assert inc["mode"] == "incremental" and inc["base_version"] == first.version
    assert sorted(inc["skipped_files"]) == sorted(_inputs(fixtures)) and inc["new_files"] == [str(new)]
    assert second.manifest["counts"]["rows_read"] == first.manifest["counts"]["rows_read"] + 3
    qa = pq.read_table(second.path / QA_FILE).column("question").to_pylist()
    assert "How tall is the Eiffel Tower?" in qa and len(qa) == first.manifest["counts"]["published"] + 1
    assert _latest() == second.version != first.version
    assert second.path.is_relative_to(tmp_path / "cache")
    versions = {n.split("/")[1] for n in store.keys(BASE) if n.startswith("versions/")}
    assert versions == {first.version, second.version}
    # the same inputs again: nothing new, nothing published, LATEST stays
    writes = len(store.WRITES)
    again = run_build(inputs, BASE, _cfg(), factory=FakeModels())
    assert again.unchanged and again.version == second.version == _latest()
    assert len(store.WRITES) == writes


@pytest.mark.slow  # several whole builds (fake models)
def test_a_refused_or_failed_build_leaves_latest_and_no_staging(fixtures, built, store, monkeypatch):
    import pipelines.stages.write as write

    first = built
    before = set(store.OBJECTS)
    real = write.write_store

    def duplicate_qid(rows, staging, index_cfg):
        facts = real(rows, staging, index_cfg)
        path = f"{staging}/{QA_FILE}"
        table = pq.read_table(path)
        data = table.to_pylist()
        data[1]["qid"] = data[0]["qid"]
        pq.write_table(table.from_pylist(data, schema=table.schema), path)
        return facts

    monkeypatch.setattr(write, "write_store", duplicate_qid)
    with pytest.raises(PublishError, match=r"quality gate: .*critical expectation"):
        run_build([str(fixtures / "tiny.jsonl")], BASE, _cfg(), factory=FakeModels(), full_rebuild=True)
    assert _latest() == first.version
    failed = [k for k in set(store.OBJECTS) - before]
    assert failed and all(k.startswith(f"{BASE}/failed/") for k in failed), failed  # the report, nothing else
    assert any(k.endswith("/report.html") for k in failed)

    def broken(*a, **k):
        raise RuntimeError("disk full")

    monkeypatch.setattr(write, "write_store", broken)
    with pytest.raises(Exception, match="disk full"):
        run_build([str(fixtures / "tiny.jsonl")], BASE, _cfg(), factory=FakeModels(), full_rebuild=True)
    assert _latest() == first.version
    assert not [k for k in store.OBJECTS if STAGING_PREFIX in k]
    assert {n.split("/")[1] for n in store.keys(BASE) if n.startswith("versions/")} == {first.version}


def test_latest_naming_a_missing_version_is_one_error_line(fixtures, store, capsys):
    from pipelines.build_base import main

    store.OBJECTS[f"{BASE}/{LATEST_FILE}"] = b"20260101T000000000Z\n"
    with pytest.raises(BaseIntegrityError, match=r"LATEST names version 20260101T000000000Z, but .* has no manifest"):
        run_build([str(fixtures / "tiny.jsonl")], BASE, _cfg(), factory=FakeModels())
    assert main(["--input", str(fixtures / "tiny.jsonl"), "--output", BASE]) == 2
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: output: mem://bucket/base/LATEST names version"), lines
    from indexes.retrievers import QuestionRetriever

    with pytest.raises(BaseIntegrityError, match="names version 20260101T000000000Z"):
        QuestionRetriever(BASE, embedder=HashEmbedder())
    assert store.OBJECTS[f"{BASE}/{LATEST_FILE}"] == b"20260101T000000000Z\n"


def test_retrievers_load_a_remote_base_into_a_local_cache(built, store, tmp_path):
    from indexes.loading import load_base
    from indexes.retrievers import AnswerRetriever, QuestionRetriever

    res = built
    cache = tmp_path / "reader-cache"
    base = load_base(BASE, HashEmbedder(), cache_dir=cache)
    assert base.version == res.version and base.path.is_relative_to(cache)
    assert (base.path / QA_FILE).read_bytes() == store.OBJECTS[f"{BASE}/versions/{res.version}/{QA_FILE}"]
    # through the environment, as the retrievers and the query CLI are given a URL
    assert not (tmp_path / "cache").exists()
    hits = QuestionRetriever(BASE, embedder=HashEmbedder(), mode="dense").search("What is the capital of France?", k=3)
    assert hits and hits[0].question.lower().startswith("what is the capital of france")
    assert (tmp_path / "cache").is_dir()
    assert AnswerRetriever(BASE, embedder=HashEmbedder()).get("what is the capital of france").found
    # a file in the store that does not match the manifest is refused, never loaded
    key = f"{BASE}/versions/{res.version}/{QA_FILE}"
    store.OBJECTS[key] = store.OBJECTS[key][:-8] + b"corrupt!"
    with pytest.raises(BaseIntegrityError, match="does not match its checksum"):
        load_base(BASE, HashEmbedder(), cache_dir=tmp_path / "fresh")


@pytest.mark.slow  # several whole builds (fake models)
def test_local_bases_keep_the_symlink_and_a_latest_file_is_read_too(fixtures, tmp_base, tmp_path):
    from indexes.retrievers import QuestionRetriever

    res = run_build([str(fixtures / "tiny.jsonl")], tmp_base, _cfg(), factory=FakeModels(), gate=False, report=False)
    assert (tmp_base / LATEST).is_symlink() and (tmp_base / LATEST).resolve() == res.path.resolve()
    assert not (tmp_base / LATEST_FILE).is_file() or (tmp_base / LATEST_FILE).is_symlink()  # case-insensitive disks
    # a base copied from a store (e.g. gsutil rsync): LATEST file, no symlink
    copy = tmp_path / "copied"
    shutil.copytree(res.path, copy / "versions" / res.version)
    (copy / LATEST_FILE).write_text(res.version + "\n")
    hits = QuestionRetriever(copy, embedder=HashEmbedder(), mode="dense").search("What is the capital of France?", k=1)
    assert hits and "france" in hits[0].question.lower()
    # and a build continues it: incremental on the version LATEST names
    more = run_build([str(fixtures / "tiny.jsonl"), str(fixtures / "pairs.csv")], copy, _cfg(), factory=FakeModels(),
                     gate=False, report=False)
    assert more.manifest["increment"]["base_version"] == res.version
    assert (copy / LATEST).resolve() == more.path.resolve()
    assert (copy / LATEST_FILE).read_text().strip() == more.version  # the pointer file follows


def test_the_daily_steps_may_run_on_different_machines(fixtures, built, store, tmp_path, monkeypatch):
    """stage, gate, publish and report as the DAG's tasks, each with an empty local mirror: the staging prefix in
    the store carries the version from one step to the next."""
    from pipelines.build import gate_version, publish_version, report_version, stage_version

    def machine(name):
        monkeypatch.setenv("QABASE_CACHE_DIR", str(tmp_path / name))

    new = tmp_path / "day2.jsonl"
    new.write_text(json.dumps({"question": "How tall is the Eiffel Tower?", "answer": "About 330 metres."}) + "\n",
                   encoding="utf-8")
    machine("a")
    staged = stage_version(_inputs(fixtures) + [str(new)], BASE, _cfg(), factory=FakeModels())
    staging = f"{BASE}/versions/{STAGING_PREFIX}{staged.version}"
    held = store.keys(staging)
    assert "build.json" in held and "state/state.json" in held and MANIFEST not in held
    assert store.OBJECTS[f"{staging}/state/state.json"] == (staged.path / "state" / "state.json").read_bytes()
    machine("b")
    manifest = gate_version(BASE, staged.version)
    held = store.keys(staging)
    assert MANIFEST in held and "build.json" not in held and _latest() == built.version
    remote = json.loads(store.OBJECTS[f"{staging}/{MANIFEST}"])
    assert remote["quality"] == manifest["quality"] and QA_FILE in remote["files"]
    machine("c")
    final = publish_version(BASE, staged.version)
    assert _latest() == staged.version and not store.keys(staging)
    assert final.is_relative_to(tmp_path / "c") and (final / MANIFEST).is_file()  # downloaded: c staged nothing
    machine("d")
    assert report_version(BASE, staged.version) == f"{BASE}/versions/{staged.version}/report.html"
    assert b"Eiffel" in store.OBJECTS[f"{BASE}/versions/{staged.version}/report.html"]


def test_retention_and_gc_on_a_store(built, store, capsys):
    """A base on a store: older versions (every object under their prefix) and old refused reports go, LATEST's
    version and the newest stay; a dry run deletes no object."""
    import json as _json

    from pipelines import cli

    live = built.version
    prefix = f"{BASE}/versions/{live}/"
    old = ["20250101T000000000Z", "20250102T000000000Z"]
    for i, version in enumerate(old):
        for key, data in list(store.OBJECTS.items()):
            if key.startswith(prefix):
                if key.endswith("/manifest.json"):
                    manifest = _json.loads(data)
                    manifest.update(version=version, created=f"2025-01-0{i + 1}T00:00:00+00:00")
                    data = _json.dumps(manifest).encode()
                store.OBJECTS[f"{BASE}/versions/{version}/{key[len(prefix):]}"] = data
        store.OBJECTS[f"{BASE}/failed/{version}/report.html"] = b"<html></html>"
    before = dict(store.OBJECTS)
    assert cli.main(["gc", "--base", BASE, "--keep", "2", "--keep-failed", "1", "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert store.OBJECTS == before
    assert f"would remove  version        {old[0]}" in out and f"would remove  failed report  {old[0]}" in out
    assert cli.main(["gc", "--base", BASE, "--keep", "2", "--keep-failed", "1"]) == 0
    versions = {k[len(f"{BASE}/versions/"):].split("/", 1)[0] for k in store.OBJECTS if k.startswith(f"{BASE}/versions/")}
    assert versions == {live, old[1]} and _latest() == live
    assert not [k for k in store.OBJECTS if f"/{old[0]}/" in k]
    assert f"{BASE}/failed/{old[1]}/report.html" in store.OBJECTS
