"""Long answers that open with the same preamble are read from what they go on to say
(models.aggregators.gist): their openings alone would make every answer one viewpoint."""

from fakes.models import HashEmbedder

from models.aggregators.embedding import EmbeddingAggregator, plain_sentences
from models.aggregators.gist import gist, group_words
from schemas.records import AnswerCount

QUESTION = "What is Easter about?"
PREAMBLE = ("That is a question many people ask, and there is no single short answer to it. People who talk about "
            "it usually have one particular side in mind, and which side that is depends a lot on who you ask. ")
POINTS = ["It celebrates the resurrection of Jesus after the crucifixion.",
          "It marks the resurrection of Christ from the dead, the centre of the Christian year.",
          "Children hunt for painted eggs hidden by the bunny in the garden.",
          "Egg hunts in the garden, and the bunny who hides the painted eggs.",
          "Shops fill with chocolate, and the long weekend off work is for travel."]


def test_the_gist_starts_at_the_first_sentence_of_its_own():
    texts = [PREAMBLE + p for p in POINTS]
    common = group_words(QUESTION, texts)
    assert gist(texts[2], common, plain_sentences) == POINTS[2]
    assert gist(PREAMBLE, common, plain_sentences) == PREAMBLE  # nothing of its own: the whole text


def test_answers_sharing_a_long_preamble_split_by_their_points():
    agg = EmbeddingAggregator(HashEmbedder())
    long = [AnswerCount(i, PREAMBLE + p, 1) for i, p in enumerate(POINTS, 1)]
    short = [AnswerCount(i, p, 1) for i, p in enumerate(POINTS, 1)]
    views = lambda res: sorted(sorted(v.answer_ids) for v in res.viewpoints)  # noqa: E731
    long_res, short_res = agg.aggregate_many([(QUESTION, "subjective", "en", long),
                                              (QUESTION, "subjective", "en", short)])
    assert len(long_res.viewpoints) > 1
    assert views(long_res) == views(short_res)


def test_an_objective_question_answered_with_aspects_gets_viewpoints_and_a_split_figure_a_vote():
    from models.aggregators.embedding import aspects

    three = [AnswerCount(i, t, 1) for i, t in enumerate(["Its origin.", "Its customs.", "Its meaning."], 1)]
    assert aspects([1, 1, 1], three)
    assert not aspects([2, 1, 1], three)  # a class holds half: a vote
    assert not aspects([1, 1], three[:2])  # two classes, no majority: a split vote
    figures = [AnswerCount(i, t, 1) for i, t in enumerate(["8,849 m.", "8,611 m.", "About 9 km."], 1)]
    assert not aspects([1, 1, 1], figures)  # answers disagree on a figure: a fact, settled by a vote
    agg = EmbeddingAggregator(HashEmbedder())
    res = agg.aggregate_many([(QUESTION, "objective", "en", [AnswerCount(i, p, 1) for i, p in
                                                            enumerate(POINTS[::2], 1)])])[0]
    assert res.method == "embedding-viewpoints" and len(res.viewpoints) == 3



def test_only_long_answers_whose_openings_are_alike_are_read_again():
    """Openings that differ already tell the answers apart: only near duplicates (raw cosine at or above
    NEAR_DUPLICATE) are re-read, and an answer whose first sentence is a point of its own keeps its opening."""
    import numpy as np

    from models.aggregators.embedding import NEAR_DUPLICATE, alike_openings

    a = np.array([1.0, 0.0, 0.0])
    near = np.array([NEAR_DUPLICATE["en"], np.sqrt(1 - NEAR_DUPLICATE["en"] ** 2), 0.0])
    far = np.array([0.9, 0.0, np.sqrt(1 - 0.81)])
    vecs = np.stack([a, near, far, a])
    assert alike_openings([0, 1, 2], vecs, "en") == [0, 1]  # the far one is told apart by its opening
    assert alike_openings([0, 2], vecs, "en") == []
    assert alike_openings([0, 1], vecs, "zh") == []  # Chinese openings must be closer (0.98)
    assert alike_openings([0, 3], vecs, "zh") == [0, 3]
    own = "**Easter** celebrates the resurrection of Jesus.\n\n" + POINTS[2]  # read as it was written, markup and all
    assert gist(own, group_words(QUESTION, [PREAMBLE + p for p in POINTS] + [own]), plain_sentences) == own
