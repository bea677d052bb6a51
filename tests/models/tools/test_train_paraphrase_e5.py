"""The pair model's trainer: the mix with pair-lr is chosen on the tune pairs by the rule its docstring states."""

import hashlib

import numpy as np

from models.tools.train_paraphrase_e5 import MIX_WEIGHTS, choose_mix, pair_vectors


class Vectors:
    """Unit vectors from a text's hash, with every paraphrase of a question near its question."""

    def __init__(self, groups: dict[str, int]):
        self.groups = groups

    def embed(self, texts):
        out = []
        for t in texts:
            base = np.random.default_rng(self.groups[t]).normal(size=384)
            noise = np.random.default_rng(int(hashlib.sha256(t.encode()).hexdigest()[:8], 16)).normal(size=384)
            v = base + 0.02 * noise
            out.append(v / np.linalg.norm(v))
        return np.asarray(out, dtype=np.float32)


def _pairs():
    stems = ["怎么开通花呗", "借呗怎么还款", "余额宝收益怎么算", "信用卡怎么注销", "花呗额度怎么提升", "怎么修改支付密码"]
    pairs, groups = [], {}
    for g, s in enumerate(stems):
        para, other = s + "呢", s.replace("怎么", "为什么")
        groups.update({s: g, para: g, other: g})  # the one-slot negative sits as near as the paraphrase
        pairs += [(s, para, 1), (s, other, 0)]
    return pairs, groups


def test_the_mix_keeps_a_tried_weight_and_a_threshold_that_holds_on_the_tune_pairs():
    pairs, groups = _pairs()
    tune, written = pairs[:8], pairs[8:]
    logits = np.array([6.0 if y else -6.0 for _, _, y in pairs])  # the model parts them all
    vectors = pair_vectors(Vectors(groups), tune + written)
    mix = choose_mix(vectors, tune, written, logits, floor=0.0, target=0.5)
    assert mix["weight"] in MIX_WEIGHTS and mix["weights_tried"] == list(MIX_WEIGHTS)
    assert 0.0 < mix["threshold"] <= 1.0
    assert mix["tune"]["precision"] >= 0.5 and mix["tune"]["recall"] > 0 and mix["tune_one_slot"]["precision"] >= 0.5
    again = pair_vectors(Vectors(groups), tune + written)
    assert mix == choose_mix(again, tune, written, logits, floor=0.0, target=0.5)  # seeded, repeatable
