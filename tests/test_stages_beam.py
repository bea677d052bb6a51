"""Stage functions without Beam, and the wiring with TestPipeline + assert_that."""

from collections import Counter

import apache_beam as beam
from apache_beam.testing.test_pipeline import TestPipeline  # noqa: F401

TestPipeline.__test__ = False
from apache_beam.testing.util import assert_that, equal_to

from pipelines.count import CountQuestions, most_frequent
from pipelines.group import AnswerGroupFn, GroupAnswers, answer_group
from pipelines.records import AcceptedRow, ScoredQuestion
from pipelines.select import SelectTopK, question_row


def _row(q, a="ans", key=None):
    from pipelines.text import normalize_key

    return AcceptedRow(key or normalize_key(q), q, a, normalize_key(a), "en", "f:1")


def _scored(key, freq, ok=True):
    return ScoredQuestion(key, key, freq, "en", 1, 0.9, 0.9, "{}", "{}", ok, ok, {})


def test_most_frequent_breaks_ties_by_text():
    assert most_frequent({"b": 2, "a": 2, "c": 1}) == "a"


def test_answer_group_merges_caps_and_numbers():
    fn = AnswerGroupFn()
    acc = fn.create_accumulator()
    for key, text in [("paris", "Paris"), ("paris", "Paris."), ("paris", "Paris"), ("lyon", "Lyon"),
                      ("nice", "Nice"), ("nice", "Nice")]:
        acc = fn.add_input(acc, (key, text))
    merged = fn.merge_accumulators([acc, {"lyon": Counter({"Lyon": 1})}])
    top, total, distinct = answer_group(merged, max_answers=2)
    assert [(a.answer_id, a.text, a.count) for a in top] == [(1, "Paris", 3), (2, "Lyon", 2)]
    assert (total, distinct) == (7, 3)


def test_count_questions_graph():
    rows = [_row("What is X?"), _row("what is x"), _row("What is X?"), _row("Why Y?")]
    with TestPipeline() as p:
        out = p | beam.Create(rows) | CountQuestions() | beam.Map(lambda q: (q.key, q.question, q.frequency,
                                                                             q.surface_forms))
        assert_that(out, equal_to([("what is x", "What is X?", 3, 2), ("why y", "Why Y?", 1, 1)]))


def test_select_top_k_ranks_by_frequency_then_key():
    scored = [_scored("b", 5), _scored("a", 5), _scored("c", 9), _scored("d", 1), _scored("e", 99, ok=False)]
    with TestPipeline() as p:
        sel = p | beam.Create(scored) | SelectTopK(3)
        ranked = sel["ranked"] | beam.Map(lambda rq: (rq[0], rq[1].key))
        assert_that(ranked, equal_to([(1, "c"), (2, "a"), (3, "b")]), label="ranked")
        assert_that(sel["ranks"], equal_to([{"c": 1, "a": 2, "b": 3}]), label="ranks")


def test_question_row_reasons():
    ranks = {"a": 1}
    assert question_row(_scored("a", 3), ranks)["reason"] == ""
    assert question_row(_scored("b", 2), ranks)["reason"] == "below_top_k"
    low = _scored("c", 9)._replace(passed_gec=False)
    row = question_row(low, ranks)
    assert row["reason"] == "low_gec" and row["kept"] is False and row["rank"] is None


def test_group_answers_only_for_kept_keys():
    rows = [_row("What is X?", "One."), _row("what is x", "one"), _row("What is X?", "Two."), _row("Why Y?", "No.")]
    with TestPipeline() as p:
        accepted = p | "Rows" >> beam.Create(rows)
        keys = p | "Keys" >> beam.Create([frozenset({"what is x"})])
        out = (accepted | GroupAnswers(keys, max_answers=5))["groups"] | beam.MapTuple(
            lambda k, g: (k, [(a.answer_id, a.count) for a in g[0]], g[1], g[2]))
        assert_that(out, equal_to([("what is x", [(1, 2), (2, 1)], 3, 2)]))
