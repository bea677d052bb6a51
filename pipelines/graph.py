"""The build graph: every stage as a Beam transform, wired in one place (wiring only; the stages are
in pipelines.stages, what they run on Beam with in pipelines.beam).

read -> validate -> count (fold into the saved state of earlier logs, if any)
     -> paraphrase (every distinct question placed in its language space; one entry per meaning)
     -> score + time (time-sensitive?), entries in frequency order, only as far as the top K needs
     -> select candidates (top K + headroom) -> nonanswer (their answers pooled over an entry's forms,
        each judged: an entry with no valid answer leaves) -> select (top K) -> embed (index vector + type)
     -> aggregate (non-answers, and instruction-like answers under injection.policy exclude, never vote)
     -> write store + index

A review file's decisions (schemas.review; docs/review.md) ride along: merges and splits in the paraphrase grouping,
the others on each entry they touch (Entry.review) from there on: exclude and keep where eligibility is decided,
time_sensitive where the entry's flag is set, answer at aggregation.

Side outputs: rejected rows, every distinct question with its fate, a
deterministic sample of accepted rows, and a stats file of counts per stage
(and an accepted-rows length profile) computed as data (exact on every runner).

The model stages get their models from a :class:`models.factory.ModelFactory` (the registry's, for the
config, unless a caller gives another, as the tests do with small fakes).
"""

from __future__ import annotations

import math
from typing import NamedTuple

import apache_beam as beam
from apache_beam.io.filesystems import FileSystems

from models.factory import ModelFactory, RegistryModels, shut_out_flags
from models.timesensitive.answers import reads_answers
from pipelines.beam.metering import MeteredMap, total_of
from pipelines.beam.sinks import combined, count, count_by, count_by_each, parquet_sink, stats_of, total, write_stats_of
from pipelines.stages.aggregate import aggregate_transform
from pipelines.stages.count import CountQuestions, ToQuestionStats, state_record
from pipelines.stages.embed import embed_transform
from pipelines.stages.frontier import ScoreFrontier
from pipelines.stages.nonanswer import nonanswer_transform
from pipelines.stages.paraphrase import MergeParaphrases
from pipelines.stages.read import ReadLogs
from pipelines.stages.score import unscored
from pipelines.stages.select import SelectTopK, eligible, has_answer, question_rows
from pipelines.stages.validate import (
    AcceptedProfileFn,
    ValidateRows,
    redact_reject,
    redaction_kinds,
    sample_rank,
    sample_record,
)
from pipelines.stages.write import WriteStore
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


def _read_and_validate(p, files: list[dict], cfg: BuildConfig, staging: str, sinks: list):
    """(read, validated, all rejects); writes rejected.parquet and the accepted-rows sample."""
    redactor = cfg.privacy.redactor()
    read = p | "Read" >> ReadLogs(files, cfg.input, cfg.limits)
    validated = read.rows | "Validate" >> ValidateRows(cfg.limits, cfg.input, redactor)
    rejected = ((read.rejected, validated.rejected)
                | "AllRejects" >> beam.Flatten()
                | "RedactRejects" >> beam.Map(redact_reject, redactor))
    sinks.append(rejected
                 | "RejectRecords" >> beam.Map(lambda r: r._asdict())
                 | "WriteRejected" >> parquet_sink(staging, REJECTED_FILE, REJECTED_SCHEMA))
    sinks.append(validated.accepted
                 | "SampleAccepted" >> beam.combiners.Top.Smallest(ACCEPTED_SAMPLE_ROWS, key=sample_rank)
                 | "SampleRecords" >> beam.FlatMap(lambda rows: [sample_record(r) for r in rows])
                 | "WriteAcceptedSample" >> parquet_sink(staging, ACCEPTED_SAMPLE_FILE, ACCEPTED_SAMPLE_SCHEMA))
    return read, validated, rejected


def _count_questions(accepted, staging: str, previous_state: str | None, sinks: list, cache_dir: str | None = None):
    """(state per question key, QuestionStats); writes state/questions.parquet."""
    state = accepted | "Count" >> CountQuestions(previous_state)
    sinks.append(state
                 | "StateRecords" >> beam.Map(state_record)
                 | "WriteState" >> parquet_sink(FileSystems.join(staging, STATE_DIR), QUESTIONS_FILE,
                                                QUESTION_STATE_SCHEMA))
    questions = state | "ToQuestionStats" >> MeteredMap.of(
        "count", ToQuestionStats(cache_dir), total=total_of(state, "CountedQuestions"))
    return state, questions


def _merge_and_score(questions, cfg: BuildConfig, factory: ModelFactory, caches: Caches, review: tuple = ()):
    """(merged, scored): every distinct question placed in its language space and merged into entries (one
    per meaning), then the entries scored in frequency order only as far as the top K needs
    (pipelines.stages.frontier): merged['entries'] holds every entry, scored or not."""
    merged = (questions
              | "Unscored" >> beam.Map(unscored)
              | "Paraphrase" >> MergeParaphrases(factory, cfg.paraphrase, cfg.models.batch_size, review))
    frontier = merged["entries"] | "Score" >> ScoreFrontier(
        factory, cfg.filter, candidates_needed(cfg), cfg.time_sensitive.policy == "drop",
        cfg.time_sensitive.policy != "keep", cfg.models.batch_size, caches.folder, cfg.time_sensitive.threshold)
    return {"entries": frontier["entries"], "pairs": merged["pairs"]}, frontier["scored"]


def candidates_needed(cfg: BuildConfig) -> int:
    """Eligible entries whose answers are judged: the top K plus the non-answer headroom."""
    k = cfg.filter.top_k
    return k + math.ceil(round(k * cfg.non_answer.headroom, 9))


def _pair_candidate(element):
    _, grouped = element
    entries, answers = grouped["entry"], grouped["answers"]
    if not entries:
        return []
    return [(entries[0], sorted(answers[0]) if answers else [])]


def _select(state, merged, cfg: BuildConfig, staging: str, factory: ModelFactory, sinks: list, caches: Caches):
    """(judged, selected): the candidates' (Entry, AnswerGroup); the top K of those with a valid answer.
    Writes questions.parquet with every question's scores (where scored) and fate."""
    drop = cfg.time_sensitive.policy == "drop"
    k = cfg.filter.top_k
    candidates = (merged["entries"]
                  | "Eligible" >> beam.Filter(eligible, drop)
                  | "Candidates" >> SelectTopK(candidates_needed(cfg), label="select candidates"))
    member_answers = (state
                      | "CandidateState" >> beam.FlatMap(
                          lambda kv, entry_of: [(entry_of[kv[0]], (kv[0], kv[1][2]))] if kv[0] in entry_of else [],
                          entry_of=beam.pvalue.AsSingleton(candidates["members"]))
                      | "PerEntry" >> beam.GroupByKey())
    judged = ({"entry": candidates["ranked"] | "KeyCandidates" >> beam.Map(lambda r: (r[1].key, r[1])),
               "answers": member_answers}
              | "JoinCandidateAnswers" >> beam.CoGroupByKey()
              | "PairCandidates" >> beam.FlatMap(_pair_candidate)
              | "JudgeAnswers" >> nonanswer_transform(factory, cfg.models.batch_size, cfg.grouping.max_answers,
                                                      shut_out_flags(cfg), caches.folder))
    selected = (judged
                | "HasValidAnswer" >> beam.Filter(lambda eg: has_answer(*eg))
                | "Select" >> SelectTopK(k, label="select top k"))
    table = (judged
             | "JudgedRecords" >> beam.Map(lambda eg: (eg[0].key, (has_answer(*eg), eg[1].shares,
                                                                  eg[1].withheld_reason)))
             | "JudgedTable" >> beam.combiners.ToDict())
    sinks.append(merged["entries"]
         | "QuestionRecords" >> beam.FlatMap(question_rows, ranks=beam.pvalue.AsSingleton(selected["ranks"]),
                                             judged=beam.pvalue.AsSingleton(table), drop_time_sensitive=drop)
         | "WriteQuestions" >> parquet_sink(staging, QUESTIONS_FILE, QUESTIONS_SCHEMA))
    return judged, selected


def _aggregate_kept(selected, cfg: BuildConfig, factory: ModelFactory, caches: Caches):
    """qa rows (with their vectors) of the top K entries: embedded, typed and aggregated over their judged
    answers (pooled over their forms; non-answers never vote)."""
    kept = (selected["ranked"]
            | "RankedEntries" >> beam.Map(lambda r: (r[0], r[1][0]))
            | "Embed" >> embed_transform(factory, cfg.aggregation.subjective_threshold, cfg.models.batch_size)
            | "KeyKept" >> beam.Map(lambda k: (k.scored.key, k)))
    groups = selected["ranked"] | "KeyGroups" >> beam.Map(lambda r: (r[1][0].key, r[1][1]))
    return ({"kept": kept, "answers": groups}
            | "JoinAnswers" >> beam.CoGroupByKey()
            | "Pair" >> beam.FlatMap(_join)
            | "Aggregate" >> aggregate_transform(factory, cfg.models.batch_size, caches.aggregation,
                                                 reads_answers(cfg.time_sensitive)))


def _stats(read, validated, rejected, questions, scored, merged, judged, selected, rows, kinds) -> list:
    """Every count of stats.json, as (name, value) PCollections: one combine per PCollection (sinks.StatsFn)."""
    accepted = validated.accepted
    return [
        stats_of(read.rows, "Parsed", count("rows_parsed")),
        stats_of(read.rejected, "RejectedRead", count("rows_rejected_read")),
        stats_of(accepted, "Accepted", count("rows_accepted"), combined("accepted_profile", AcceptedProfileFn()),
                 count_by("row_langs", lambda r: r.lang),
                 # placeholders per kind in the accepted rows (never the values); summed over increments as row
                 # counts are
                 count_by_each("redactions", lambda r, k=kinds: redaction_kinds(r, k))),
        stats_of(validated.rejected, "RejectedValidate", count("rows_rejected_validate")),
        stats_of(rejected, "Rejected", count_by("reject_reasons", lambda r: f"{r.stage}:{r.reason}")),
        stats_of(questions, "Questions", count("distinct_questions"), count_by("question_langs", lambda q: q.lang)),
        stats_of(scored, "Scored", count("questions_scored"), count("passed_gec", lambda q: q.passed_gec),
                 count("passed_intent", lambda q: q.passed_intent),
                 count("passed_both", lambda q: q.passed_gec and q.passed_intent),
                 count("time_sensitive_questions", lambda q: q.time_sensitive)),
        stats_of(merged["entries"], "Entries", count("entries_formed"),
                 count("entries", lambda e: e.representative is not None),
                 total("merged_questions", lambda e: len(e.members) - 1)),
        stats_of(merged["pairs"], "Pairs", count("paraphrase_pairs"),
                 total("paraphrase_merges", lambda kv: int(kv[1][1]))),
        stats_of(judged, "Judged", count("candidates_judged"),
                 count("no_valid_answer", lambda eg: not has_answer(*eg)),
                 total("answers_judged", lambda eg: len(eg[1].answers)),
                 total("non_answers_judged", lambda eg: sum(a.non_answer for a in eg[1].answers)),
                 total("instruction_like_judged", lambda eg: sum(a.instruction_like for a in eg[1].answers)),
                 count("instruction_like_withheld", lambda eg: eg[1].withheld_reason == "instruction_like")),
        stats_of(selected["ranked"], "TopK", count("top_k"), total("kept_rows", lambda r: r[1][1].total),
                 total("kept_non_answer_rows", lambda r: r[1][1].non_answer_rows)),
        stats_of(rows, "Published", count("published"),
                 count("published_time_sensitive", lambda r: r["time_sensitive"]),
                 count("published_instruction_like", lambda r: r["instruction_like"]),
                 count_by("qtypes", lambda r: r["qtype"])),
    ]


def build_graph(p: beam.Pipeline, files: list[dict], cfg: BuildConfig, staging: str,
                caches: Caches = Caches(), previous_state: str | None = None,
                factory: ModelFactory | None = None, review: tuple = ()) -> None:
    """``previous_state``: state/questions.parquet of the version this build continues (None: count these
    files alone); ``factory``: the models (default: the registry's for ``cfg``, with the vector cache);
    ``review``: the review file's decisions (schemas.review.Decision), applied to every entry they touch."""
    factory = factory or RegistryModels.of(cfg, caches.folder)
    sinks: list = []  # every write's result
    read, validated, rejected = _read_and_validate(p, files, cfg, staging, sinks)
    state, questions = _count_questions(validated.accepted, staging, previous_state, sinks, caches.folder)
    merged, scored = _merge_and_score(questions, cfg, factory, caches, review)
    judged, selected = _select(state, merged, cfg, staging, factory, sinks, caches)
    rows = _aggregate_kept(selected, cfg, factory, caches)
    sinks.append(rows | "Store" >> WriteStore(staging, cfg.index, cfg.topics))
    kinds = cfg.privacy.redactor().kinds
    sinks.append(write_stats_of(_stats(read, validated, rejected, questions, scored, merged, judged, selected, rows,
                                       kinds), staging))
    # One last step that depends on every write: Beam's Dask runner computes only the graph of the last
    # step it translates, so a write that no later step consumes would never run there.
    _ = (sinks
         | "AllWrites" >> beam.Flatten()
         | "WritesDone" >> beam.combiners.Count.Globally())
