"""The chit-chat head of the default intent scorer (issue 14): small talk aimed at the bot or the user's own
life falls below filter.intent_threshold, real requests stay above it."""

import json
import random
import zlib
from pathlib import Path

import numpy as np
import pytest

from models.intent.chitchat import PACKAGED, head_features, lexical_features, load_params
from models.intent.prototype import PrototypeIntentScorer, prototype_intent_identity
from models.tools.train_chitchat import choose_offset, fit, source_weights
from schemas.config import FilterConfig, ModelsConfig
from schemas.errors import ModelLoadError

BENCH = Path(__file__).resolve().parents[3] / "benchmarks"
THRESHOLD = FilterConfig().intent_threshold


class BagOfWordsEmbedder:
    """Hashed bag of words (characters for Chinese), unit length: a fake where the embedder is beside the point."""

    dim = 64

    def __init__(self, model_id="bag-of-words-test"):
        self.model_id = model_id

    def embed(self, texts):
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for i, t in enumerate(texts):
            for w in t.lower().replace("?", " ").split():
                out[i, zlib.crc32(w.encode()) % self.dim] += 1.0
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        return out / np.where(norms == 0, 1, norms)


CHAT = ["do you have a dog", "what is your favorite food", "are you married", "do you like to dance",
        "what do you do on weekends", "have you ever been to paris", "do you have kids", "are you a cat person"]
REQUESTS = ["how do i reset my password", "what is the capital of france", "how many days are in a leap year",
            "how do i convert celsius to fahrenheit", "what is the boiling point of water",
            "how do i transfer money to savings", "what is the speed of light", "how long to boil an egg"]


def _fake_rows():
    rows = [{"text": t, "label": 0, "lang": "en", "kind": "smalltalk", "source": "written"} for t in CHAT * 3]
    return rows + [{"text": t, "label": 1, "lang": "en", "kind": "request", "source": "written"} for t in REQUESTS * 3]


@pytest.fixture(scope="module")
def fake_head():
    scorer = PrototypeIntentScorer(BagOfWordsEmbedder(), BagOfWordsEmbedder(), chitchat=None)
    params, table = fit(_fake_rows(), scorer, budget=0.0, l2=1.0)
    return params, table


# ---- the head and the combination, on a fake embedder ---------------------------------------------

def test_fitted_head_caps_chitchat_and_leaves_requests_alone(fake_head):
    params, table = fake_head
    assert set(params["spaces"]) == {"en"} and params["spaces"]["en"]["offset"] <= 0
    plain = PrototypeIntentScorer(BagOfWordsEmbedder(), BagOfWordsEmbedder(), chitchat=None)
    capped = PrototypeIntentScorer(BagOfWordsEmbedder(), BagOfWordsEmbedder(), chitchat=params)
    texts = ["do you have a cat", "are you a dog person", "how do i reset my pin", "what is the capital of spain"]
    before = plain.score(texts, ["en"] * 4)
    after = capped.score(texts, ["en"] * 4)
    for (b, _), (a, d) in zip(before, after):
        assert a == pytest.approx(min(b, 1 - d["chitchat"]), abs=1e-4)  # never above the prototype score
    assert after[0][1]["chitchat"] > 0.7 and after[1][1]["chitchat"] > 0.7
    assert after[0][0] < THRESHOLD and "prototype_score" in after[0][1]
    assert after[2][1]["chitchat"] < 0.3 and after[3][1]["chitchat"] < 0.3
    assert min(after[2][0], after[3][0]) > 0.9  # requests keep (nearly) their prototype score
    # the development table has the previous default, the new one and the two trivial baselines
    assert {r["scorer"] for r in table} == {"previous default (prototype)", "new default (cross-validated)",
                                            "length", "keyword list"}


def test_identity_names_the_head_and_falls_back_where_the_embedder_differs(fake_head, caplog):
    params, _ = fake_head
    with_head = PrototypeIntentScorer(BagOfWordsEmbedder(), BagOfWordsEmbedder(), chitchat=params)
    without = PrototypeIntentScorer(BagOfWordsEmbedder(), BagOfWordsEmbedder(), chitchat=None)
    assert with_head.model_id.startswith("intent-prototype-v2+chitchat@") and ":en[" in with_head.model_id
    assert without.model_id == "intent-prototype-v1[en=bag-of-words-test,zh=bag-of-words-test]"
    changed = json.loads(json.dumps(params))
    changed["spaces"]["en"]["bias"] += 1.0
    assert prototype_intent_identity("bag-of-words-test", "x", changed) != with_head.model_id  # caches re-key
    # an English embedder other than the one the head was fitted on: English is scored without the head
    other = PrototypeIntentScorer(BagOfWordsEmbedder("other-encoder"), BagOfWordsEmbedder(), chitchat=params)
    assert other.model_id.startswith("intent-prototype-v1[") and "fitted on bag-of-words-test" in caplog.text
    (score, details), = other.score(["do you have a cat"], ["en"])
    assert "chitchat" not in details
    assert score == pytest.approx(without.score(["do you have a cat"], ["en"])[0][0])


def test_scores_do_not_depend_on_the_batch(fake_head):
    params, _ = fake_head
    scorer = PrototypeIntentScorer(BagOfWordsEmbedder(), BagOfWordsEmbedder(), chitchat=params)
    texts = CHAT + REQUESTS
    together = [s for s, _ in scorer.score(texts, ["en"] * len(texts))]
    alone = [scorer.score([t], ["en"])[0][0] for t in texts]
    assert together == alone


def test_offset_budget_weights_and_features():
    # request logits (y = 0) spread from -3 to 0; P > 0.7 is logit > 0.847
    logits = np.array([-3.0, -2.0, -1.0, 0.0, 2.0, 3.0])
    y = np.array([0, 0, 0, 0, 1, 1])
    src = ["a", "a", "b", "b", "written", "written"]
    assert choose_offset(logits, y, src, budget=0.0, budget_sources=("a", "b")) == pytest.approx(0.0)
    assert choose_offset(logits + 1.0, y, src, budget=0.0, budget_sources=("a", "b")) == pytest.approx(-0.2)
    assert choose_offset(logits + 1.0, y, src, budget=0.5, budget_sources=("a", "b")) == pytest.approx(0.0)
    w = source_weights(np.array([1, 1, 1, 0, 0]), ["x", "x", "y", "x", "x"])
    assert w[:3].sum() == pytest.approx(w[3:].sum())  # each class half the weight
    assert w[0] + w[1] == pytest.approx(w[2])  # each source an equal share within its class
    assert lexical_features("Do you like your job?", "en") == [pytest.approx(np.log(3))]
    assert lexical_features("你们几点关门？您好", "zh") == [0.0, pytest.approx(np.log(2)), pytest.approx(np.log(2))]
    assert head_features(np.ones((2, 3)), ["a", "b"], "zh").shape == (2, 6)


def test_params_must_be_this_version(tmp_path):
    bad = tmp_path / "p.json"
    bad.write_text(json.dumps({"version": 0, "spaces": {}}))
    with pytest.raises(ModelLoadError, match="version"):
        load_params(bad)
    with pytest.raises(ModelLoadError, match="not found"):
        load_params(tmp_path / "missing.json")


# ---- the packaged head on the packaged models -----------------------------------------------------

def test_packaged_head_matches_the_default_embedders():
    from models.registry import embedder_identity, model_key_identity

    params = load_params(PACKAGED)
    cfg = ModelsConfig()
    assert params["spaces"]["en"]["embedder"] == embedder_identity(cfg.intent_embedder_en)
    assert params["spaces"]["zh"]["embedder"] == embedder_identity(cfg.intent_embedder_zh)
    assert params["threshold"] == THRESHOLD
    identity = model_key_identity("intent", cfg)
    assert identity.startswith("intent-prototype-v2+chitchat@") and ":en+zh[" in identity


@pytest.fixture(scope="module")
def default_intent():
    from models.registry import model_key_model

    return model_key_model("intent", ModelsConfig())


DROPPED = [("What do you cook?", "en"), ("You teach at the grocery store?", "en"),
           ("Totally. And what would you prefer: nice yacht or your own professional kitchen?", "en"),
           ("Do you have any pets? I have two dogs.", "en"), ("What do you do for a living?", "en"),
           ("你今天吃饭了吗？", "zh"), ("我最近在学吉他，你会弹什么乐器吗", "zh"), ("你周末一般干嘛？", "zh")]
KEPT = [("How do I reset my password?", "en"), ("Which is better, tea or coffee?", "en"), ("Cats or dogs?", "en"),
        ("Do you accept Apple Pay?", "en"), ("Can you tell me how to renew my passport?", "en"),
        ("连续吐了一个晚上怎么办？", "zh"), ("唐宋八大家是哪八位？", "zh"), ("买房还是租房？", "zh"),
        ("你们晚上几点关门？", "zh"), ("你知道怎么煮溏心蛋吗？", "zh")]


@pytest.mark.slow
def test_default_scorer_drops_chitchat_and_keeps_requests(default_intent):
    texts, langs = zip(*(DROPPED + KEPT))
    results = default_intent.score(list(texts), list(langs))
    for (text, _), (score, details) in zip(DROPPED, results[:len(DROPPED)]):
        assert score <= THRESHOLD, (text, score, details)
        assert details["chitchat"] >= 0.7 and details["prototype_score"] > THRESHOLD  # the head's doing, shown
    for (text, _), (score, details) in zip(KEPT, results[len(DROPPED):]):
        assert score > THRESHOLD, (text, score, details)
        assert details["chitchat"] < 0.7


@pytest.mark.slow
def test_held_out_small_talk_and_written_requests(default_intent):
    rows = [json.loads(line) for name in ("smalltalk.jsonl", "smalltalk_heldout.jsonl")
            for line in (BENCH / name).read_text(encoding="utf-8").splitlines()]
    scores = np.array([s for s, _ in default_intent.score([r["text"] for r in rows], [r["lang"] for r in rows])])
    for lang in ("en", "zh"):
        chat = np.array([r["lang"] == lang and r["label"] == 0 for r in rows])
        req = np.array([r["lang"] == lang and r["label"] == 1 for r in rows])
        assert chat.sum() >= 150
        assert np.mean(scores[chat] > THRESHOLD) <= 0.15, lang
        assert np.mean(scores[req] > THRESHOLD) >= 0.95, lang


@pytest.mark.slow
def test_clinc_requests_stay_kept(default_intent, shared_data):
    from models.tools.evaluate import auroc
    from models.tools.train_chitchat import clinc_requests

    requests, _ = clinc_requests(shared_data, "val", None)
    sample = random.Random(1).sample(requests, 400)
    held = [json.loads(line) for line in (BENCH / "smalltalk_heldout.jsonl").read_text(encoding="utf-8").splitlines()]
    chat = [r["text"] for r in held if r["lang"] == "en" and r["label"] == 0]
    texts = [r["text"] for r in sample] + chat
    scores = [s for s, _ in default_intent.score(texts, ["en"] * len(texts))]
    kept = np.mean(np.array(scores[:len(sample)]) > THRESHOLD)
    assert kept >= 0.95
    assert auroc(scores, [1] * len(sample) + [0] * len(chat)) >= 0.92
