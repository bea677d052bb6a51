"""The build graph: every stage as a Beam transform, wired in one place.

read -> validate -> count (fold into the saved state of earlier logs, if any)
     -> score -> select (top K) -> group answers -> embed (index vector + type)
     -> aggregate -> write store + index

Side outputs: rejected rows, every distinct question with its fate, a
deterministic sample of accepted rows, and a stats file of counts per stage
(and an accepted-rows length profile) computed as data (exact on every runner).
"""

from __future__ import annotations

import json
from pathlib import Path

import apache_beam as beam
from apache_beam.io.parquetio import WriteToParquet

from pipelines.aggregate import aggregate_transform, embed_transform
from pipelines.config import BuildConfig
from pipelines.count import CountQuestions, to_question_stats
from pipelines.group import answer_group
from pipelines.progress import MeteredMap, StageMeter, Timed
from pipelines.publish import write_store
from pipelines.read import ReadLogs
from pipelines.select import SelectTopK, question_row
from pipelines.score import score_transform
from pipelines.state import QUESTIONS_FILE, STATE_DIR, state_record
from pipelines.validate import AcceptedProfileFn, ValidateRows, sample_rank, sample_record
from schemas import ACCEPTED_SAMPLE_SCHEMA, QUESTION_STATE_SCHEMA, QUESTIONS_SCHEMA, REJECTED_SCHEMA

STATS_FILE = "stats.json"
ACCEPTED_SAMPLE_ROWS = 5000


def _parquet_sink(staging: str, name: str, schema) -> WriteToParquet:
    return WriteToParquet(str(Path(staging) / name), schema=schema, file_name_suffix=".parquet",
                          num_shards=1, shard_name_template="")


def _count(pcoll, name: str):
    return (pcoll
            | f"Count_{name}" >> beam.combiners.Count.Globally()
            | f"Name_{name}" >> beam.Map(lambda n, k=name: (k, n)))


def _count_by(pcoll, name: str, fn):
    return (pcoll
            | f"Key_{name}" >> beam.Map(fn)
            | f"CountPer_{name}" >> beam.combiners.Count.PerElement()
            | f"ToList_{name}" >> beam.combiners.ToDict()
            | f"Name_{name}" >> beam.Map(lambda d, k=name: (k, dict(sorted(d.items())))))


def _join(element):
    key, grouped = element
    kept, groups = grouped["kept"], grouped["answers"]
    if not kept:
        return []
    if not groups:  # cannot happen: a kept question was counted from its own accepted rows
        raise RuntimeError(f"no answers grouped for kept question {key!r}")
    return [(kept[0], groups[0])]


def _write_store_metered(rows, staging: str, index_cfg):
    meter = StageMeter("write")
    with Timed(meter, len(rows)):
        facts = write_store(rows, staging, index_cfg)
    meter.done()
    return facts


def _write_stats(pairs, staging: str) -> None:
    (Path(staging) / STATS_FILE).write_text(json.dumps(dict(sorted(pairs)), indent=2), encoding="utf-8")


def build_graph(p: beam.Pipeline, files: list[dict], cfg: BuildConfig, staging: str,
                cache_path: str | None = None, cache_dir: str | None = None,
                previous_state: str | None = None) -> None:
    """``cache_path``: the aggregation cache; ``cache_dir``: score and vector caches; ``previous_state``:
    state/questions.parquet of the version this build continues (None: count these files alone)."""
    read = p | "Read" >> ReadLogs(files, cfg.input, cfg.limits)
    validated = read.rows | "Validate" >> ValidateRows(cfg.limits)
    accepted = validated.accepted
    rejected = (read.rejected, validated.rejected) | "AllRejects" >> beam.Flatten()
    _ = (rejected
         | "RejectRecords" >> beam.Map(lambda r: r._asdict())
         | "WriteRejected" >> _parquet_sink(staging, "rejected", REJECTED_SCHEMA))
    _ = (accepted
         | "SampleAccepted" >> beam.combiners.Top.Smallest(ACCEPTED_SAMPLE_ROWS, key=sample_rank)
         | "SampleRecords" >> beam.FlatMap(lambda rows: [sample_record(r) for r in rows])
         | "WriteAcceptedSample" >> _parquet_sink(staging, "accepted_sample", ACCEPTED_SAMPLE_SCHEMA))

    state = accepted | "Count" >> CountQuestions(previous_state)
    _ = (state
         | "StateRecords" >> beam.Map(state_record)
         | "WriteState" >> _parquet_sink(str(Path(staging) / STATE_DIR), QUESTIONS_FILE.removesuffix(".parquet"),
                                         QUESTION_STATE_SCHEMA))
    questions = state | "ToQuestionStats" >> MeteredMap.of(
        "count", lambda kv: to_question_stats(kv[0], kv[1][0], kv[1][1]))
    scored = questions | "Score" >> score_transform(cfg.models, cfg.filter, cache_dir)
    selected = scored | "Select" >> SelectTopK(cfg.filter.top_k)
    ranks = beam.pvalue.AsSingleton(selected["ranks"])
    _ = (scored
         | "QuestionRecords" >> beam.Map(question_row, ranks=ranks)
         | "WriteQuestions" >> _parquet_sink(staging, "questions", QUESTIONS_SCHEMA))

    kept_keys = selected["ranks"] | "KeptKeys" >> beam.Map(frozenset)
    max_answers = cfg.grouping.max_answers
    answers = (state
               | "KeptState" >> beam.Filter(lambda kv, keys: kv[0] in keys, keys=beam.pvalue.AsSingleton(kept_keys))
               | "Group" >> MeteredMap.of("group", lambda kv: (kv[0], answer_group(kv[1][2], max_answers))))
    kept = (selected["ranked"]
            | "Embed" >> embed_transform(cfg.models, cfg.aggregation, cache_dir)
            | "KeyKept" >> beam.Map(lambda k: (k.scored.key, k)))
    rows = ({"kept": kept, "answers": answers}
            | "JoinAnswers" >> beam.CoGroupByKey()
            | "Pair" >> beam.FlatMap(_join)
            | "Aggregate" >> aggregate_transform(cfg.models, cfg.aggregation, cache_path, cache_dir))
    _ = (rows
         | "CollectStore" >> beam.combiners.ToList()
         | "WriteStore" >> beam.Map(_write_store_metered, staging=staging, index_cfg=cfg.index))

    counts = [
        _count(read.rows, "rows_parsed"),
        _count(read.rejected, "rows_rejected_read"),
        _count(accepted, "rows_accepted"),
        _count(validated.rejected, "rows_rejected_validate"),
        _count(questions, "distinct_questions"),
        _count(scored | "PassedGec" >> beam.Filter(lambda q: q.passed_gec), "passed_gec"),
        _count(scored | "PassedIntent" >> beam.Filter(lambda q: q.passed_intent), "passed_intent"),
        _count(scored | "PassedBothCount" >> beam.Filter(lambda q: q.passed_gec and q.passed_intent), "passed_both"),
        _count(selected["ranked"], "top_k"),
        (answers
         | "KeptRowCounts" >> beam.Map(lambda kv: kv[1][1])
         | "SumKeptRows" >> beam.CombineGlobally(sum)
         | "NameKeptRows" >> beam.Map(lambda n: ("kept_rows", n))),
        _count(rows, "published"),
        (accepted
         | "ProfileAccepted" >> beam.CombineGlobally(AcceptedProfileFn())
         | "NameProfile" >> beam.Map(lambda d: ("accepted_profile", d))),
        _count_by(rejected, "reject_reasons", lambda r: f"{r.stage}:{r.reason}"),
        _count_by(scored, "question_langs", lambda q: q.lang),
        _count_by(accepted, "row_langs", lambda r: r.lang),
        _count_by(rows, "qtypes", lambda r: r["qtype"]),
    ]
    _ = (counts
         | "AllCounts" >> beam.Flatten()
         | "CollectCounts" >> beam.combiners.ToList()
         | "WriteStats" >> beam.Map(_write_stats, staging=staging))
