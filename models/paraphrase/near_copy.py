"""Near-copies of long questions, decided lexically.

A pasted prompt of hundreds or thousands of characters is almost never a paraphrase of another question, only a
near-copy of one (the same prompt with a word changed, a line added, different spacing). Embedding it for
merging costs as much as dozens of short questions and says little an exact comparison does not, so a pair
with a long question is judged by the overlap of the two texts: the Jaccard similarity of their character
5-gram sets over the normalised text (schemas.text.normalize_key: case, width, spacing, traditional/simplified
and trailing punctuation do not count). Character n-grams work the same for English and Chinese. The pairs come
from the space's k-NN (near-copies are each other's nearest neighbours), so the similarity is exact on the
candidate pairs, with no MinHash estimate needed.
"""

from __future__ import annotations

from schemas.text import normalize_key

SHINGLE = 5  # characters per shingle: a changed word changes about its length + 4 shingles of hundreds


def shingles(text: str, n: int = SHINGLE) -> frozenset[str]:
    s = normalize_key(text)
    if len(s) <= n:
        return frozenset((s,))
    return frozenset(s[i:i + n] for i in range(len(s) - n + 1))


def jaccard(a: str, b: str) -> float:
    """The Jaccard similarity of the two texts' shingle sets (1.0: the same normalised text)."""
    sa, sb = shingles(a), shingles(b)
    union = len(sa | sb)
    return len(sa & sb) / union if union else 1.0


def is_long(text: str, limit: int) -> bool:
    """Longer than ``limit`` characters (``limit`` 0: no text is long)."""
    return limit > 0 and len(text) > limit
