"""English GEC default (``quire``): corrections per word (quire-grammar + spelling) times word-pair fluency.

``score = corrections × fluency``. *Corrections*: ``QuireGecScorer`` (quire-grammar's
edit tagger and rules, and the spelling signal). *Fluency*: the mean negative
log-probability of each pair of known words under the word bigram model built
from symspellpy's Google Books tables (``models.lm.word_ngram``), standardised against
the same model's values on the English clear-request prototypes and shrunk for
short texts, ``fluency = sigmoid(2.5 - z)`` (see ``models.lm.fluency``): 0.92 for a
text as fluent as the references, 0.5 for one 2.5 reference deviations worse.

quire is precision-first: on swapped words, dropped words and agreement errors it
rarely fires, and these are exactly where word pairs help (docs/measurements/scorer-quality.md).
The details add ``nll``, ``z``, ``fluency``, ``corrections`` and ``least_likely``
(the least likely word pair).
"""

from __future__ import annotations

from models.gec.quire import QuireGecScorer
from models.lm.fluency import ReferenceScale
from models.lm.word_ngram import SYMSPELL_SOURCE, WordBigramModel, symspell_bigram_model


class QuireFluencyGecScorer:
    def __init__(self, quire: QuireGecScorer | None = None, model: WordBigramModel | None = None,
                 references: list[str] | None = None, batch_size: int = 32):
        self._quire = quire or QuireGecScorer(batch_size=batch_size)
        self._lm = model or symspell_bigram_model()
        if references is None:
            from models.prototypes import load_prototypes

            references = load_prototypes()["intent"]["clear"]["en"]
        values = [self._nll(t)[0] for t in references]
        self._scale = ReferenceScale.from_values([v for v, n in zip(values, map(self._n, references)) if n])
        self.model_id = quire_fluency_identity(self._quire.model_id, self._lm.source)

    def _n(self, text: str) -> int:
        return len(self._lm.pair_logprobs(text))

    def _nll(self, text: str) -> tuple[float, int, tuple[str, str] | None]:
        pairs = self._lm.pair_logprobs(text)
        if not pairs:
            return 0.0, 0, None
        worst = min(pairs, key=lambda p: p[2])
        return -sum(p[2] for p in pairs) / len(pairs), len(pairs), (worst[0], worst[1])

    def score(self, texts: list[str]) -> list[tuple[float, dict]]:
        results = []
        for text, (corrections, details) in zip(texts, self._quire.score(texts)):
            nll, n, worst = self._nll(text)
            fluency, z = self._scale.fluency(nll, n)  # n = 0: no evidence, sigmoid(2.5)
            details = dict(details)
            details.update({"corrections": round(corrections, 4), "nll": round(nll, 4), "z": None if z is None else round(z, 3),
                            "fluency": round(fluency, 4), "word_pairs": n})
            if worst:
                details["least_likely"] = " ".join(worst)
            results.append((float(corrections * fluency), details))
        return results


def quire_fluency_identity(quire_id: str, lm_source: str = SYMSPELL_SOURCE) -> str:
    return f"{quire_id}+word-bigram-v1:{lm_source}"
