"""Answer-quality signals and the reliability score: agreement, support, contradiction with numbers."""

import numpy as np

from models.aggregators.base import AggregateResult, Viewpoint
from models.aggregators.signals import answer_signals, reliability, reliability_parts
from schemas.records import AnswerCount


def _vote(answer, views):
    return AggregateResult(answer, 0.0, 0.0, [Viewpoint("", ids) for ids in views], "embedding-majority-vote", [])


def test_a_majority_that_contradicts_a_minority_with_numbers_is_flagged_and_scored_down():
    answers = [AnswerCount(1, "Mount Everest is 8,849 m tall.", 5), AnswerCount(2, "It is about 8849 metres.", 2),
               AnswerCount(3, "Everest is 8,611 m high.", 1)]
    s = answer_signals(_vote(answers[0].text, [[1, 2], [3]]), answers)
    assert (s.agreeing_answers, s.valid_answers, s.contradicted, s.contradicting_answers) == (7, 8, True, 1)
    parts = reliability_parts(s, judged_rows=10, non_answer_rows=2, time_sensitive=False)
    assert parts == {"agreement": 0.875, "support": round(1 - 0.5 ** 7, 6), "answered": 0.8, "consistent": round(1 - 0.5 / 8, 6),
                     "fresh": 1.0}
    assert reliability(parts) == round(float(np.prod(list(parts.values()))), 6)
    # the same group without the wrong figure: consistent, and more reliable
    clean = answer_signals(_vote(answers[0].text, [[1, 2]]), answers[:2])
    assert not clean.contradicted and clean.agreeing_answers == 7
    assert reliability(reliability_parts(clean, 10, 2, False)) > reliability(parts)


def test_a_minority_without_numbers_or_agreeing_numbers_is_no_contradiction():
    answers = [AnswerCount(1, "Paris, 2.1 million people.", 3), AnswerCount(2, "About 2,100,000.", 1),
               AnswerCount(3, "Paris is big.", 1)]
    s = answer_signals(_vote(answers[0].text, [[1], [2], [3]]), answers)
    assert not s.contradicted and s.agreeing_answers == 3


def test_one_answer_is_weak_support_and_stale_answers_score_lower():
    one = [AnswerCount(1, "Use the reset link.", 1)]
    s = answer_signals(_vote(one[0].text, [[1]]), one)
    fresh = reliability(reliability_parts(s, 1, 0, False))
    assert fresh == 0.5  # support 0.5, every other part 1
    assert reliability(reliability_parts(s, 1, 0, True)) == 0.35


def test_viewpoint_entries_count_rows_in_shared_viewpoints():
    answers = [AnswerCount(1, "Tea is calmer.", 2), AnswerCount(2, "Coffee wakes you up.", 3),
               AnswerCount(3, "Neither.", 1)]
    res = AggregateResult("3 viewpoints", 0.5, 0.2, [Viewpoint("", [2]), Viewpoint("", [1]), Viewpoint("", [3])],
                          "embedding-viewpoints", [])
    s = answer_signals(res, answers)
    assert s.agreeing_answers == 5 and s.valid_answers == 6  # the lone "Neither." is weakly attested
