"""The quality gate: great-expectations 1.x suites, defined in code, run on a version before it is published.

An ephemeral GX context validates pandas batches of the staged files. Critical
expectations (a failure stops the publish, ``latest`` stays where it was):

* scored questions (``questions.parquet``): GEC and intent scores in [0, 1], one row per key;
* the QA store (``qa.parquet``): unique ``qid`` and ``question_key``, frequency at least 1,
  rank consistent with frequency (never rising down the ranks), scores in [0, 1],
  non-empty answers, answer IDs within 1..n and each used at most once per question,
  ``qtype`` in {objective, subjective}, viewpoints present for subjective questions;
* the index: ``ntotal`` equals the rows, recall@10 at or above the floor.

Warnings (reported, never blocking): drift against the previous published version:
the share of its questions carried over (at least 0.5) and the shift of the mean GEC
and intent scores (at most 0.1).
"""

from __future__ import annotations

import itertools
import logging
import os
from pathlib import Path

CRITICAL, WARNING = "critical", "warning"
_COUNTER = itertools.count()


def _context():
    os.environ.setdefault("GX_ANALYTICS_ENABLED", "False")
    os.environ["TQDM_DISABLE"] = "1"  # GX draws a progress bar per validation; keep the build log readable
    import great_expectations as gx

    for name in ("great_expectations", "great_expectations.core", "great_expectations.data_context"):
        logging.getLogger(name).setLevel(logging.ERROR)
    ctx = gx.get_context(mode="ephemeral")
    from great_expectations.data_context.types.base import ProgressBarsConfig

    ctx.variables.progress_bars = ProgressBarsConfig(globally=False, metric_calculations=False)
    return gx, ctx


def run_suite(name: str, df, expectations: list[tuple[str, object]]) -> list[dict]:
    """Validate one pandas frame; one result dict per (severity, expectation)."""
    gx, ctx = _context()
    tag = f"{name}_{next(_COUNTER)}"
    batch = (ctx.data_sources.add_pandas(name=f"src_{tag}").add_dataframe_asset(name=f"asset_{tag}")
             .add_batch_definition_whole_dataframe(f"batch_{tag}").get_batch(batch_parameters={"dataframe": df}))
    suite = gx.ExpectationSuite(name=f"suite_{tag}")
    severity = {}
    for sev, exp in expectations:
        suite.add_expectation(exp)
        severity[id(exp)] = sev
    result = batch.validate(suite)
    out = []
    for (sev, exp), r in zip(expectations, result.results):
        cfg = r.expectation_config
        res = r.result or {}
        out.append({"suite": name, "expectation": cfg.type, "column": cfg.kwargs.get("column"),
                    "severity": sev, "success": bool(r.success),
                    "unexpected_count": res.get("unexpected_count"),
                    "examples": [str(x)[:80] for x in (res.get("partial_unexpected_list") or [])[:3]]})
    return out


def _qa_frame(path: Path):
    import pandas as pd
    import pyarrow.parquet as pq

    rows = pq.read_table(path).to_pylist()
    prev = None
    for r in rows:
        r["rank_follows_frequency"] = prev is None or r["frequency"] <= prev
        prev = r["frequency"]
        ids = [a["answer_id"] for a in (r["answers"] or [])]
        used = [i for v in (r["viewpoints"] or []) for i in v["answer_ids"]]
        r["answer_ids_valid"] = (sorted(ids) == list(range(1, len(ids) + 1)) and len(used) == len(set(used))
                                 and all(1 <= i <= len(ids) for i in used))
        r["viewpoints_present"] = r["qtype"] != "subjective" or bool(r["viewpoints"])
        for k in ("answers", "viewpoints", "flags"):
            r.pop(k, None)
    return pd.DataFrame(rows)


def validate_version(staging: Path, index_facts: dict, recall_floor: float, previous: Path | None = None) -> dict:
    import great_expectations as gx
    import pandas as pd
    import pyarrow.parquet as pq

    E = gx.expectations
    results: list[dict] = []
    questions = pq.read_table(staging / "questions.parquet",
                              columns=["question_key", "gec_score", "intent_score"]).to_pandas()
    results += run_suite("scored_questions", questions, [
        (CRITICAL, E.ExpectColumnValuesToBeBetween(column="gec_score", min_value=0.0, max_value=1.0)),
        (CRITICAL, E.ExpectColumnValuesToBeBetween(column="intent_score", min_value=0.0, max_value=1.0)),
        (CRITICAL, E.ExpectColumnValuesToBeUnique(column="question_key")),
    ])
    qa = _qa_frame(staging / "qa.parquet")
    if len(qa):
        results += run_suite("qa_store", qa, [
            (CRITICAL, E.ExpectColumnValuesToBeUnique(column="qid")),
            (CRITICAL, E.ExpectColumnValuesToBeUnique(column="question_key")),
            (CRITICAL, E.ExpectColumnValuesToBeBetween(column="frequency", min_value=1)),
            (CRITICAL, E.ExpectColumnValuesToBeBetween(column="gec_score", min_value=0.0, max_value=1.0)),
            (CRITICAL, E.ExpectColumnValuesToBeBetween(column="intent_score", min_value=0.0, max_value=1.0)),
            (CRITICAL, E.ExpectColumnValueLengthsToBeBetween(column="answer", min_value=1)),
            (CRITICAL, E.ExpectColumnValuesToBeInSet(column="qtype", value_set=["objective", "subjective"])),
            (CRITICAL, E.ExpectColumnValuesToBeInSet(column="rank_follows_frequency", value_set=[True])),
            (CRITICAL, E.ExpectColumnValuesToBeInSet(column="answer_ids_valid", value_set=[True])),
            (CRITICAL, E.ExpectColumnValuesToBeInSet(column="viewpoints_present", value_set=[True])),
        ])
    index = pd.DataFrame([{"ntotal_matches_rows": index_facts["ntotal"] == len(qa),
                           "recall_at_10": float(index_facts.get("recall_at_10", 1.0))}])
    results += run_suite("index", index, [
        (CRITICAL, E.ExpectColumnValuesToBeInSet(column="ntotal_matches_rows", value_set=[True])),
        (CRITICAL, E.ExpectColumnValuesToBeBetween(column="recall_at_10", min_value=recall_floor)),
    ])
    drift = {}
    if previous is not None and (previous / "qa.parquet").is_file() and len(qa):
        old = pq.read_table(previous / "qa.parquet", columns=["question_key", "gec_score", "intent_score"]).to_pandas()
        if len(old):
            drift = {"carried_over": float(old["question_key"].isin(set(qa["question_key"])).mean()),
                     "gec_mean_shift": float(abs(qa["gec_score"].mean() - old["gec_score"].mean())),
                     "intent_mean_shift": float(abs(qa["intent_score"].mean() - old["intent_score"].mean()))}
            results += run_suite("drift", pd.DataFrame([drift]), [
                (WARNING, E.ExpectColumnValuesToBeBetween(column="carried_over", min_value=0.5)),
                (WARNING, E.ExpectColumnValuesToBeBetween(column="gec_mean_shift", max_value=0.1)),
                (WARNING, E.ExpectColumnValuesToBeBetween(column="intent_mean_shift", max_value=0.1)),
            ])
    failed = [r for r in results if not r["success"]]
    return {"results": results, "drift": drift,
            "critical_failures": [r for r in failed if r["severity"] == CRITICAL],
            "warnings": [r for r in failed if r["severity"] == WARNING],
            "great_expectations": gx.__version__}
