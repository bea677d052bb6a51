"""models.tools.paraphrase_refit: the pair judge fitted again on reviewers' merges and splits."""

import json

import numpy as np

from fakes.models import HashEmbedder
from models.paraphrase.evidence import pair_features
from models.paraphrase.pair_classifier import PairClassifier, fit_logistic
from models.tools import paraphrase_refit as pr
from models.tools.train_paraphrase import EN_HARD, EN_MEDICAL, EN_PAIRS

PACKAGED_PAIRS = [("how do I reset my password", "how can I reset my password", 1),
                  ("how do I reset my password", "how do I change my email", 0),
                  ("what is the capital of france", "which city is the capital of france", 1),
                  ("what is the capital of france", "what is the capital of spain", 0),
                  ("where is my order", "where is my parcel", 1), ("where is my order", "how do I cancel my order", 0),
                  ("how do I pay", "how can I pay", 1), ("how do I pay", "how do I get a refund", 0)]
# one chatbot's house pairs: same wording, one product swapped, which its reviewer says are two questions
SPLITS = [(f"how do I top up my {a} card", f"how do I top up my {b} card") for a, b in
          (("gold", "silver"), ("blue", "green"), ("metal", "plastic"), ("travel", "student"), ("red", "black"),
           ("virtual", "physical"), ("junior", "senior"), ("business", "family"))]
UNSEEN = ("how do I top up my platinum card", "how do I top up my bronze card")


def _world(tmp_path):
    emb = HashEmbedder()
    sets = tmp_path / "sets"
    sets.mkdir()
    for name in (EN_PAIRS, EN_HARD):
        (sets / name).write_text("".join(f"{a}\t{b}\t{y}\n" for a, b, y in PACKAGED_PAIRS), encoding="utf-8")
    (sets / EN_MEDICAL).write_text("question\tparaphrase\tnot\n", encoding="utf-8")
    # the "packaged" judge fitted on the rows packaged_pairs reads (the files' calibration halves)
    rows = pr.packaged_pairs(sets, None, ["en"]).en
    x = np.stack([pair_features(p.a, p.b, "en", float(emb.embed([p.a])[0] @ emb.embed([p.b])[0])) for p in rows])
    head = dict(fit_logistic(x, np.array([p.label for p in rows], float)), floor=0.2, threshold=0.5)
    packaged = {"en": head, "zh": dict(head)}
    return sets, packaged, pr.Evidence(packaged, {"en": emb, "zh": emb, "second": emb})


def _probability(params, evidence, pair) -> float:
    return PairClassifier(params).probabilities(evidence.judge_input([pr.Pair(*pair, 0, "en")]))[0]


def test_splits_teach_the_judge_to_keep_such_pairs_apart_floor_and_threshold_kept(tmp_path):
    sets, packaged, evidence = _world(tmp_path)
    base = pr.packaged_pairs(sets, None, ["en"])
    review = [pr.Pair(a, b, 0, "en") for a, b in SPLITS]
    refit, done = pr.refit(packaged, evidence, base, review, weight=5.0)
    assert done == {"en": {"refit": True, "review_pairs": len(SPLITS), "below_floor": 0}}
    assert refit["en"]["floor"] == 0.2 and refit["en"]["threshold"] == 0.5 and refit["zh"] == packaged["zh"]
    # a pair of the same kind no reviewer named is judged less likely one question than before
    assert _probability(refit, evidence, UNSEEN) < _probability(packaged, evidence, UNSEEN)
    # the packaged pairs alone give back (nearly) the packaged regression: the review is what moved it
    alone, _ = pr.refit(packaged, evidence, base, [], 5.0, ["en"])
    assert np.allclose(alone["en"]["weights"], packaged["en"]["weights"], atol=1e-6)
    # deterministic, and a file the build's pair-lr:PATH backend reads
    assert pr.refit(packaged, evidence, base, review, 5.0)[0] == refit
    path = tmp_path / "judge.json"
    path.write_text(json.dumps(refit))
    from models.paraphrase.pair_classifier import load_params

    assert load_params(path) == refit


def test_review_pairs_below_the_floor_teach_nothing_and_are_counted(tmp_path):
    sets, packaged, evidence = _world(tmp_path)
    far = [pr.Pair("how do I pay", "what is the capital of spain", 1, "en")]
    assert evidence.judge_input(far)[0][3] < packaged["en"]["floor"]
    base = pr.packaged_pairs(sets, None, ["en"])
    refit, done = pr.refit(packaged, evidence, base, far, 5.0)
    assert done["en"]["below_floor"] == 1 and refit == pr.refit(packaged, evidence, base, [], 5.0, ["en"])[0]
    # a floor no pair reaches leaves the regression as it was
    high = {**packaged, "en": {**packaged["en"], "floor": 0.999}}
    assert pr.refit(high, evidence, base, far, 5.0)[0]["en"] == high["en"]


def test_without_lcqmc_and_bq_the_chinese_regressions_stay_packaged(tmp_path):
    sets, packaged, evidence = _world(tmp_path)
    base = pr.packaged_pairs(sets, tmp_path / "no-shared-data", ["zh"])
    assert base.zh_main == [] and base.en == [] and "no LCQMC and BQ dev pairs" in base.missing
    refit, done = pr.refit(packaged, evidence, base, [pr.Pair("花呗怎么还款", "花呗如何还钱", 1, "zh")], 5.0)
    assert refit == packaged and done["zh"]["refit"] is False and "LCQMC" in done["zh"]["why"]


def test_the_packaged_chinese_rows_are_the_calibration_halves_of_the_public_pairs(shared_data):
    from models.tools.paths import sets_dir
    from models.tools.train_paraphrase import is_test

    base = pr.packaged_pairs(sets_dir(None), shared_data, ["zh"])
    assert base.missing == "" and base.en == []
    assert 2000 < len(base.zh_main) < 4000 and not any(is_test(p.a, p.b) for p in base.zh_main)
    weights = {w for _, w in base.zh_also}
    assert weights == {1.0, pr.HARD_WEIGHT} and not any(is_test(p.a, p.b) for p, _ in base.zh_also)


def _fake_chinese_world(tmp_path):
    """LCQMC, BQ and hard-pair files of a few written pairs, and a "packaged" Chinese judge fitted on them as
    qabase train-paraphrase and models.tools.train_paraphrase_second fit theirs (the metric's out-of-fold logit
    as the ``also`` regression's evidence)."""
    from models.paraphrase import second
    from models.tools.train_paraphrase import ZH_HARD, is_test, read_pairs
    from models.tools.train_paraphrase_second import fit_also, fit_metric

    things = ["花呗", "借呗", "余额宝", "信用卡", "蚂蚁森林", "红包", "账单", "积分"]
    pairs = [(f"{t}怎么还款", f"{t}如何还钱", 1) for t in things] + \
        [(f"{t}怎么还款", f"{u}怎么还款", 0) for t, u in zip(things, things[1:])] + \
        [(f"{t}能提前还吗", f"{t}可以提前还款吗", 1) for t in things] + \
        [(f"{t}能提前还吗", f"{t}能分期吗", 0) for t in things]
    data, sets = tmp_path / "data", tmp_path / "sets"
    (data / "paraphrase_zh").mkdir(parents=True)
    sets.mkdir()
    tsv = "".join(f"{a}\t{b}\t{y}\n" for a, b, y in pairs)
    (data / "paraphrase_zh" / "lcqmc_dev.tsv").write_text(tsv, encoding="utf-8")
    (data / "paraphrase_zh" / "bq_dev.csv").write_text("sentence1,sentence2,label\n" + "".join(
        f"{a},{b},{y}\n" for a, b, y in pairs[:8]), encoding="utf-8")
    (sets / ZH_HARD).write_text(tsv, encoding="utf-8")
    emb = HashEmbedder()
    base = pr.packaged_pairs(sets, data, ["zh"])
    x_main = np.stack([pair_features(p.a, p.b, "zh", float(emb.embed([p.a])[0] @ emb.embed([p.b])[0]))
                       for p in base.zh_main])
    main = dict(fit_logistic(x_main, np.array([p.label for p in base.zh_main], float)), floor=-1.0, threshold=0.6)
    lc = [(a, b, y) for a, b, y in read_pairs(data / "paraphrase_zh" / "lcqmc_dev.tsv") if not is_test(a, b)]
    va, vb = emb.embed([a for a, _, _ in lc]), emb.embed([b for _, b, _ in lc])
    head, oof = fit_metric(va, vb, np.array([y for *_, y in lc]), 300.0)
    hard = [(a, b, y) for a, b, y in read_pairs(sets / ZH_HARD) if not is_test(a, b)]
    logits = np.concatenate([oof, second.metric_logit(head, emb.embed([a for a, _, _ in hard]),
                                                      emb.embed([b for _, b, _ in hard]))])
    rows = lc + hard
    x = np.stack([np.append(pair_features(a, b, "zh", float(emb.embed([a])[0] @ emb.embed([b])[0])), g)
                  for (a, b, _), g in zip(rows, logits)])
    also = fit_also(x, np.array([y for *_, y in rows]), np.array([1.0] * len(lc) + [pr.HARD_WEIGHT] * len(hard)),
                    np.zeros(len(rows), bool), 0.97, pr.ALSO_L2)
    zh = {**main, "second": {"kind": second.METRIC, "head": head}, "also": also}
    packaged = {"en": dict(main), "zh": zh, "second_embedder": emb.model_id}
    return base, packaged, pr.Evidence(packaged, {"en": emb, "zh": emb, "second": emb})


def test_the_chinese_regressions_refit_on_their_packaged_pairs_alone_are_the_packaged_ones(tmp_path):
    """The refit starts where the packaged judge stands: the ``also`` regression is fitted again with the metric's
    evidence out of fold on the pairs the metric was fitted on, on every pair (not only those above its floor)."""
    base, packaged, evidence = _fake_chinese_world(tmp_path)
    assert base.metric_rows > 0 and base.missing == ""
    refit, done = pr.refit(packaged, evidence, base, [], 5.0, ["zh"])
    assert done["zh"]["refit"] is True
    for model in ("weights", "mean", "scale", "bias"):
        assert np.allclose(refit["zh"][model], packaged["zh"][model], atol=1e-9)
        assert np.allclose(refit["zh"]["also"][model], packaged["zh"]["also"][model], atol=1e-9)
    # a review's split moves both regressions, thresholds and floors kept
    split = [pr.Pair("花呗怎么还款", "借呗怎么还款", 0, "zh")] * 3
    moved, _ = pr.refit(packaged, evidence, base, split, 5.0)
    assert moved["zh"]["also"]["weights"] != packaged["zh"]["also"]["weights"]
    assert moved["zh"]["also"]["threshold"] == packaged["zh"]["also"]["threshold"]
    assert moved["zh"]["threshold"] == packaged["zh"]["threshold"]


def test_refits_on_one_evidence_work_out_the_packaged_rows_once_and_agree_with_a_fresh_one(tmp_path, monkeypatch):
    import models.tools.train_paraphrase_second as tps

    base, packaged, evidence = _fake_chinese_world(tmp_path)
    calls = []
    real_fit_metric = tps.fit_metric
    monkeypatch.setattr(tps, "fit_metric", lambda *a: calls.append(1) or real_fit_metric(*a))
    split = [pr.Pair("花呗怎么还款", "借呗怎么还款", 0, "zh")] * 3
    alone, _ = pr.refit(packaged, evidence, base, [], 5.0, ["zh"])
    moved, _ = pr.refit(packaged, evidence, base, split, 5.0)
    assert len(calls) == 1  # the metric's out-of-fold folds, the dearest of the packaged rows
    fresh = pr.Evidence(packaged, evidence.embedders)
    assert pr.refit(packaged, fresh, base, split, 5.0)[0] == moved
    assert pr.refit(packaged, fresh, base, [], 5.0, ["zh"])[0] == alone
