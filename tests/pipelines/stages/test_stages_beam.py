"""Stage functions without Beam, and the wiring with TestPipeline + assert_that."""

from collections import Counter

import apache_beam as beam
from apache_beam.testing.test_pipeline import TestPipeline  # noqa: F401

TestPipeline.__test__ = False
from apache_beam.testing.util import assert_that, equal_to

from pipelines.stages.count import (
    CountQuestions,
    QuestionStateFn,
    most_frequent,
    row_value,
    state_record,
    state_value,
    to_question_stats,
)
from pipelines.stages.group import answer_group
from pipelines.stages.paraphrase import make_entry
from pipelines.stages.select import SelectTopK, question_rows
from schemas.records import AcceptedRow, ScoredQuestion


def _row(q, a="ans", key=None, seen="1"):
    from schemas.text import normalize_key

    return AcceptedRow(key or normalize_key(q), q, a, normalize_key(a), "en", "f:1", seen)


def _scored(key, freq, ok=True):
    return ScoredQuestion(key, key, freq, "en", 1, 0.9, 0.9, "{}", "{}", ok, ok, {})


def _entry(q):
    return make_entry([q], {})


def test_most_frequent_breaks_ties_by_text():
    assert most_frequent({"b": 2, "a": 2, "c": 1}) == "a"


def test_answer_group_merges_caps_and_numbers():
    fn = QuestionStateFn()
    acc = fn.create_accumulator()
    for key, text in [("paris", "Paris"), ("paris", "Paris."), ("paris", "Paris"), ("lyon", "Lyon"),
                      ("nice", "Nice"), ("nice", "Nice")]:
        acc = fn.add_input(acc, ("Q?", "en", key, text, "2026-03-02T10:00:00Z\x1fa.jsonl"))
    merged = fn.merge_accumulators([acc, (Counter({"Q?": 1}), Counter({"en": 1}), {"lyon": Counter({"Lyon": 1})},
                                          "2026-03-01T09:00:00Z\x1fb.jsonl", ("2026-03-01", "2026-03-01"))])
    assert merged[3].startswith("2026-03-01")  # the earliest row of either
    assert merged[4] == ("2026-03-01", "2026-03-02")  # the period of the rows' dates
    top, total, distinct = answer_group(merged[2], max_answers=2)
    assert [(a.answer_id, a.text, a.count) for a in top] == [(1, "Paris", 3), (2, "Lyon", 2)]
    assert (total, distinct) == (7, 3)


def test_count_questions_graph():
    rows = [_row("What is X?"), _row("what is x"), _row("What is X?"), _row("Why Y?")]
    with TestPipeline() as p:
        out = p | beam.Create(rows) | CountQuestions() | beam.Map(
            lambda kv: to_question_stats(kv[0], kv[1])) | beam.Map(
            lambda q: (q.key, q.question, q.frequency, q.surface_forms))
        assert_that(out, equal_to([("what is x", "What is X?", 3, 2), ("why y", "Why Y?", 1, 1)]))


def test_select_top_k_ranks_by_frequency_then_key():
    scored = [_scored("b", 5), _scored("a", 5), _scored("c", 9), _scored("d", 1), _scored("e", 99, ok=False)]
    with TestPipeline() as p:
        sel = p | beam.Create([_entry(q) for q in scored]) | SelectTopK(3)
        ranked = sel["ranked"] | beam.Map(lambda rq: (rq[0], rq[1].key))
        assert_that(ranked, equal_to([(1, "c"), (2, "a"), (3, "b")]), label="ranked")
        assert_that(sel["ranks"], equal_to([{"c": 1, "a": 2, "b": 3}]), label="ranks")


def test_question_row_reasons():
    ranks = {"a": 1}
    (row,) = question_rows(_entry(_scored("a", 3)), ranks)
    assert row["reasons"] == [] and row["kept"] and row["qid"] is not None
    (row,) = question_rows(_entry(_scored("b", 2)), ranks)
    assert row["reasons"] == ["below_top_k"] and row["qid"] is None
    (row,) = question_rows(_entry(_scored("c", 9)._replace(passed_gec=False)), ranks)
    assert row["reasons"] == ["low_gec"] and row["kept"] is False and row["rank"] is None


def test_state_round_trips_and_folding_two_days_equals_counting_them_together():
    """Counts are added, so (day 1 state) + day 2 rows == day 1 + day 2 rows; the saved record round-trips."""
    day1 = [_row("What is X?", "One.", seen="1b"), _row("what is x", "one", seen="1a"), _row("Why Y?", "No.")]
    day2 = [_row("What is X?", "Two.", seen="2"), _row("why y", "No.", seen="0"), _row("How Z?", "So.", seen="2")]
    fn = QuestionStateFn()

    def fold(rows, start=None):
        accs = dict(start or {})
        for r in rows:
            accs[r.key] = fn.add_input(accs.get(r.key, fn.create_accumulator()), row_value(r))
        return accs

    together = fold(day1 + day2)
    saved = {k: state_value(state_record((k, v)))[1] for k, v in fold(day1).items()}
    continued = {k: fn.merge_accumulators([fn.create_accumulator(), v]) for k, v in saved.items()}
    continued = fold(day2, continued)
    assert {k: state_record((k, v)) for k, v in continued.items()} == \
        {k: state_record((k, v)) for k, v in together.items()}
    assert state_record(("what is x", together["what is x"]))["first_seen"] == "1a"
    assert state_record(("why y", continued["why y"]))["first_seen"] == "0"
    assert state_record(("what is x", together["what is x"]))["answers"] == [
        {"answer_key": "one", "forms": [{"text": "One.", "count": 1}, {"text": "one", "count": 1}]},
        {"answer_key": "two", "forms": [{"text": "Two.", "count": 1}]}]


def test_the_answer_judges_get_whole_batches_of_answers_not_of_groups():
    # a real log's group holds about one answer: batches of groups left the pair model a few answers a call
    from pipelines.stages.nonanswer import NonAnswerHandler

    handler = NonAnswerHandler(None, batch_size=8, max_answers=3)
    groups = [(f"entry {i}", [(f"q{i}", {f"a{j}": Counter({f"A{j}": 1}) for j in range(i % 5)})])
              for i in range(40)]
    sizes = [handler.element_size((g, 40)) for g in groups]
    assert sizes[:6] == [1, 1, 2, 3, 3, 1]  # distinct answers, at most max_answers, and a group with none counts 1
    with TestPipeline() as p:
        batches = (p | beam.Create([(g, 40) for g in groups]) | beam.BatchElements(**handler.batch_elements_kwargs())
                   | beam.Map(lambda b: sum(handler.element_size(e) for e in b)))
        assert_that(batches, lambda got: _whole(got, sum(sizes)))


def _whole(answers_a_batch: list, total: int, largest_group: int = 3):
    # at most 8 answers a call, and more than 8 less the largest group (a batch ends where the next group would not
    # fit), but the bundle's last
    full = sorted(answers_a_batch)[1:]
    assert sum(answers_a_batch) == total and max(answers_a_batch) <= 8, answers_a_batch
    assert min(full) > 8 - largest_group, answers_a_batch


def test_the_aggregator_gets_whole_batches_of_answers_not_of_groups():
    # the aggregator embeds summary candidates per call: batch_size // 8 groups a call left it about 4 texts a call
    from pipelines.stages.aggregate import AggregateHandler
    from schemas.records import AnswerCount, AnswerGroup

    handler = AggregateHandler(None, batch_size=8)

    def group(i):
        # i % 5 answers, the first of every third group a non-answer: it is not read
        answers = tuple(AnswerCount(j + 1, f"A{j}", 1, non_answer=(j == 0 and i % 3 == 0)) for j in range(i % 5))
        return (f"kept {i}", AnswerGroup(answers, len(answers), len(answers), {}))

    groups = [group(i) for i in range(40)]
    sizes = [handler.element_size((g, 40)) for g in groups]
    assert sizes[:7] == [1, 1, 2, 2, 4, 1, 1]  # the answers that answer, and an entry with none counts 1
    with TestPipeline() as p:
        batches = (p | beam.Create([(g, 40) for g in groups]) | beam.BatchElements(**handler.batch_elements_kwargs())
                   | beam.Map(lambda b: sum(handler.element_size(e) for e in b)))
        assert_that(batches, lambda got: _whole(got, sum(sizes), largest_group=4))


def test_a_stage_without_whole_batches_keeps_beams_adaptive_sizes():
    from pipelines.stages.embed import EmbedHandler

    assert EmbedHandler(None, 0.5, batch_size=64).batch_elements_kwargs() == {"min_batch_size": 1,
                                                                               "max_batch_size": 64}
