"""One build, end to end: inputs -> Beam graph -> checks -> manifest -> quality gate -> atomic publish.

:func:`run_build` is what the CLI and the tests call; the Airflow DAG calls its four steps one task
each (pipelines.scheduled): :func:`stage_version`, :func:`gate_version`, :func:`publish_version`, and
the report.

``output`` is a local folder or a URL of any Beam filesystem (``gs://``, ``s3://``, ``hdfs://``): the graph
then writes into the staging prefix in the store, and everything after it runs on a local working copy
(pipelines.release.publish; the local mirror and its caches: schemas.layout).

Each step that writes into the base holds its build lock (pipelines.release.build_lock.hold_build_lock; nested
in :func:`run_build`, one hold from the stage to the report); a build takes it once it knows it has something
to build (a rerun with nothing new writes nothing, not even the lock), and then sweeps what killed builds left.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import json
import logging
import shutil
import time
from collections.abc import Iterator
from pathlib import Path
from typing import NamedTuple

import apache_beam as beam
import pyarrow.parquet as pq
from apache_beam.options.pipeline_options import PipelineOptions

from indexes.store import enforce_recall_floor
from models.config_check import config_from_dict
from models.factory import ModelFactory, RegistryModels
from pipelines.collector import young_collections_only
from pipelines.finalize import finalize_outputs
from pipelines.graph import Caches, build_graph
from pipelines.release.build_lock import hold_build_lock
from pipelines.release.publish import Publisher
from pipelines.release.retention import apply_retention, retention_policy
from pipelines.runners import QABASE_LOCAL, default_runner, runner_args, runner_name
from pipelines.beam.counters import cache_counts, model_calls, stage_metrics
from pipelines.beam.options import BuildOptions
from pipelines.stages.read import expand_inputs
from pipelines.state import PreviousState, load_state, merge_counts, split_new_files, write_state_json
from pipelines.summary import BuildResult, reconcile, stage_table
from schemas.config import BuildConfig, RetentionConfig
from pipelines.exits import note_published
from schemas import layout as L
from schemas.errors import BaseIntegrityError, GateRefused, InputError, PublishError, QabaseError
from schemas.layout import (
    AGGREGATION_CACHE,
    DATA_DOCS_DIR,
    DRAFT,
    INDEX_FILE,
    INDEX_INFOS_FILE,
    MANIFEST,
    QA_FILE,
    QUESTIONS_FILE,
    REPORT_FILES,
    STATS_FILE,
    BaseLayout,
    new_version_id,
    sha256_file,
    sha256_stream,
)
from schemas.review import ReviewFile, load_review
from schemas.review_outcome import outcome_summary, review_outcome

LOG = logging.getLogger("qabase.build")


class InputPlan(NamedTuple):
    """What a build reads: the new files, and the state of the version it continues (if any)."""

    files: list[dict]  # expand_inputs() entries of the files to read
    new_facts: list[dict]  # their path, format, bytes and sha256
    skipped: list[dict]  # inputs counted before (same sha256)
    previous: str | None  # the latest version
    prev_state: PreviousState | None  # its state, when this build continues it


def _sha256_any(path: str) -> str:
    """sha256 of a local or remote (Beam FileSystems) file, as stored: compressed files are not decompressed.
    The first read of every input, before anything is written: a file that cannot be read is an InputError."""
    if not L.is_remote(path):
        try:
            return sha256_file(path)
        except OSError as exc:  # no permission, an I/O error, a file gone since the match
            raise InputError(f"input: cannot read {path} ({exc.strerror or type(exc).__name__})") from None
    from apache_beam.io.filesystem import CompressionTypes
    from apache_beam.io.filesystems import FileSystems

    try:
        with FileSystems.open(path, compression_type=CompressionTypes.UNCOMPRESSED) as f:
            return sha256_stream(f)
    except Exception as exc:  # noqa: BLE001 - any filesystem's failure, as one line
        detail = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise InputError(f"input: cannot read {path} ({detail[:300]})") from None


def _input_facts(files: list[dict]) -> list[dict]:
    return [{"path": f["path"], "format": f["format"], "bytes": f["size"], "sha256": _sha256_any(f["path"])}
            for f in files]


def _unchanged(layout: BaseLayout, previous: str) -> BuildResult:
    path = layout.fetch(previous)
    manifest = json.loads((path / MANIFEST).read_text(encoding="utf-8"))
    return BuildResult(previous, path, manifest, manifest.get("stages", []), unchanged=True)


def plan_inputs(inputs: list[str], layout: BaseLayout, cfg: BuildConfig, full_rebuild: bool) -> InputPlan:
    """Expand the inputs, and split them into new files and files the latest version's state counted."""
    files = expand_inputs(inputs, cfg.input.format)
    facts = _input_facts(files)
    previous = layout.current_version()
    prev_state = None
    if previous and layout.remote and not L.exists(L.join(layout.version_url(previous), MANIFEST)):
        raise BaseIntegrityError(f"output: {layout.url_of(L.LATEST_FILE)} names version {previous}, but "
                                 f"{layout.version_url(previous)}/ has no {MANIFEST} (deleted or never published); "
                                 f"point {L.LATEST_FILE} at a published version, or restore it")
    if previous and not full_rebuild:
        # a remote base: the previous version in the local mirror for the launcher; the workers read its state
        # straight from the store
        prev_state = load_state(layout.fetch(previous), cfg,
                                layout.url_of(L.VERSIONS_DIR, previous, L.STATE_DIR, L.QUESTIONS_FILE)
                                if layout.remote else None)
        if prev_state is None:
            LOG.warning("version %s has no incremental state (built by an older qabase): counting the given inputs "
                        "alone, as --full-rebuild does", previous)
    new_facts, skipped = split_new_files(facts, prev_state)
    if skipped:
        LOG.info("inputs: %d file(s) already counted in %s (same sha256), skipped", len(skipped), previous)
    new_paths = {f["path"] for f in new_facts}
    return InputPlan([f for f in files if f["path"] in new_paths], new_facts, skipped, previous, prev_state)


def _input_bytes(plan: InputPlan) -> int:
    """What the graph reads: the new files, and the saved state of every question it continues (which a long-lived
    base holds in the tens of MB)."""
    state = L.size(plan.prev_state.questions) if plan.prev_state else 0
    return sum(f["size"] for f in plan.files) + state


def known_runner_names() -> list[str]:
    """The short runner names Beam resolves (its table of known runners, DirectRunner first), and qabase's Dask and
    in-process runners."""
    from apache_beam.options.pipeline_options import StandardOptions

    names = {path.rsplit(".", 1)[-1] for path in StandardOptions.ALL_KNOWN_RUNNERS} | {"DaskRunner", "LocalRunner"}
    return ["DirectRunner"] + sorted(names - {"DirectRunner"})


def check_runner_name(name: str) -> None:
    """A short ``--runner`` name Beam would refuse only when the pipeline is made (class paths are imported by
    pipelines.runners.load_runner_options); Beam ignores case and accepts the name without 'Runner'."""
    if "." in name:
        return
    known = {n.lower() for n in known_runner_names()}
    if name.lower() not in known and f"{name.lower()}runner" not in known:
        raise QabaseError(f"usage: --runner {name}: Beam knows no such runner ({', '.join(known_runner_names())}, "
                          "or a runner's class path)")


def new_pipeline(beam_args: list[str] | None, default: str = "DirectRunner") -> tuple[beam.Pipeline, PipelineOptions]:
    """The Beam pipeline and its options: made before anything is written, so a bad runner writes nothing.
    ``default``: the runner when ``beam_args`` name none (pipelines.runners.default_runner)."""
    args = runner_args(list(beam_args or []))  # --runner=DaskRunner / LocalRunner: qabase's
    if not any(a.startswith("--runner") for a in args):
        args.append(f"--runner={default}")
    check_runner_name(runner_name(args) or "DirectRunner")
    if runner_name(args) == QABASE_LOCAL and "--no_pipeline_type_check" not in args:
        # Beam infers each step's element type for the coders it would pick; this runner uses no coders. The same
        # graph's types are checked wherever it runs on Beam's runners (the tests build it on the DirectRunner).
        args.append("--no_pipeline_type_check")
    options = BuildOptions(args)
    try:
        return beam.Pipeline(options=options), options
    except ImportError as exc:
        raise QabaseError(f"usage: --runner {runner_name(args)}: cannot import it ({exc})") from None


def review_of(cfg: BuildConfig) -> ReviewFile | None:
    """The config's review file, checked whole (ConfigError naming a bad line), or None without one. Read before
    anything else: a bad file stops the build before it writes anything."""
    return load_review(cfg.review.file) if cfg.review.file else None


def review_section(staging: Path, review: ReviewFile | None) -> dict | None:
    """The manifest's ``review``: every decision's status against the version just built (from its
    questions.parquet: which entry holds each question), or None without a review file."""
    if review is None:
        return None
    table = pq.read_table(staging / QUESTIONS_FILE, columns=["question_key", "entry_key"]).to_pydict()
    entry_of = dict(zip(table["question_key"], table["entry_key"]))
    return outcome_summary(review.path, review.sha256, review_outcome(review.decisions, entry_of))


def run_pipeline(p: beam.Pipeline, plan: InputPlan, cfg: BuildConfig, staging: str | Path, layout: BaseLayout,
                 factory: ModelFactory | None, review: ReviewFile | None = None):
    """Run the Beam graph into ``staging`` (a folder or a prefix in a store); returns (result, seconds, caches)."""
    caches = Caches(str(layout.cache_file(AGGREGATION_CACHE)) if cfg.aggregation.cache else None,
                    str(layout.cache) if cfg.models.cache else None)
    build_graph(p, plan.files, cfg, str(staging), caches,
                str(plan.prev_state.questions) if plan.prev_state else None, factory,
                review.decisions if review is not None else ())
    t0 = time.perf_counter()
    result = p.run()
    result.wait_until_finish()
    seconds = time.perf_counter() - t0
    LOG.info("pipeline finished in %.1fs", seconds)
    return result, seconds, caches


def merge_stats(staging: Path, prev_state: PreviousState | None) -> tuple[dict, dict]:
    """(cumulative stats, this build's own counts), both reconciled; the cumulative ones go to stats.json."""
    increment = json.loads((staging / STATS_FILE).read_text(encoding="utf-8"))
    increment.update(reconcile(increment))
    stats = merge_counts(increment, prev_state)
    stats.update(reconcile(stats))
    (staging / STATS_FILE).write_text(json.dumps(stats, indent=2), encoding="utf-8")
    return stats, increment


def check_store(staging: Path, stats: dict, cfg: BuildConfig) -> dict:
    """The index facts, once the store and index agree with each other and the counts."""
    index_facts = json.loads((staging / INDEX_INFOS_FILE).read_text(encoding="utf-8"))
    qa_rows = pq.ParquetFile(staging / QA_FILE).metadata.num_rows
    if index_facts["ntotal"] != qa_rows or qa_rows != stats["published"]:
        raise PublishError(f"index: ntotal {index_facts['ntotal']} != qa rows {qa_rows}")
    enforce_recall_floor(index_facts, cfg.index.recall_floor)
    if not (staging / INDEX_FILE).is_file():
        raise PublishError(f"index: {INDEX_FILE} was not written")
    return index_facts


def draft_manifest(version: str, started: dt.datetime, plan: InputPlan, all_inputs: list[dict], rows_read: int,
                   cfg: BuildConfig, stats: dict, table: list[dict], index_facts: dict,
                   factory: ModelFactory | None) -> dict:
    """The manifest of a staged version, before the quality gate adds its results and the checksums."""
    prev = plan.prev_state
    return {
        "manifest_version": L.BASE_FORMAT,
        "version": version,
        "created": started.isoformat(timespec="seconds"),
        "previous_version": plan.previous,
        "inputs": all_inputs,
        "increment": {"mode": "incremental" if prev else "full", "base_version": prev.version if prev else None,
                      "new_files": [f["path"] for f in plan.new_facts],
                      "skipped_files": [f["path"] for f in plan.skipped], "rows_read": rows_read},
        "config": cfg.to_dict(),
        "config_hash": cfg.config_hash(),
        "models": (factory or RegistryModels.of(cfg)).identities(),
        "counts": stats,
        "stages": table,
        "index": index_facts,
    }


def _nothing_new(layout: BaseLayout, plan: InputPlan, cfg: BuildConfig,
                 review: ReviewFile | None = None) -> BuildResult | None:
    """The latest version, when the plan reads no new file, the config is the same and so is the review file
    (by digest; none and none alike): nothing to build."""
    if plan.prev_state is None or plan.new_facts:
        return None
    latest = _unchanged(layout, plan.previous)
    if latest.manifest.get("config_hash") != cfg.config_hash():
        return None
    if (latest.manifest.get("review") or {}).get("sha256") != (review.sha256 if review is not None else None):
        return None
    LOG.info("no new input and the same config: %s stays latest", plan.previous)
    return latest


def _write_missing_report(output: str | Path, layout: BaseLayout, latest: BuildResult) -> None:
    """A build stopped after its swap leaves the live version without its report: the next run writes it."""
    if layout.remote:
        present = L.exists(L.join(layout.version_url(latest.version), REPORT_FILES[0]))
    else:
        present = (latest.path / REPORT_FILES[0]).is_file()
    if present:
        return
    with hold_build_lock(layout, latest.version):
        LOG.warning("version %s has no %s (its build stopped after publishing it): writing it", latest.version,
                    REPORT_FILES[0])
        report_version(output, latest.version, latest.manifest)


def _replan_if_moved(plan: InputPlan, inputs: list[str], layout: BaseLayout, cfg: BuildConfig,
                     full_rebuild: bool) -> InputPlan:
    """Under the lock: the plan again if another build published between the plan and the lock."""
    if layout.current_version() == plan.previous:
        return plan
    LOG.info("another build published %s meanwhile: planning again on it", layout.current_version())
    return plan_inputs(inputs, layout, cfg, full_rebuild)


@contextlib.contextmanager
def _staged(inputs: list[str], output: str | Path, cfg: BuildConfig, beam_args: list[str] | None,
            version: str | None, full_rebuild: bool, factory: ModelFactory | None) -> Iterator[BuildResult]:
    """Yields the latest version when there is nothing new (its report written if a stopped build left it
    without), else the version staged, with the build lock held until the ``with`` block ends."""
    if version is not None:
        L.check_version_id(version)  # before any work: it names the staging folder, written last of all
    started = dt.datetime.now(dt.timezone.utc)
    t0 = time.perf_counter()
    review = review_of(cfg)
    layout = BaseLayout(output)
    plan = plan_inputs(inputs, layout, cfg, full_rebuild)
    latest = _nothing_new(layout, plan, cfg, review)
    if latest is not None:
        _write_missing_report(output, layout, latest)
        yield latest
        return
    # the runner is checked before anything is written
    pipeline = new_pipeline(beam_args, default_runner(_input_bytes(plan), cfg.runner.local_max_mb,
                                                     list(beam_args or [])))
    version = version or new_version_id()
    with hold_build_lock(layout, version):
        plan = _replan_if_moved(plan, inputs, layout, cfg, full_rebuild)
        latest = _nothing_new(layout, plan, cfg, review)
        yield latest if latest is not None else _stage(plan, output, layout, cfg, pipeline, version, factory,
                                                       started, t0, review)


def stage_version(inputs: list[str], output: str | Path, cfg: BuildConfig, beam_args: list[str] | None = None,
                  version: str | None = None, full_rebuild: bool = False,
                  factory: ModelFactory | None = None) -> BuildResult:
    """Run the Beam pipeline into a staging folder and check counts and the index; the draft manifest
    goes to ``build.json`` there. Returns the staged version (``path`` is its staging folder), or
    the latest version with ``unchanged`` when there is nothing new to build. ``factory``: the models
    (default: the registry's for ``cfg``). Holds the build lock while it stages (BuildLockedError if
    another build holds it)."""
    with _staged(inputs, output, cfg, beam_args, version, full_rebuild, factory) as staged:
        return staged


def _stage(plan: InputPlan, output: str | Path, layout: BaseLayout, cfg: BuildConfig,
           pipeline: tuple[beam.Pipeline, PipelineOptions], version: str, factory: ModelFactory | None,
           started: dt.datetime, t0: float, review: ReviewFile | None = None) -> BuildResult:
    LOG.info("inputs: %d new file(s), %s bytes%s", len(plan.files), f"{sum(f['size'] for f in plan.files):,}",
             f" (continuing the state of {plan.previous})" if plan.prev_state else "")
    p, options = pipeline
    publisher = Publisher(output, version)
    staging = publisher.prepare()
    LOG.info("building version %s in %s", publisher.version, publisher.target)
    try:
        result, pipeline_s, caches = run_pipeline(p, plan, cfg, publisher.target, layout, factory, review)
        publisher.pull()  # a remote base: the graph's files into the local working copy
        stats, increment = merge_stats(staging, plan.prev_state)
        t_write = time.perf_counter()
        prev = plan.prev_state
        finalize_outputs(staging, prev.version_dir if prev else None)
        all_inputs = sorted((prev.files if prev else []) + plan.new_facts, key=lambda f: (f["path"], f["sha256"]))
        write_state_json(staging, cfg, all_inputs, stats)
        index_facts = check_store(staging, stats, cfg)
        table = stage_table(stats, stage_metrics(result), {"write": time.perf_counter() - t_write},
                            increment if prev else None)
        manifest = draft_manifest(publisher.version, started, plan, all_inputs, increment["rows_read"], cfg, stats,
                                  table, index_facts, factory)
        manifest["beam"] = {"runner": options.get_all_options().get("runner"), "sdk": beam.__version__,
                            "pipeline_seconds": round(pipeline_s, 3)}
        manifest["review"] = review_section(staging, review)
        manifest["build_seconds"] = round(time.perf_counter() - t0, 3)
        calls = model_calls(result)
        if calls is not None:
            manifest["model_calls"] = calls
        counted = cache_counts(result) if (caches.aggregation or caches.folder) else None
        if counted is not None:
            manifest["caches"] = {"folder": str(layout.cache), **counted}
        (staging / DRAFT).write_text(json.dumps(manifest, indent=1, ensure_ascii=False), encoding="utf-8")
        publisher.push()  # a remote base: the staged version back to the store, for the next step
    except BaseException:
        publisher.abort()
        raise
    return BuildResult(publisher.version, staging, manifest, table)


def _keep_failed_report(publisher: Publisher, staging: Path, manifest: dict) -> str:
    """The failed version's report (and Data Docs) in ``failed/<version>/`` (a remote base: in the store);
    returns where the report is."""
    from pipelines.release.report import write_report

    write_report(staging, manifest)
    failed = publisher.layout.failed(publisher.version)
    failed.mkdir(parents=True, exist_ok=True)
    for name in REPORT_FILES:
        shutil.copy2(staging / name, failed / name)
    if (staging / DATA_DOCS_DIR).is_dir():
        shutil.copytree(staging / DATA_DOCS_DIR, failed / DATA_DOCS_DIR, dirs_exist_ok=True)
    if publisher.remote:
        return L.join(publisher.upload_failed(failed), REPORT_FILES[0])
    return str(failed / REPORT_FILES[0])


def _expectations(results: list[dict]) -> str:
    return "; ".join(f"{r['suite']}.{r['expectation']}({r['column'] or ''}): {r['unexpected_count']} unexpected"
                     for r in results[:5])


def gate_version(output: str | Path, version: str, expectations: bool = True) -> dict:
    """Run the quality gate on a staged version. On a critical failure: the report goes to
    ``failed/<version>/``, the staging folder is removed and GateRefused (a PublishError) says why (and, where the gate
    knows one, how to opt in). Otherwise the manifest (with the expectation results and every file's
    checksum) is written; returns it. Holds the build lock. ``expectations=False`` (tests only, see
    :func:`run_build`) writes the manifest without running the expectations: no ``quality`` in it."""
    with hold_build_lock(BaseLayout(output), version):
        return _gate(output, version, expectations)


def _gate(output: str | Path, version: str, expectations: bool = True) -> dict:
    publisher = Publisher(output, version)
    staging = publisher.staging
    publisher.ensure_local(DRAFT)
    if not (staging / DRAFT).is_file():
        raise PublishError(f"quality gate: no staged version {version} in "
                           f"{publisher.layout.url_of(L.VERSIONS_DIR) if publisher.remote else publisher.versions}")
    try:
        manifest = json.loads((staging / DRAFT).read_text(encoding="utf-8"))
        if expectations:
            _check_quality(publisher, staging, manifest)
        (staging / DRAFT).unlink()
        publisher.write_manifest(manifest)
        publisher.push()
    except BaseException:
        publisher.abort()
        raise
    return manifest


def _check_quality(publisher: Publisher, staging: Path, manifest: dict) -> None:
    """The expectations on a staged version, their results put in ``manifest["quality"]``; GateRefused (the
    failed version's report kept) on a critical failure, a warning logged for each warning."""
    from pipelines.release.quality import validate_version

    LOG.info("quality gate: checking the staged version ...")  # several seconds of great-expectations: say so
    cfg = config_from_dict(manifest["config"])
    previous = manifest.get("previous_version")
    quality = validate_version(staging, manifest["index"], cfg, manifest["counts"],
                               publisher.layout.fetch(previous) if previous else None)
    manifest["quality"] = quality
    if quality["critical_failures"]:
        report = _keep_failed_report(publisher, staging, manifest)
        hints = "".join(f"; {r['hint']}" for r in quality["critical_failures"] if r.get("hint"))
        raise GateRefused(f"quality gate: {len(quality['critical_failures'])} critical expectation(s) failed "
                           f"({_expectations(quality['critical_failures'])}){hints}; "
                           f"{L.LATEST_FILE if publisher.remote else L.LATEST} is unchanged; report: {report}")
    if quality["warnings"]:  # published all the same: said here, not only in the report
        LOG.warning("quality gate: %d warning(s): %s%s", len(quality["warnings"]),
                    _expectations(quality["warnings"]),
                    "".join(f"; {r['hint']}" for r in quality["warnings"] if r.get("hint")))


def publish_version(output: str | Path, version: str) -> Path:
    """Move a gated version into versions/ and point latest at it; returns its folder (a remote base: its copy
    in the local mirror; the version is at ``<output>/versions/<version>/`` and ``LATEST`` names it). Holds the
    build lock; refused (PublishError, the staging removed) when latest no longer names the version it was
    built on."""
    with hold_build_lock(BaseLayout(output), version):
        publisher = Publisher(output, version)
        try:
            final = publisher.publish()
        except BaseException:
            if publisher.remote:  # nothing half-published stays in the store (LATEST was not written)
                publisher.abort()
            raise
        note_published(str(output), version)  # latest names it: a failure from here on must say so
        LOG.info("published %s", publisher.location)
        apply_retention(output, _retention_of(final), version)
    return final


def _retention_of(version_dir: Path) -> RetentionConfig:
    """The retention policy a published version's config asked for."""
    return retention_policy(json.loads((version_dir / MANIFEST).read_text(encoding="utf-8")))


def report_version(output: str | Path, version: str, manifest: dict | None = None) -> str:
    """(Re)write a published version's report.html / report.json (a remote base: in its local copy, then
    uploaded beside the version); returns where report.html is. Holds the build lock (retention never removes
    the version under it)."""
    with hold_build_lock(BaseLayout(output), version):
        return _report_version(output, version, manifest)


def _report_version(output: str | Path, version: str, manifest: dict | None = None) -> str:
    from pipelines.release.report import write_report

    layout = BaseLayout(output)
    folder = layout.fetch(version)
    if manifest is None:
        manifest = json.loads((folder / MANIFEST).read_text(encoding="utf-8"))
    LOG.info("report: writing %s ...", ", ".join(REPORT_FILES))
    write_report(folder, manifest)
    if not layout.remote:
        return str(folder / REPORT_FILES[0])
    for name in REPORT_FILES:
        L.upload(folder / name, L.join(layout.version_url(version), name))
    return L.join(layout.version_url(version), REPORT_FILES[0])


def run_build(inputs: list[str], output: str | Path, cfg: BuildConfig, beam_args: list[str] | None = None,
              version: str | None = None, full_rebuild: bool = False,
              factory: ModelFactory | None = None, gate: bool = True, report: bool = True) -> BuildResult:
    """Build, gate, publish and report one version. Raises QabaseError with a readable message on bad input.

    By default a build continues the state of the latest version (pipelines.state): input files
    counted before (same sha256) are skipped, new ones are added to the counts of all earlier logs.
    With nothing new and the same config it publishes nothing and returns the latest version.
    ``full_rebuild`` ignores the state and counts the given inputs alone. The build lock is held from the
    stage to the report (BuildLockedError when another build holds it).

    ``gate=False`` and ``report=False`` are for tests that are about neither (a second of a ~10 s fake-model
    build each): the manifest is written without the expectations' results (no ``quality``, nothing refused),
    and the version has no report.html / report.json / browse page. Every command builds with both.
    Python's full garbage collections wait until it returns (pipelines.collector).
    """
    staging = _staged(inputs, output, cfg, beam_args, version, full_rebuild, factory)
    with young_collections_only(), staging as staged:
        if staged.unchanged:
            return staged
        manifest = gate_version(output, staged.version, expectations=gate)
        final = publish_version(output, staged.version)
        if report:
            report_version(output, staged.version, manifest)
    layout = BaseLayout(output)
    return BuildResult(staged.version, final, manifest, staged.stage_table,
                       location=layout.version_url(staged.version) if layout.remote else None)
