"""The quality gate: great-expectations 1.x suites, defined in code, run on a version before it is published.

An ephemeral GX context validates pandas batches of the staged files. Critical
expectations (a failure stops the publish, ``latest`` stays where it was):

* accepted log rows: on a deterministic sample (``accepted_sample.parquet``) non-empty
  question, answer and key strings within the length limits and a known language; on the
  exact profile of every accepted row (lengths, empties, count) the same bounds;
* scored questions (``questions.parquet``): GEC and intent scores in [0, 1], one row per key;
* the QA store (``qa.parquet``): unique ``qid`` and ``question_key``, frequency at least 1,
  rank consistent with frequency (never rising down the ranks), scores in [0, 1],
  non-empty answers, answer IDs within 1..n and each used at most once per question,
  ``qtype`` in {objective, subjective}, viewpoints present for subjective questions;
* the index: ``ntotal`` equals the rows, recall@10 at or above the floor;
* no personal data of an enabled kind (``privacy``) in the published text: questions, keys, forms, answers,
  summaries, the accepted sample and the rejects' previews (counts per file and column, never the values);
* the base has at least one entry, unless ``quality.allow_empty`` (``--allow-empty``): input where every row
  is bad must not replace a real base, nor start a new one, without being asked to (a warning when allowed).

Warnings (reported, never blocking): a base shorter than ``filter.top_k`` while eligible entries were
never judged (more candidates had no valid answer than ``non_answer.headroom`` allowed for); drift
against the previous published version:
the share of its questions carried over (``quality.min_carried_over``; also when the new base is empty) and
the shift of the mean GEC and intent scores (``quality.max_mean_score_shift``).

A result may carry a ``hint``: what to do about it, which the gate's refusal repeats.

With ``quality.data_docs`` (default on), GX's own Data Docs site for the version's
validations is written to ``data_docs/index.html`` beside the report, rewritten to work offline
(pipelines.release.offline_docs: GX loads its styles and scripts from CDNs).
"""

from __future__ import annotations

import logging
import os
from pathlib import Path

from schemas.layout import ACCEPTED_SAMPLE_FILE, DATA_DOCS_DIR, QA_FILE, QUESTIONS_FILE

CRITICAL, WARNING = "critical", "warning"
DATA_DOCS_SITE = "qabase"


class Validator:
    """One ephemeral GX context for one version: suites run as checkpoints, results kept for Data Docs."""

    def __init__(self):
        os.environ.setdefault("GX_ANALYTICS_ENABLED", "False")
        os.environ["TQDM_DISABLE"] = "1"  # GX draws a progress bar per validation; keep the build log readable
        import great_expectations as gx
        from great_expectations.data_context.types.base import ProgressBarsConfig

        for name in ("great_expectations", "great_expectations.core", "great_expectations.data_context",
                     "great_expectations.data_context.types.base"):
            logging.getLogger(name).setLevel(logging.ERROR)
        self.gx = gx
        self.ctx = gx.get_context(mode="ephemeral")
        self.ctx.variables.progress_bars = ProgressBarsConfig(globally=False, metric_calculations=False)
        self.source = self.ctx.data_sources.add_pandas(name="qabase")

    def run_suite(self, name: str, df, expectations: list[tuple[str, object]]) -> list[dict]:
        """Validate one pandas frame; one result dict per (severity, expectation)."""
        gx = self.gx
        batch_def = self.source.add_dataframe_asset(name=name).add_batch_definition_whole_dataframe(name)
        suite = self.ctx.suites.add(gx.ExpectationSuite(name=f"qabase.{name}"))
        for _, exp in expectations:
            suite.add_expectation(exp)
        definition = self.ctx.validation_definitions.add(gx.ValidationDefinition(data=batch_def, suite=suite,
                                                                                 name=name))
        checkpoint = self.ctx.checkpoints.add(gx.Checkpoint(name=name, validation_definitions=[definition]))
        run = checkpoint.run(batch_parameters={"dataframe": df})
        (result,) = run.run_results.values()
        out = []
        for (sev, _), r in zip(expectations, result.results):
            cfg = r.expectation_config
            res = r.result or {}
            out.append({"suite": name, "expectation": cfg.type, "column": cfg.kwargs.get("column"),
                        "severity": sev, "success": bool(r.success),
                        "unexpected_count": res.get("unexpected_count"),
                        "examples": [str(x)[:80] for x in (res.get("partial_unexpected_list") or [])[:3]]})
        return out

    def write_data_docs(self, folder: Path) -> Path:
        """GX's own Data Docs site for this version's validations, made to work offline; returns its index.html."""
        from pipelines.release.offline_docs import make_offline

        self.ctx.add_data_docs_site(site_name=DATA_DOCS_SITE, site_config={
            "class_name": "SiteBuilder",
            "site_index_builder": {"class_name": "DefaultSiteIndexBuilder"},
            "store_backend": {"class_name": "TupleFilesystemStoreBackend",
                              "base_directory": str(folder.resolve())}})  # GX needs it absolute
        self.ctx.build_data_docs(site_names=[DATA_DOCS_SITE])
        make_offline(folder)
        return folder / "index.html"


def _qa_frame(path: Path, time_policy: str = "flag", injection_policy: str = "exclude"):
    import pandas as pd
    import pyarrow.parquet as pq

    rows = pq.read_table(path).to_pylist()
    prev = None
    for r in rows:
        answers = r["answers"] or []
        bad = {a["answer_id"] for a in answers if a.get("non_answer")}
        # a reviewer's answer (docs/review.md) is the entry's answer whatever its logged answers were
        reviewed = set(r.get("reviewed") or [])
        # non-answers: at least one answer answers; none is the published answer nor in a viewpoint; counted
        r["has_valid_answer"] = len(bad) < len(answers) or "answer" in reviewed
        # an LLM (or a reviewer) writes its own answer text (it may read like a shown non-answer); its viewpoints'
        # ids still count
        own_text = str(r.get("method", "")).startswith("llm") or "answer" in reviewed
        r["non_answers_excluded"] = ((own_text or r["answer"] not in {a["text"] for a in answers if a["answer_id"] in bad})
                                     and not any(i in bad for v in (r["viewpoints"] or []) for i in v["answer_ids"]))
        # injection.policy exclude: no instruction-like answer is the published answer nor in a viewpoint
        hostile = {a["answer_id"] for a in answers if a.get("instruction_like")}
        r["instruction_like_excluded"] = injection_policy != "exclude" or not hostile or (
            (own_text or r["answer"] not in {a["text"] for a in answers if a["answer_id"] in hostile})
            and not any(i in hostile for v in (r["viewpoints"] or []) for i in v["answer_ids"])
            and not r.get("instruction_like"))
        r["non_answers_counted"] = (r.get("non_answers", 0) == sum(a["count"] for a in answers if a["answer_id"] in bad)
                                    <= r["total_answers"])
        period = r.get("logs_period")
        # a reviewer's time_sensitive or keep decision overrides the policy for the entry
        r["time_policy_respected"] = (time_policy == "flag" or not r.get("time_sensitive")
                                      or bool(reviewed & {"time_sensitive", "keep"}))
        r["logs_period_valid"] = period is None or (bool(period["first"]) and period["first"] <= period["last"])
        r["rank_follows_frequency"] = prev is None or r["frequency"] <= prev
        prev = r["frequency"]
        ids = [a["answer_id"] for a in (r["answers"] or [])]
        used = [i for v in (r["viewpoints"] or []) for i in v["answer_ids"]]
        r["answer_ids_valid"] = (sorted(ids) == list(range(1, len(ids) + 1)) and len(used) == len(set(used))
                                 and all(1 <= i <= len(ids) for i in used))
        # a reviewer's answer is the entry's one answer: it needs no viewpoints
        r["viewpoints_present"] = r["qtype"] != "subjective" or bool(r["viewpoints"]) or "answer" in reviewed
        forms = [a["question"] for a in (r.get("aliases") or [])]
        r["aliases_valid"] = bool(forms) and forms[0] == r["question"] and \
            sum(a["count"] for a in r["aliases"]) == r["frequency"]
        # reliability: the product of its parts, each in [0, 1]; agreeing rows are answer rows that answer
        parts = r.get("reliability_parts") or {}
        product = 1.0
        for value in parts.values():
            product *= value
        valid_rows = sum(a["count"] for a in answers if a["answer_id"] not in bad)
        r["reliability_valid"] = (bool(parts) and all(0.0 <= v <= 1.0 for v in parts.values())
                                  and abs(product - r.get("reliability", -1.0)) <= 1e-5
                                  and 0 <= r.get("agreeing_answers", -1) <= valid_rows
                                  and r.get("contradicted") == (r.get("contradicting_answers", 0) > 0))
        for k in ("answers", "viewpoints", "flags", "aliases", "logs_period", "reliability_parts"):
            r.pop(k, None)
    return pd.DataFrame(rows)


LANGS = ["en", "zh", "mixed", "other"]


def _accepted_suites(v: Validator, E, staging: Path, limits, stats: dict) -> list[dict]:
    import pandas as pd
    import pyarrow.parquet as pq

    results: list[dict] = []
    sample_path = staging / ACCEPTED_SAMPLE_FILE
    sample = pq.read_table(sample_path).to_pandas() if sample_path.is_file() else pd.DataFrame()
    if len(sample):
        results += v.run_suite("accepted_rows", sample, [
            (CRITICAL, E.ExpectColumnValuesToNotBeNull(column="question")),
            (CRITICAL, E.ExpectColumnValuesToNotBeNull(column="answer")),
            (CRITICAL, E.ExpectColumnValueLengthsToBeBetween(column="question", min_value=1,
                                                             max_value=limits.max_question_chars)),
            (CRITICAL, E.ExpectColumnValueLengthsToBeBetween(column="answer", min_value=1,
                                                             max_value=limits.max_answer_chars)),
            (CRITICAL, E.ExpectColumnValueLengthsToBeBetween(column="key", min_value=1)),
            (CRITICAL, E.ExpectColumnValuesToBeUnique(column="row_id")),
            (CRITICAL, E.ExpectColumnValuesToBeInSet(column="lang", value_set=LANGS)),
        ])
    profile = stats.get("accepted_profile")
    if profile and profile.get("rows"):
        frame = pd.DataFrame([dict(profile, rows_match=profile["rows"] == stats.get("rows_accepted"))])
        results += v.run_suite("accepted_rows_profile", frame, [
            (CRITICAL, E.ExpectColumnValuesToBeInSet(column="rows_match", value_set=[True])),
            (CRITICAL, E.ExpectColumnValuesToBeBetween(column="question_chars_min", min_value=1)),
            (CRITICAL, E.ExpectColumnValuesToBeBetween(column="question_chars_max",
                                                       max_value=limits.max_question_chars)),
            (CRITICAL, E.ExpectColumnValuesToBeBetween(column="answer_chars_min", min_value=1)),
            (CRITICAL, E.ExpectColumnValuesToBeBetween(column="answer_chars_max",
                                                       max_value=limits.max_answer_chars)),
            (CRITICAL, E.ExpectColumnValuesToBeBetween(column="empty_key", max_value=0)),
        ])
    return results


def _previous_base(previous: Path | None):
    """The previous published version's questions and scores (an empty frame when there is none)."""
    import pandas as pd
    import pyarrow.parquet as pq

    columns = ["question_key", "gec_score", "intent_score"]
    if previous is None or not (previous / QA_FILE).is_file():
        return pd.DataFrame(columns=columns)
    return pq.read_table(previous / QA_FILE, columns=columns).to_pandas()


def _not_empty_suite(v: Validator, E, entries: int, previous_entries: int, allow_empty: bool,
                     previous: Path | None) -> list[dict]:
    """A base with no entry is refused unless allowed: every row rejected, or thresholds no question passes,
    would otherwise replace a real base with nothing (and exit 0)."""
    import pandas as pd

    severity = WARNING if allow_empty else CRITICAL
    results = v.run_suite("base", pd.DataFrame([{"entries": entries}]), [
        (severity, E.ExpectColumnValuesToBeBetween(column="entries", min_value=1))])
    if entries == 0:
        before = (f"the previous version {previous.name} has {previous_entries:,}" if previous is not None
                  else "no version was published before")
        for r in results:
            r["hint"] = (f"the new base has 0 entries ({before}); to publish an empty base anyway, pass --allow-empty "
                         "or set quality.allow_empty: true" if not allow_empty
                         else f"an empty base is published (quality.allow_empty: true; {before})")
    return results


def _drift_suite(v: Validator, E, qa, old, q) -> tuple[dict, list[dict]]:
    """Drift against the previous published version (warnings). An empty new base carries nothing over: said,
    not skipped; the score shifts need scores on both sides."""
    import pandas as pd

    if not len(old):
        return {}, []
    drift = {"carried_over": float(old["question_key"].isin(set(qa["question_key"]) if len(qa) else set()).mean())}
    expectations = [(WARNING, E.ExpectColumnValuesToBeBetween(column="carried_over", min_value=q.min_carried_over))]
    if len(qa):
        drift["gec_mean_shift"] = float(abs(qa["gec_score"].mean() - old["gec_score"].mean()))
        drift["intent_mean_shift"] = float(abs(qa["intent_score"].mean() - old["intent_score"].mean()))
        expectations += [
            (WARNING, E.ExpectColumnValuesToBeBetween(column="gec_mean_shift", max_value=q.max_mean_score_shift)),
            (WARNING, E.ExpectColumnValuesToBeBetween(column="intent_mean_shift", max_value=q.max_mean_score_shift)),
        ]
    return drift, v.run_suite("drift", pd.DataFrame([drift]), expectations)


def _privacy_suite(v: Validator, E, staging: Path, privacy) -> list[dict]:
    """Counts of published values in which an enabled kind is still found: all 0, or the version is refused (a
    value written past the redaction, by a bug or on purpose, never reaches ``latest``)."""
    import pandas as pd

    from schemas.privacy.audit import personal_data_counts

    redactor = privacy.redactor()
    if not redactor.active:
        return []
    counts = personal_data_counts(staging, redactor)
    frame = pd.DataFrame([{"where": where, "personal_data": n} for where, n in counts.items()])
    results = v.run_suite("personal_data", frame, [
        (CRITICAL, E.ExpectColumnValuesToBeBetween(column="personal_data", max_value=0))])
    found = [f"{where} ({n})" for where, n in counts.items() if n]
    for r in results:
        r["examples"] = found[:3]  # where, never what
        if found:
            r["hint"] = (f"personal data ({', '.join(redactor.kinds)}) in the published text of {', '.join(found)}; "
                         "every field is redacted at validation, so this was written past it")
    return results


def validate_version(staging: Path, index_facts: dict, cfg, stats: dict, previous: Path | None = None) -> dict:
    """Run every suite on a staged version; ``cfg`` is the BuildConfig, ``stats`` the graph's counts."""
    import pandas as pd
    import pyarrow.parquet as pq

    v = Validator()
    E = v.gx.expectations
    recall_floor = cfg.index.recall_floor
    results: list[dict] = _accepted_suites(v, E, staging, cfg.limits, stats)
    questions = pq.read_table(staging / QUESTIONS_FILE, columns=["question_key", "gec_score", "intent_score", "qid",
                                                                 "non_answer_share", "time_sensitive_score"]).to_pandas()
    qa = _qa_frame(staging / QA_FILE, cfg.time_sensitive.policy, cfg.injection.policy)
    # every question counted toward an entry points at an entry of the base (paraphrase merging)
    questions["qid_in_base"] = questions["qid"].isna() | questions["qid"].isin(set(qa["qid"]) if len(qa) else set())
    results += v.run_suite("scored_questions", questions, [
        (CRITICAL, E.ExpectColumnValuesToBeBetween(column="gec_score", min_value=0.0, max_value=1.0)),
        (CRITICAL, E.ExpectColumnValuesToBeBetween(column="intent_score", min_value=0.0, max_value=1.0)),
        (CRITICAL, E.ExpectColumnValuesToBeUnique(column="question_key")),
        (CRITICAL, E.ExpectColumnValuesToBeInSet(column="qid_in_base", value_set=[True])),
        (CRITICAL, E.ExpectColumnValuesToBeBetween(column="non_answer_share", min_value=0.0, max_value=1.0)),
        (CRITICAL, E.ExpectColumnValuesToBeBetween(column="time_sensitive_score", min_value=0.0, max_value=1.0)),
    ])
    if len(qa):
        results += v.run_suite("qa_store", qa, [
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
            # the representative is the first alias, and the entry's asks are its forms' asks summed
            (CRITICAL, E.ExpectColumnValuesToBeInSet(column="aliases_valid", value_set=[True])),
            # no entry whose every answer is a non-answer; none wins the vote or holds a viewpoint; all counted
            (CRITICAL, E.ExpectColumnValuesToBeInSet(column="has_valid_answer", value_set=[True])),
            (CRITICAL, E.ExpectColumnValuesToBeInSet(column="non_answers_excluded", value_set=[True])),
            (CRITICAL, E.ExpectColumnValuesToBeInSet(column="non_answers_counted", value_set=[True])),
            (CRITICAL, E.ExpectColumnValuesToBeInSet(column="instruction_like_excluded", value_set=[True])),
            # time_sensitive.policy: drop leaves none in the base, keep flags none
            (CRITICAL, E.ExpectColumnValuesToBeInSet(column="time_policy_respected", value_set=[True])),
            (CRITICAL, E.ExpectColumnValuesToBeInSet(column="logs_period_valid", value_set=[True])),
            (CRITICAL, E.ExpectColumnValuesToBeBetween(column="reliability", min_value=0.0, max_value=1.0)),
            (CRITICAL, E.ExpectColumnValuesToBeInSet(column="reliability_valid", value_set=[True])),
        ])
    index = pd.DataFrame([{"ntotal_matches_rows": index_facts["ntotal"] == len(qa),
                           "recall_at_10": float(index_facts.get("recall_at_10", 1.0))}])
    results += v.run_suite("index", index, [
        (CRITICAL, E.ExpectColumnValuesToBeInSet(column="ntotal_matches_rows", value_set=[True])),
        (CRITICAL, E.ExpectColumnValuesToBeBetween(column="recall_at_10", min_value=recall_floor)),
    ])
    # the base came out smaller than K while eligible entries were left unjudged: more candidates had no valid
    # answer than non_answer.headroom allowed for (raising it fills the base; the base is right, just short)
    k = cfg.filter.top_k
    short = len(qa) < k and stats.get("entries", 0) > stats.get("candidates_judged", 0)
    results += v.run_suite("fill", pd.DataFrame([{"headroom_sufficient": not short}]), [
        (WARNING, E.ExpectColumnValuesToBeInSet(column="headroom_sufficient", value_set=[True])),
    ])
    if short:
        logging.getLogger(__name__).warning(
            "the base has %d entries, fewer than filter.top_k %d, while %d eligible entries were never judged: %d of the "
            "%d candidates had no valid answer; raise non_answer.headroom (now %s) to fill it", len(qa), k,
            stats.get("entries", 0) - stats.get("candidates_judged", 0), stats.get("no_valid_answer", 0),
            stats.get("candidates_judged", 0), cfg.non_answer.headroom)
    results += _privacy_suite(v, E, staging, cfg.privacy)
    old = _previous_base(previous)
    results += _not_empty_suite(v, E, len(qa), len(old), cfg.quality.allow_empty, previous)
    drift, drift_results = _drift_suite(v, E, qa, old, cfg.quality)
    results += drift_results
    failed = [r for r in results if not r["success"]]
    out = {"results": results, "drift": drift,
           "critical_failures": [r for r in failed if r["severity"] == CRITICAL],
           "warnings": [r for r in failed if r["severity"] == WARNING],
           "great_expectations": v.gx.__version__}
    if cfg.quality.data_docs:
        out["data_docs"] = str(v.write_data_docs(staging / DATA_DOCS_DIR).relative_to(staging))
    return out
