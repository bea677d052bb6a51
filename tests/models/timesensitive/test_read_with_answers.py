"""The question and its answers read together (models.timesensitive.embedding.with_answers, answers.entry_reasons):
the answers can flag an entry its question did not and clear one it did; a sure cue, a config threshold and a
language without an answers head leave the question's judgement (and the answers' tells) to decide."""

import pytest

from models.timesensitive.answers import READ_TOGETHER, entry_reasons
from models.timesensitive.embedding import PACKAGED, with_answers
from models.logistic import read_params
from schemas.judgement import OWN_THRESHOLD

HEAD = {"question_weight": 0.5, "threshold": 0.5}


def test_the_answers_weigh_by_how_often_each_was_given():
    assert with_answers(HEAD, 0.2, [(1.0, 3), (0.0, 1)]) == pytest.approx(0.5 * 0.2 + 0.5 * 0.75)
    assert with_answers(dict(HEAD, question_weight=1.0), 0.3, [(0.9, 1)]) == pytest.approx(0.3)


class ReadsAnswers:
    """A detector whose answers head gives each answer the probability its text names (Chinese only)."""

    threshold = OWN_THRESHOLD

    def read_answers(self, entries):
        return [with_answers(HEAD, score, [(float(text.split(":")[0]), n) for text, n in answers])
                if lang == "zh" and answers else None for _, lang, score, answers in entries]

    def answers_threshold(self, lang):
        return HEAD["threshold"]


def entry(score, reason, *answers, lang="zh"):
    return ("问题", lang, score, reason, [(a, 1) for a in answers])


def test_answers_that_read_stale_flag_an_entry_and_answers_that_read_stable_clear_one():
    reasons = entry_reasons(ReadsAnswers(), [entry(0.4, "", "0.9:价格约为每克450元"),
                                             entry(0.6, "price", "0.1:8848.86米"),
                                             entry(0.6, "price", "0.8:约为450元")], [False] * 3)
    assert reasons == [READ_TOGETHER, "", "price"]


def test_a_sure_cue_keeps_its_flag_and_a_tell_still_flags_what_the_head_cleared():
    reasons = entry_reasons(ReadsAnswers(), [entry(0.6, "today", "0.0:北京"),
                                             entry(0.1, "", "0.1:价格实时变动")], [True, False])
    assert reasons == ["today", "answer: 实时"]


def test_a_config_threshold_or_a_language_without_a_head_leaves_the_question_to_decide():
    configured = ReadsAnswers()
    configured.threshold = 0.3
    assert entry_reasons(configured, [entry(0.6, "price", "0.0:8848米")], [False]) == ["price"]
    assert entry_reasons(ReadsAnswers(), [entry(0.6, "price", "0.0:...", lang="en")], [False]) == ["price"]
    assert entry_reasons(object(), [entry(0.1, "", "as of this year", lang="en")], [False]) == [
        "answer: as of this year"]


def test_the_packaged_chinese_head_reads_answers_and_the_english_one_does_not():
    params = read_params(PACKAGED, "time-sensitivity parameters")
    head = params["zh"]["answers"]
    assert head["opening_chars"] == 128 and 0 < head["question_weight"] < 1 and 0 < head["threshold"] < 1
    assert len(head["weights"]) == 384 and "answers" not in params["en"]
