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
from pipelines.publish import INDEX_FILE, Publisher, current_version, enforce_recall_floor, sha256_file
from pipelines.read import expand_inputs
from schemas import ACCEPTED_SAMPLE_SCHEMA, QUESTIONS_SCHEMA, REJECTED_SCHEMA

LOG = logging.getLogger("qabase.build")
MANIFEST_VERSION = 1


class BuildResult(NamedTuple):
    version: str
    path: Path
    manifest: dict
    stage_table: list[dict]


def _input_facts(files: list[dict]) -> list[dict]:
    out = []
    for f in files:
        entry = {"path": f["path"], "format": f["format"], "bytes": f["size"]}
        local = Path(f["path"])
        if local.is_file():
            entry["sha256"] = sha256_file(local)
        out.append(entry)
    return out


def _sort_parquet(path: Path, keys: list[tuple[str, str]], schema) -> int:
    """Rewrite a Beam-written Parquet file in a deterministic row order; returns its rows."""
    table = pq.read_table(path, schema=schema)
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


def stage_table(stats: dict, timings: dict[str, dict[str, float]], wall: dict[str, float]) -> list[dict]:
    """Rows of the end-of-build summary: what went in and out of each stage, and its time."""
    out_counts = {
        "read": (stats["rows_read"], stats["rows_parsed"], stats["rows_rejected_read"]),
        "validate": (stats["rows_parsed"], stats["rows_accepted"], stats["rows_rejected_validate"]),
        "count": (stats["rows_accepted"], stats["distinct_questions"], 0),
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


def run_build(inputs: list[str], output: str | Path, cfg: BuildConfig, beam_args: list[str] | None = None,
              version: str | None = None) -> BuildResult:
    """Build and publish one version. Raises QabaseError with a readable message on bad input."""
    started = dt.datetime.now(dt.timezone.utc)
    t0 = time.perf_counter()
    files = expand_inputs(inputs, cfg.input.format)
    LOG.info("inputs: %d file(s), %s bytes", len(files), f"{sum(f['size'] for f in files):,}")
    inputs_facts = _input_facts(files)
    previous = current_version(output)
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
        build_graph(p, files, cfg, str(staging), cache_path)
        t_pipe = time.perf_counter()
        result = p.run()
        result.wait_until_finish()
        pipeline_s = time.perf_counter() - t_pipe
        LOG.info("pipeline finished in %.1fs", pipeline_s)
        stats = json.loads((staging / STATS_FILE).read_text(encoding="utf-8"))
        stats.update(reconcile(stats))
        timings = stage_metrics(result)
        from pipelines.aggregate import cache_counts

        cache = cache_counts(result) if cache_path else None
        t_sort = time.perf_counter()
        _sort_parquet(staging / "questions.parquet",
                      [("frequency", "descending"), ("question_key", "ascending")], QUESTIONS_SCHEMA)
        _sort_parquet(staging / "rejected.parquet",
                      [("source", "ascending"), ("position", "ascending"), ("stage", "ascending"),
                       ("reason", "ascending"), ("raw", "ascending")], REJECTED_SCHEMA)
        _sort_parquet(staging / "accepted_sample.parquet", [("row_id", "ascending")], ACCEPTED_SAMPLE_SCHEMA)
        index_facts = json.loads((staging / "index_infos.json").read_text(encoding="utf-8"))
        qa_rows = pq.ParquetFile(staging / "qa.parquet").metadata.num_rows
        if index_facts["ntotal"] != qa_rows or qa_rows != stats["published"]:
            raise PublishError(f"index: ntotal {index_facts['ntotal']} != qa rows {qa_rows}")
        enforce_recall_floor(index_facts, cfg.index.recall_floor)
        from models.registry import model_identities

        wall = {"write": time.perf_counter() - t_sort}
        table = stage_table(stats, timings, wall)
        manifest = {
            "manifest_version": MANIFEST_VERSION,
            "version": publisher.version,
            "created": started.isoformat(timespec="seconds"),
            "previous_version": previous,
            "inputs": inputs_facts,
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
        if cache is not None:
            manifest["aggregation_cache"] = {"path": cache_path, **cache}
        if not (staging / INDEX_FILE).is_file():
            raise PublishError(f"index: {INDEX_FILE} was not written")
        from pipelines.quality import validate_version
        from pipelines.report import write_report

        quality = validate_version(staging, index_facts, cfg, stats,
                                   publisher.versions / previous if previous else None)
        manifest["quality"] = quality
        write_report(staging, manifest)
        if quality["critical_failures"]:
            failed = publisher.base / "failed" / publisher.version
            failed.mkdir(parents=True, exist_ok=True)
            for name in ("report.html", "report.json"):
                shutil.copy2(staging / name, failed / name)
            if (staging / "data_docs").is_dir():
                shutil.copytree(staging / "data_docs", failed / "data_docs", dirs_exist_ok=True)
            names = "; ".join(f"{r['suite']}.{r['expectation']}({r['column'] or ''}): {r['unexpected_count']} unexpected"
                              for r in quality["critical_failures"][:5])
            raise PublishError(f"quality gate: {len(quality['critical_failures'])} critical expectation(s) failed "
                               f"({names}); latest is unchanged; report: {failed / 'report.html'}")
        publisher.write_manifest(manifest)
        final = publisher.publish()
    except BaseException:
        publisher.abort()
        raise
    LOG.info("published %s", final)
    return BuildResult(publisher.version, final, manifest, table)


def summary_text(res: BuildResult) -> str:
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
    cache = res.manifest.get("aggregation_cache")
    if cache:
        lines.insert(-1, f"aggregation cache: {cache['hits']:,} groups reused, {cache['misses']:,} aggregated")
    return "\n".join(lines)
