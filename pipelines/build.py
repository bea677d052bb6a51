"""One build, end to end: inputs -> Beam graph -> checks -> manifest -> atomic publish.

:func:`run_build` is what the CLI, the tests and the Airflow task call.
"""

from __future__ import annotations

import datetime as dt
import json
import logging
import shutil
import time
from pathlib import Path
from typing import NamedTuple

import apache_beam as beam
import pyarrow.compute as pc
import pyarrow.parquet as pq
from apache_beam.options.pipeline_options import PipelineOptions

from pipelines.config import BuildConfig
from pipelines.errors import PublishError
from pipelines.graph import STATS_FILE, build_graph
from pipelines.progress import STAGE_ORDER, stage_metrics
from pipelines.publish import (INDEX_FILE, Publisher, current_version, enforce_recall_floor, sha256_file,
                               sha256_stream)
from pipelines.handlers import cache_counts
from pipelines.read import expand_inputs
from pipelines.state import (QUESTIONS_FILE, STATE_DIR, load_state, merge_counts, split_new_files,
                             write_state_json)
from schemas import ACCEPTED_SAMPLE_SCHEMA, QUESTION_STATE_SCHEMA, QUESTIONS_SCHEMA, REJECTED_SCHEMA

LOG = logging.getLogger("qabase.build")
MANIFEST_VERSION = 1
DRAFT = "build.json"  # the manifest of a staged version before the quality gate


class BuildResult(NamedTuple):
    version: str
    path: Path
    manifest: dict
    stage_table: list[dict]
    unchanged: bool = False  # no new input and the same config: the latest version was kept as it is


def _sha256_any(path: str) -> str:
    """sha256 of a local or remote (Beam FileSystems) file, as stored: compressed files are not decompressed."""
    if Path(path).is_file():
        return sha256_file(path)
    from apache_beam.io.filesystem import CompressionTypes
    from apache_beam.io.filesystems import FileSystems

    with FileSystems.open(path, compression_type=CompressionTypes.UNCOMPRESSED) as f:
        return sha256_stream(f)


def _input_facts(files: list[dict]) -> list[dict]:
    return [{"path": f["path"], "format": f["format"], "bytes": f["size"], "sha256": _sha256_any(f["path"])}
            for f in files]


def _smallest_sample_ranks(table):
    """The accepted-rows sample of all logs so far: the rows with the smallest sample ranks."""
    from pipelines.graph import ACCEPTED_SAMPLE_ROWS
    from pipelines.validate import sample_rank_of

    if table.num_rows <= ACCEPTED_SAMPLE_ROWS:
        return table
    ranks = [sample_rank_of(r) for r in table.column("row_id").to_pylist()]
    return table.take(sorted(sorted(range(table.num_rows), key=ranks.__getitem__)[:ACCEPTED_SAMPLE_ROWS]))


def _sort_parquet(path: Path, keys: list[tuple[str, str]], schema, earlier: Path | None = None, select=None) -> int:
    """Rewrite a Beam-written Parquet file in a deterministic row order; returns its rows. ``earlier``: the
    same file of the version this build continues, whose rows (earlier logs) are merged in first;
    ``select``: a function choosing the rows to keep from the merged table."""
    table = pq.read_table(path, schema=schema)
    if earlier is not None and earlier.is_file():
        import pyarrow as pa

        table = pa.concat_tables([pq.read_table(earlier, schema=schema), table])
    if select is not None:
        table = select(table)
    if table.num_rows:
        table = table.take(pc.sort_indices(table, sort_keys=keys))
    pq.write_table(table, path)
    return table.num_rows


def reconcile(stats: dict) -> dict:
    read = stats["rows_parsed"] + stats["rows_rejected_read"]
    rejected = stats["rows_rejected_read"] + stats["rows_rejected_validate"]
    accepted = stats["rows_accepted"]
    if read != accepted + rejected:
        raise PublishError(f"counts: rows read {read} != accepted {accepted} + rejected {rejected}")
    return {"rows_read": read, "rows_accepted": accepted, "rows_rejected": rejected}


def stage_table(stats: dict, timings: dict[str, dict[str, float]], wall: dict[str, float],
                increment: dict | None = None) -> list[dict]:
    """Rows of the end-of-build summary: what went in and out of each stage, and its time.

    ``increment``: this build's own row counts when it continued a saved state; read, validate and
    count then show the new rows only (the later stages work on all questions so far)."""
    rows_in = increment or stats
    out_counts = {
        "read": (rows_in["rows_read"], rows_in["rows_parsed"], rows_in["rows_rejected_read"]),
        "validate": (rows_in["rows_parsed"], rows_in["rows_accepted"], rows_in["rows_rejected_validate"]),
        "count": (rows_in["rows_accepted"], stats["distinct_questions"], 0),
        "score": (stats["distinct_questions"], stats["passed_both"], stats["distinct_questions"] - stats["passed_both"]),
        "select": (stats["passed_both"], stats["top_k"], stats["passed_both"] - stats["top_k"]),
        "group": (stats["kept_rows"], stats["top_k"], 0),
        "embed": (stats["top_k"], stats["top_k"], 0),
        "aggregate": (stats["top_k"], stats["published"], stats["top_k"] - stats["published"]),
        "write": (stats["published"], stats["published"], 0),
    }
    rows = []
    for stage in STAGE_ORDER:
        if stage not in out_counts:
            continue
        n_in, n_out, n_drop = out_counts[stage]
        secs = timings.get(stage, {}).get("seconds")
        if stage in wall:
            secs = (secs or 0.0) + wall[stage]
        rows.append({"stage": stage, "in": n_in, "out": n_out, "dropped": n_drop,
                     "seconds": round(secs, 3) if secs is not None else None,
                     # below 10 ms a rate says more about the clock than the stage
                     "items_per_s": round(n_in / secs, 1) if secs and secs >= 0.01 and n_in else None})
    return rows


def format_table(rows: list[dict]) -> str:
    """busy s: time the stage itself spent (summed over workers); in/s: items in per busy second."""
    head = f"{'stage':<10} {'in':>10} {'out':>10} {'dropped':>10} {'busy s':>9} {'in/s':>10}"
    lines = [head, "-" * len(head)]
    for r in rows:
        secs = f"{r['seconds']:.2f}" if r["seconds"] is not None else "-"
        rate = f"{r['items_per_s']:,.0f}" if r["items_per_s"] else "-"
        lines.append(f"{r['stage']:<10} {r['in']:>10,} {r['out']:>10,} {r['dropped']:>10,} {secs:>9} {rate:>10}")
    return "\n".join(lines)


def _unchanged(output: Path, previous: str) -> BuildResult:
    path = Path(output) / "versions" / previous
    manifest = json.loads((path / "manifest.json").read_text(encoding="utf-8"))
    return BuildResult(previous, path, manifest, manifest.get("stages", []), unchanged=True)


def stage_version(inputs: list[str], output: str | Path, cfg: BuildConfig, beam_args: list[str] | None = None,
                  version: str | None = None, full_rebuild: bool = False) -> BuildResult:
    """Run the Beam pipeline into a staging folder and check counts and the index; the draft manifest
    goes to ``build.json`` there. Returns the staged version (``path`` is its staging folder), or
    the latest version with ``unchanged`` when there is nothing new to build."""
    started = dt.datetime.now(dt.timezone.utc)
    t0 = time.perf_counter()
    files = expand_inputs(inputs, cfg.input.format)
    inputs_facts = _input_facts(files)
    previous = current_version(output)
    prev_state = None
    if previous and not full_rebuild:
        prev_state = load_state(Path(output) / "versions" / previous, cfg)
        if prev_state is None:
            LOG.warning("version %s has no incremental state (built by an older qabase): counting the given inputs "
                        "alone, as --full-rebuild does", previous)
    new_facts, skipped = split_new_files(inputs_facts, prev_state)
    if skipped:
        LOG.info("inputs: %d file(s) already counted in %s (same sha256), skipped", len(skipped), previous)
    if prev_state is not None and not new_facts:
        latest = _unchanged(output, previous)
        if latest.manifest.get("config_hash") == cfg.config_hash():
            LOG.info("no new input and the same config: %s stays latest", previous)
            return latest
    new_paths = {f["path"] for f in new_facts}
    files = [f for f in files if f["path"] in new_paths]
    LOG.info("inputs: %d new file(s), %s bytes%s", len(files), f"{sum(f['size'] for f in files):,}",
             f" (continuing the state of {previous})" if prev_state else "")
    publisher = Publisher(output, version)
    staging = publisher.prepare()
    LOG.info("building version %s in %s", publisher.version, staging)
    try:
        args = list(beam_args or [])
        if not any(a.startswith("--runner") for a in args):
            args.append("--runner=DirectRunner")
        options = PipelineOptions(args)
        p = beam.Pipeline(options=options)
        cache_path = str(publisher.base / "cache" / "aggregation.sqlite") if cfg.aggregation.cache else None
        cache_dir = str(publisher.base / "cache") if cfg.models.cache else None
        build_graph(p, files, cfg, str(staging), cache_path, cache_dir,
                    str(prev_state.questions) if prev_state else None)
        t_pipe = time.perf_counter()
        result = p.run()
        result.wait_until_finish()
        pipeline_s = time.perf_counter() - t_pipe
        LOG.info("pipeline finished in %.1fs", pipeline_s)
        increment = json.loads((staging / STATS_FILE).read_text(encoding="utf-8"))
        increment.update(reconcile(increment))
        increment_read = increment["rows_read"]
        stats = merge_counts(increment, prev_state)
        stats.update(reconcile(stats))
        (staging / STATS_FILE).write_text(json.dumps(stats, indent=2), encoding="utf-8")
        timings = stage_metrics(result)
        caches = cache_counts(result) if (cache_path or cache_dir) else None
        t_sort = time.perf_counter()
        prev_dir = prev_state.version_dir if prev_state else None
        _sort_parquet(staging / STATE_DIR / QUESTIONS_FILE, [("key", "ascending")], QUESTION_STATE_SCHEMA)
        all_inputs = sorted((prev_state.files if prev_state else []) + new_facts, key=lambda f: (f["path"], f["sha256"]))
        write_state_json(staging, cfg, all_inputs, stats)
        _sort_parquet(staging / "questions.parquet",
                      [("frequency", "descending"), ("question_key", "ascending")], QUESTIONS_SCHEMA)
        _sort_parquet(staging / "rejected.parquet",
                      [("source", "ascending"), ("position", "ascending"), ("stage", "ascending"),
                       ("reason", "ascending"), ("raw", "ascending")], REJECTED_SCHEMA,
                      earlier=prev_dir / "rejected.parquet" if prev_dir else None)
        _sort_parquet(staging / "accepted_sample.parquet", [("row_id", "ascending")], ACCEPTED_SAMPLE_SCHEMA,
                      earlier=prev_dir / "accepted_sample.parquet" if prev_dir else None, select=_smallest_sample_ranks)
        index_facts = json.loads((staging / "index_infos.json").read_text(encoding="utf-8"))
        qa_rows = pq.ParquetFile(staging / "qa.parquet").metadata.num_rows
        if index_facts["ntotal"] != qa_rows or qa_rows != stats["published"]:
            raise PublishError(f"index: ntotal {index_facts['ntotal']} != qa rows {qa_rows}")
        enforce_recall_floor(index_facts, cfg.index.recall_floor)
        from models.registry import model_identities

        wall = {"write": time.perf_counter() - t_sort}
        table = stage_table(stats, timings, wall, increment if prev_state else None)
        manifest = {
            "manifest_version": MANIFEST_VERSION,
            "version": publisher.version,
            "created": started.isoformat(timespec="seconds"),
            "previous_version": previous,
            "inputs": all_inputs,
            "increment": {"mode": "incremental" if prev_state else "full", "base_version": prev_state.version
                          if prev_state else None, "new_files": [f["path"] for f in new_facts],
                          "skipped_files": [f["path"] for f in skipped], "rows_read": increment_read},
            "config": cfg.to_dict(),
            "config_hash": cfg.config_hash(),
            "models": model_identities(cfg.models, cfg.aggregation),
            "counts": stats,
            "stages": table,
            "index": index_facts,
            "beam": {"runner": options.get_all_options().get("runner"), "sdk": beam.__version__,
                     "pipeline_seconds": round(pipeline_s, 3)},
            "build_seconds": round(time.perf_counter() - t0, 3),
        }
        if caches is not None:
            manifest["caches"] = {"folder": str(publisher.base / "cache"), **caches}
        if not (staging / INDEX_FILE).is_file():
            raise PublishError(f"index: {INDEX_FILE} was not written")
        (staging / DRAFT).write_text(json.dumps(manifest, indent=1, ensure_ascii=False), encoding="utf-8")
    except BaseException:
        publisher.abort()
        raise
    return BuildResult(publisher.version, staging, manifest, table)


def gate_version(output: str | Path, version: str) -> dict:
    """Run the quality gate on a staged version. On a critical failure: the report goes to
    ``failed/<version>/``, the staging folder is removed and PublishError says why. Otherwise the
    manifest (with the expectation results and every file's checksum) is written; returns it."""
    from pipelines.config import config_from_dict
    from pipelines.quality import DATA_DOCS_DIR, validate_version
    from pipelines.report import write_report

    publisher = Publisher(output, version)
    staging = publisher.staging
    if not (staging / DRAFT).is_file():
        raise PublishError(f"quality gate: no staged version {version} in {publisher.versions}")
    try:
        manifest = json.loads((staging / DRAFT).read_text(encoding="utf-8"))
        cfg = config_from_dict(manifest["config"])
        previous = manifest.get("previous_version")
        quality = validate_version(staging, manifest["index"], cfg, manifest["counts"],
                                   publisher.versions / previous if previous else None)
        manifest["quality"] = quality
        if quality["critical_failures"]:
            write_report(staging, manifest)
            failed = publisher.base / "failed" / version
            failed.mkdir(parents=True, exist_ok=True)
            for name in ("report.html", "report.json"):
                shutil.copy2(staging / name, failed / name)
            if (staging / DATA_DOCS_DIR).is_dir():
                shutil.copytree(staging / DATA_DOCS_DIR, failed / DATA_DOCS_DIR, dirs_exist_ok=True)
            names = "; ".join(f"{r['suite']}.{r['expectation']}({r['column'] or ''}): {r['unexpected_count']} unexpected"
                              for r in quality["critical_failures"][:5])
            raise PublishError(f"quality gate: {len(quality['critical_failures'])} critical expectation(s) failed "
                               f"({names}); latest is unchanged; report: {failed / 'report.html'}")
        (staging / DRAFT).unlink()
        publisher.write_manifest(manifest)
    except BaseException:
        publisher.abort()
        raise
    return manifest


def publish_version(output: str | Path, version: str) -> Path:
    """Move a gated version into versions/ and point latest at it; returns its folder."""
    final = Publisher(output, version).publish()
    LOG.info("published %s", final)
    return final


def run_build(inputs: list[str], output: str | Path, cfg: BuildConfig, beam_args: list[str] | None = None,
              version: str | None = None, full_rebuild: bool = False) -> BuildResult:
    """Build, gate, publish and report one version. Raises QabaseError with a readable message on bad input.

    By default a build continues the state of the latest version (pipelines.state): input files
    counted before (same sha256) are skipped, new ones are added to the counts of all earlier logs.
    With nothing new and the same config it publishes nothing and returns the latest version.
    ``full_rebuild`` ignores the state and counts the given inputs alone.
    """
    from pipelines.report import write_report

    staged = stage_version(inputs, output, cfg, beam_args, version, full_rebuild)
    if staged.unchanged:
        return staged
    manifest = gate_version(output, staged.version)
    final = publish_version(output, staged.version)
    write_report(final, manifest)
    return BuildResult(staged.version, final, manifest, staged.stage_table)


def summary_text(res: BuildResult) -> str:
    if res.unchanged:
        return (f"no new input (every file was counted before) and the same config: {res.version} stays latest "
                f"({res.path}); --full-rebuild recounts")
    c = res.manifest["counts"]
    lines = [
        format_table(res.stage_table),
        "",
        f"rows read {c['rows_read']:,} = accepted {c['rows_accepted']:,} + rejected {c['rows_rejected']:,}",
        f"distinct questions {c['distinct_questions']:,}; passed GEC {c['passed_gec']:,}, "
        f"passed intent {c['passed_intent']:,}, both {c['passed_both']:,}; published {c['published']:,}",
        f"index: {res.manifest['index']['type']} ntotal={res.manifest['index']['ntotal']} "
        f"recall@10={res.manifest['index']['recall_at_10']}",
        f"version {res.version} -> {res.path}  ({res.manifest['build_seconds']:.1f}s)",
    ]
    lines.insert(-1, f"report: {res.path / 'report.html'}")
    caches = res.manifest.get("caches") or {}
    reused = [f"{stage} {c['hits']:,} reused / {c['misses']:,} computed" for stage, c in caches.items()
              if isinstance(c, dict)]
    if reused:
        lines.insert(-1, "caches: " + "; ".join(reused))
    inc = res.manifest.get("increment") or {}
    if inc.get("mode") == "incremental":
        lines.insert(-1, f"incremental: {len(inc['new_files'])} new file(s), {inc['rows_read']:,} new rows, on top of "
                         f"{inc['base_version']}")
    return "\n".join(lines)
