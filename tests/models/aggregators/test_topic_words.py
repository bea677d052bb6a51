"""One topic, several aspects (issue 33): the words of the question that the answers restate carry no
evidence that two answers make the same point."""

import numpy as np

from models.aggregators.embedding import (EmbeddingAggregator, answer_distances, cluster_answers,
                                          embedding_aggregator_identity, lexical_distances, topic_words)
from schemas.records import AnswerCount

QUESTION = "What is Easter about?"
ANSWERS = ["Easter celebrates the resurrection of Jesus.",
           "Easter marks the resurrection of Christ from the dead.",
           "Easter means egg hunts and the bunny.",
           "Easter is egg hunts for children.",
           "Easter is chocolate season in the shops.",
           "Easter is a long weekend off work."]
ASPECTS = [0, 0, 1, 1, 2, 3]
# meaning vectors that tell nothing apart (every centred distance the same): the words decide
FLAT = np.eye(len(ANSWERS), dtype=np.float32)


def test_topic_words_are_the_question_words_half_the_answers_repeat():
    assert topic_words(QUESTION, ANSWERS) == {"easter"}  # "about" is in the question, in no answer
    # one answer of three repeats the topic: not enough
    assert topic_words(QUESTION, ANSWERS[:1] + ["A Christian feast.", "Eggs."]) == frozenset()
    assert topic_words("", ANSWERS) == frozenset() and topic_words(QUESTION, []) == frozenset()
    zh = topic_words("清明节是关于什么的？", ["清明节要扫墓祭祖。", "清明节可以踏青。", "放假堵车。"])
    assert {"清明", "明节", "清", "明", "节"} <= zh  # characters and bigrams of the topic, as content_tokens counts them


def test_lexical_distance_leaves_the_ignored_words_out():
    two = ["Easter is chocolate season.", "Easter is a long weekend."]
    assert lexical_distances(two)[0, 1] < 1.0  # "easter" is shared
    assert lexical_distances(two, frozenset({"easter"}))[0, 1] == 1.0
    # an answer that is only the topic has nothing left to compare
    assert lexical_distances(["Easter.", "Easter."], frozenset({"easter"}))[0, 1] == 0.0


def test_one_topic_answers_split_by_aspect_not_by_topic():
    with_topic = cluster_answers(answer_distances(FLAT, ANSWERS, 0.4, "en", question=QUESTION), 0.68)
    assert with_topic == ASPECTS
    # the same answers with the topic counted as shared content: the lone angles join the others
    without = cluster_answers(answer_distances(FLAT, ANSWERS, 0.4, "en"), 0.68)
    assert len(set(without)) < len(set(ASPECTS))


class _Embedder:
    model_id = "fake-embedder"

    def embed(self, texts):
        raise AssertionError("aggregate() is given the vectors")


def test_aggregate_uses_the_question_and_the_identity_says_so():
    agg = EmbeddingAggregator(_Embedder())
    answers = [AnswerCount(i, t, 1) for i, t in enumerate(ANSWERS, 1)]
    res = agg.aggregate(QUESTION, "subjective", "en", answers, FLAT)
    assert sorted(sorted(v.answer_ids) for v in res.viewpoints) == [[1, 2], [3, 4], [5], [6]]
    assert agg.model_id == embedding_aggregator_identity("fake-embedder", 0.68, 0.4, 200, 200, 128)
    assert agg.model_id.startswith("embedding-aggregator-v8[")
