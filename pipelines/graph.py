"""The build graph: every stage as a Beam transform, wired in one place (wiring only; the stages are
in pipelines.stages).

read -> validate -> count (fold into the saved state of earlier logs, if any)
     -> score -> paraphrase (one entry per meaning) -> select (top K entries)
     -> group answers (pooled over an entry's forms) -> embed (index vector + type)
     -> aggregate -> write store + index

Side outputs: rejected rows, every distinct question with its fate, a
deterministic sample of accepted rows, and a stats file of counts per stage
(and an accepted-rows length profile) computed as data (exact on every runner).

The model stages get their models from a :class:`models.registry.ModelFactory` (the registry's, for the
config, unless a caller gives another, as the tests do with small fakes).
"""

from __future__ import annotations

from pathlib import Path
from typing import NamedTuple

import apache_beam as beam

from models.registry import ModelFactory, RegistryModels
from pipelines.stages.aggregate import aggregate_transform
from pipelines.stages.count import CountQuestions, state_record, to_question_stats
from pipelines.stages.embed import embed_transform
from pipelines.stages.group import answer_group, pool_answers
from pipelines.stages.metering import MeteredMap
from pipelines.stages.outputs import WriteStore, count, count_by, named, parquet_sink, write_stats_of
from pipelines.stages.paraphrase import MergeParaphrases
from pipelines.stages.read import ReadLogs
from pipelines.stages.score import score_transform
from pipelines.stages.select import SelectTopK, question_rows
from pipelines.stages.validate import AcceptedProfileFn, ValidateRows, sample_rank, sample_record
from schemas import ACCEPTED_SAMPLE_SCHEMA, QUESTION_STATE_SCHEMA, QUESTIONS_SCHEMA, REJECTED_SCHEMA
from schemas.config import BuildConfig
from schemas.layout import ACCEPTED_SAMPLE_FILE, QUESTIONS_FILE, REJECTED_FILE, STATE_DIR

ACCEPTED_SAMPLE_ROWS = 5000


class Caches(NamedTuple):
    """Where a build's caches live (None: that cache is off)."""

    aggregation: str | None = None  # the aggregation cache's SQLite file
    folder: str | None = None  # the folder of the score and vector caches


def _join(element):
    key, grouped = element
    kept, groups = grouped["kept"], grouped["answers"]
    if not kept:
        return []
    if not groups:  # cannot happen: a kept question was counted from its own accepted rows
        raise RuntimeError(f"no answers grouped for kept question {key!r}")
    return [(kept[0], groups[0])]


def _read_and_validate(p, files: list[dict], cfg: BuildConfig, staging: str):
    """(read, validated, all rejects); writes rejected.parquet and the accepted-rows sample."""
    read = p | "Read" >> ReadLogs(files, cfg.input, cfg.limits)
    validated = read.rows | "Validate" >> ValidateRows(cfg.limits)
    rejected = (read.rejected, validated.rejected) | "AllRejects" >> beam.Flatten()
    _ = (rejected
         | "RejectRecords" >> beam.Map(lambda r: r._asdict())
         | "WriteRejected" >> parquet_sink(staging, REJECTED_FILE, REJECTED_SCHEMA))
    _ = (validated.accepted
         | "SampleAccepted" >> beam.combiners.Top.Smallest(ACCEPTED_SAMPLE_ROWS, key=sample_rank)
         | "SampleRecords" >> beam.FlatMap(lambda rows: [sample_record(r) for r in rows])
         | "WriteAcceptedSample" >> parquet_sink(staging, ACCEPTED_SAMPLE_FILE, ACCEPTED_SAMPLE_SCHEMA))
    return read, validated, rejected


def _count_questions(accepted, staging: str, previous_state: str | None):
    """(state per question key, QuestionStats); writes state/questions.parquet."""
    state = accepted | "Count" >> CountQuestions(previous_state)
    _ = (state
         | "StateRecords" >> beam.Map(state_record)
         | "WriteState" >> parquet_sink(str(Path(staging) / STATE_DIR), QUESTIONS_FILE, QUESTION_STATE_SCHEMA))
    questions = state | "ToQuestionStats" >> MeteredMap.of(
        "count", lambda kv: to_question_stats(kv[0], kv[1]))
    return state, questions


def _score_and_select(questions, cfg: BuildConfig, staging: str, factory: ModelFactory, caches: Caches):
    """(scored, merged, selected); writes questions.parquet with every question's scores and fate."""
    scored = questions | "Score" >> score_transform(factory, cfg.filter, cfg.models.batch_size, caches.folder)
    para = cfg.paraphrase
    merged = scored | "Paraphrase" >> MergeParaphrases(factory, para, cfg.models.batch_size)
    selected = merged["entries"] | "Select" >> SelectTopK(cfg.filter.top_k)
    _ = (merged["entries"]
         | "QuestionRecords" >> beam.FlatMap(question_rows, ranks=beam.pvalue.AsSingleton(selected["ranks"]))
         | "WriteQuestions" >> parquet_sink(staging, QUESTIONS_FILE, QUESTIONS_SCHEMA))
    return scored, merged, selected


def _aggregate_kept(state, selected, cfg: BuildConfig, factory: ModelFactory, caches: Caches):
    """(answer groups of the kept entries, pooled over their forms; qa rows with their vectors)."""
    max_answers = cfg.grouping.max_answers
    answers = (state
               | "KeptState" >> beam.FlatMap(lambda kv, entry_of: [(entry_of[kv[0]], kv[1][2])] if kv[0] in entry_of
                                             else [], entry_of=beam.pvalue.AsSingleton(selected["members"]))
               | "PerEntry" >> beam.GroupByKey()
               | "Group" >> MeteredMap.of("group", lambda kv: (kv[0], answer_group(pool_answers(kv[1]), max_answers))))
    kept = (selected["ranked"]
            | "Embed" >> embed_transform(factory, cfg.aggregation.subjective_threshold, cfg.models.batch_size)
            | "KeyKept" >> beam.Map(lambda k: (k.scored.key, k)))
    rows = ({"kept": kept, "answers": answers}
            | "JoinAnswers" >> beam.CoGroupByKey()
            | "Pair" >> beam.FlatMap(_join)
            | "Aggregate" >> aggregate_transform(factory, cfg.models.batch_size, caches.aggregation))
    return answers, rows


def _stats(read, validated, rejected, questions, scored, merged, selected, answers, rows) -> list:
    """Every count of stats.json, as (name, value) PCollections."""
    accepted = validated.accepted
    return [
        count(read.rows, "rows_parsed"),
        count(read.rejected, "rows_rejected_read"),
        count(accepted, "rows_accepted"),
        count(validated.rejected, "rows_rejected_validate"),
        count(questions, "distinct_questions"),
        count(scored | "PassedGec" >> beam.Filter(lambda q: q.passed_gec), "passed_gec"),
        count(scored | "PassedIntent" >> beam.Filter(lambda q: q.passed_intent), "passed_intent"),
        count(scored | "PassedBothCount" >> beam.Filter(lambda q: q.passed_gec and q.passed_intent), "passed_both"),
        count(merged["entries"] | "EligibleEntries" >> beam.Filter(lambda e: e.representative is not None),
              "entries"),
        named(merged["entries"] | "MergedCounts" >> beam.Map(lambda e: len(e.members) - 1), "merged_questions", sum),
        count(merged["pairs"], "paraphrase_pairs"),
        named(merged["pairs"] | "MergeDecisions" >> beam.Map(lambda kv: int(kv[1][1])), "paraphrase_merges", sum),
        count(selected["ranked"], "top_k"),
        named(answers | "KeptRowCounts" >> beam.Map(lambda kv: kv[1][1]), "kept_rows", sum),
        count(rows, "published"),
        named(accepted, "accepted_profile", AcceptedProfileFn()),
        count_by(rejected, "reject_reasons", lambda r: f"{r.stage}:{r.reason}"),
        count_by(scored, "question_langs", lambda q: q.lang),
        count_by(accepted, "row_langs", lambda r: r.lang),
        count_by(rows, "qtypes", lambda r: r["qtype"]),
    ]


def build_graph(p: beam.Pipeline, files: list[dict], cfg: BuildConfig, staging: str,
                caches: Caches = Caches(), previous_state: str | None = None,
                factory: ModelFactory | None = None) -> None:
    """``previous_state``: state/questions.parquet of the version this build continues (None: count these
    files alone); ``factory``: the models (default: the registry's for ``cfg``, with the vector cache)."""
    factory = factory or RegistryModels(cfg.models, cfg.aggregation, caches.folder, cfg.paraphrase)
    read, validated, rejected = _read_and_validate(p, files, cfg, staging)
    state, questions = _count_questions(validated.accepted, staging, previous_state)
    scored, merged, selected = _score_and_select(questions, cfg, staging, factory, caches)
    answers, rows = _aggregate_kept(state, selected, cfg, factory, caches)
    _ = rows | "Store" >> WriteStore(staging, cfg.index)
    write_stats_of(_stats(read, validated, rejected, questions, scored, merged, selected, answers, rows), staging)
