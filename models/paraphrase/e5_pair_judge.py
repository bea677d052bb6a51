"""``pair-e5``: Chinese pairs judged by the pair model over the packaged e5's token states
(models.paraphrase.token_head), English pairs by the packaged ``pair-lr`` judge (the model was trained on Chinese
pairs only). The build's vetoes (numbers, negation, names, direction) apply to both, as they do to ``pair-lr``.

The pair model reads every token of both questions, where ``pair-lr`` reads the two pooled vectors' cosine and
word-level evidence: the pairs ``pair-lr`` cannot part (one question word, an antonym or one slot changed on
otherwise the same words) are what it was trained on (docs/measurements/paraphrase-pair-model.md). Each Chinese
question of a judged pair is encoded once (the encoder on ``models.device``: the GPU where there is one) and its
states kept while the stage judges its neighbours.
"""

from __future__ import annotations

import hashlib
from collections import OrderedDict
from pathlib import Path

import numpy as np

from models.paraphrase.pair_classifier import PairClassifier, space

PACKAGED = Path(__file__).resolve().parents[1] / "data" / "paraphrase_e5_head.npz"
KEPT_STATES = 50_000  # questions whose token states stay between calls (a k-NN chunk asks each several times)


def head_digest(path: str | Path) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def judge_identity(head_sha: str, threshold_zh: float, english_id: str) -> str:
    """The judge's identity from its head file's digest, its Chinese threshold and the English judge's identity
    (what the manifest records and the pair cache keys on), computed without loading the encoder."""
    payload = f"{head_sha}|{float(threshold_zh)!r}|{english_id}"
    return f"paraphrase-e5-pair-v1@{hashlib.sha256(payload.encode()).hexdigest()[:12]}"


class E5PairJudge:
    """A :class:`models.paraphrase.base.ParaphraseJudge`. ``states``: a models.paraphrase.token_states.TokenStates
    (or anything with its ``states(texts)``), ``head`` and ``meta`` as token_head.load_head gives them."""

    def __init__(self, head, meta: dict, english: PairClassifier, states, threshold_zh: float | None = None,
                 head_digest: str = ""):
        self.head = head
        self.meta = meta
        self.english = english
        self.encoder = states
        self.floor = float(meta["floor"])
        self.thresholds = {"en": english.thresholds["en"],
                           "zh": float(meta["thresholds"]["zh"] if threshold_zh is None else threshold_zh)}
        self.second_embedder = english.second_embedder if "second" in english.params["en"] else None
        # the spaces whose cosines each side was fitted on (models.registry checks the config's embedders)
        self.params = {"en": english.params["en"], "zh": {"embedder": meta.get("embedder")}}
        self.model_id = judge_identity(head_digest, self.thresholds["zh"], english.model_id)
        self._kept: OrderedDict[str, np.ndarray] = OrderedDict()

    def min_cosine(self, sp: str, probability: float) -> float:
        return self.english.min_cosine(sp, probability) if sp == "en" else self.floor

    def second_evidence(self, sp: str, a: np.ndarray, b: np.ndarray) -> np.ndarray | None:
        return self.english.second_evidence(sp, a, b) if sp == "en" else None

    def vetoed(self, a: str, b: str, lang: str) -> bool:
        return self.english.vetoed(a, b, lang)

    def _states(self, texts: list[str]) -> list[np.ndarray]:
        todo = sorted({t for t in texts if t not in self._kept})
        if todo:
            states, _ = self.encoder.states(todo)
            for t, s in zip(todo, states):
                self._kept[t] = s.astype(np.float32)
            while len(self._kept) > max(KEPT_STATES, len(texts)):
                self._kept.popitem(last=False)
        return [self._kept[t] for t in texts]

    def probabilities_zh(self, pairs: list[tuple]) -> np.ndarray:
        """P(one question) per Chinese pair (a, b, space, cosine, ...): 0 below the floor or where vetoed."""
        from models.paraphrase.token_head import pair_logits

        cos = np.array([float(p[3]) for p in pairs])
        asked = [i for i, p in enumerate(pairs) if cos[i] >= self.floor and not self.vetoed(p[0], p[1], p[2])]
        out = np.zeros(len(pairs))
        if asked:
            both = self._states([pairs[i][0] for i in asked] + [pairs[i][1] for i in asked])
            a, b = both[:len(asked)], both[len(asked):]
            out[asked] = 1.0 / (1.0 + np.exp(-pair_logits(self.head, a, b, cos[asked])))
        # as every judge's probability is recorded: six places (a matrix product's last bits may differ with the
        # shapes a batch has; the same pairs are batched alike in every build, full or incremental)
        return np.round(out, 6)

    def judge(self, pairs: list[tuple]) -> list[tuple[bool, float]]:
        out: list = [None] * len(pairs)
        en = [i for i, p in enumerate(pairs) if space(p[2]) == "en"]
        zh = [i for i, p in enumerate(pairs) if space(p[2]) != "en"]
        for i, v in zip(en, self.english.judge([pairs[i] for i in en]) if en else []):
            out[i] = v
        for i, p in zip(zh, self.probabilities_zh([pairs[i] for i in zh]) if zh else []):
            out[i] = (bool(p >= self.thresholds["zh"]), float(p))
        return out
