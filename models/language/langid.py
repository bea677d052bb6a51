"""The default language model: py3langid (langid.py's naive Bayes over byte n-grams; the model ships inside
the wheel, numpy only, deterministic, ~30 µs a question on one core).

Restricted to the languages with an ISO 639-1 code (117 of its 140): the others are dialects and creoles that
short English questions fall into ('pcm', Nigerian Pidgin, takes 1.4% of CLINC150's English utterances) and
that the pipeline could not name anyway.
"""

from __future__ import annotations

from typing import Sequence

from schemas.errors import ModelLoadError
from schemas.text import ISO_639_1

NAME = "langid"


class LangidModel:
    def __init__(self):
        try:
            from importlib.metadata import version

            from py3langid.langid import MODEL_FILE, LanguageIdentifier
        except ImportError as exc:  # pragma: no cover - a dependency of the package
            raise ModelLoadError(f"language: py3langid is not installed ({exc})") from None
        ident = LanguageIdentifier.from_model_file(MODEL_FILE, norm_probs=True)
        codes = sorted(label for label in ident.labels if label in ISO_639_1)
        ident.set_languages(codes)
        self._ident = ident
        self.languages = tuple(codes)
        self.model_id = f"py3langid-{version('py3langid')}[iso639-1]"

    def probabilities(self, texts: Sequence[str]) -> list[dict[str, float]]:
        out = []
        for text in texts:
            top, p = self._ident.classify(text)
            if top == "en":
                out.append({"en": float(p)})
            else:  # English's own probability decides whether short Latin text is English after all
                out.append({code: float(q) for code, q in self._ident.rank(text)})
        return out
