"""An English word bigram model from the frequency tables shipped in the ``symspellpy`` package (MIT).

``frequency_dictionary_en_82_765.txt`` (82,765 words) and
``frequency_bigramdictionary_en_243_342.txt`` (243,342 word pairs) are counts from
the Google Books n-gram corpus, which symspellpy ships for its spelling
corrector. The pair table is truncated (its smallest count is 6.4M), so the
model uses interpolated absolute discounting with the discount set to that
truncation count: ``P(b | a) = max(c(a b) - D, 0) / c(a ·) + D × types(a) / c(a ·) × P(b)``,
with ``P(b)`` add-one smoothed unigram frequencies. Each word pair of a text is one
prediction; pairs with a word outside the 82,765 (names, typos, contractions)
are skipped, because the spelling signal already judges unknown words.
"""

from __future__ import annotations

import importlib.util
import math
import re
from functools import lru_cache
from pathlib import Path

from schemas.errors import ModelLoadError

UNIGRAMS = "frequency_dictionary_en_82_765.txt"
BIGRAMS = "frequency_bigramdictionary_en_243_342.txt"
_TOKEN = re.compile(r"[a-z]+(?:'[a-z]+)*|\d+")

SYMSPELL_SOURCE = "symspellpy-google-books"


def tokens(text: str) -> list[str]:
    return _TOKEN.findall(text.lower().replace("’", "'"))


class WordBigramModel:
    def __init__(self, unigrams: dict[str, int], bigrams: dict[tuple[str, str], int], source: str = ""):
        if not unigrams:
            raise ModelLoadError("word bigram model: no unigram counts")
        self._uni = unigrams
        self._bi = bigrams
        self._total = float(sum(unigrams.values()))
        self._vocab = len(unigrams)
        ctx_total: dict[str, int] = {}
        ctx_types: dict[str, int] = {}
        for (a, _), c in bigrams.items():
            ctx_total[a] = ctx_total.get(a, 0) + c
            ctx_types[a] = ctx_types.get(a, 0) + 1
        self._ctx_total = ctx_total
        self._ctx_types = ctx_types
        self.discount = float(min(bigrams.values())) if bigrams else 0.0
        self.source = source

    def known(self, word: str) -> bool:
        return word in self._uni

    def prob(self, a: str, b: str) -> float:
        pu = (self._uni.get(b, 0) + 1.0) / (self._total + self._vocab)
        tot = self._ctx_total.get(a)
        if not tot:
            return pu
        c = self._bi.get((a, b), 0)
        return max(c - self.discount, 0.0) / tot + self.discount * self._ctx_types[a] / tot * pu

    def pair_logprobs(self, text: str) -> list[tuple[str, str, float]]:
        """(word, next word, log P(next | word)) for every pair of known words in a row."""
        ws = tokens(text)
        return [(a, b, math.log(self.prob(a, b))) for a, b in zip(ws, ws[1:]) if a in self._uni and b in self._uni]


def symspell_dir() -> Path:
    spec = importlib.util.find_spec("symspellpy")
    if spec is None or not spec.submodule_search_locations:
        raise ModelLoadError("the English fluency model needs the 'symspellpy' package (pip install symspellpy)")
    return Path(list(spec.submodule_search_locations)[0])


def _read_counts(path: Path, n_words: int) -> dict:
    if not path.is_file():
        raise ModelLoadError(f"symspellpy frequency table not found: {path}")
    out: dict = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            parts = line.split()
            if len(parts) != n_words + 1:
                continue
            key = parts[0] if n_words == 1 else tuple(parts[:n_words])
            out[key] = int(parts[-1])
    return out


@lru_cache(maxsize=1)
def symspell_bigram_model() -> WordBigramModel:
    root = symspell_dir()
    return WordBigramModel(_read_counts(root / UNIGRAMS, 1), _read_counts(root / BIGRAMS, 2),
                           source=SYMSPELL_SOURCE)
