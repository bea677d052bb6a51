"""Okapi BM25 over base questions: English words, Chinese characters and character bigrams.

The index is a sparse matrix of per-(question, term) BM25 weights
``idf × tf × (k1 + 1) / (tf + k1 × (1 − b + b × len / avg_len))``, so a batch of queries
is scored with one sparse product. Built in memory when a base is loaded (about a
second for 50,000 questions).
"""

from __future__ import annotations

import re

import numpy as np

_WORD = re.compile(r"[a-z0-9]+(?:'[a-z]+)?")
_HAN = re.compile(r"[\u4e00-\u9fff]+")
_STOP = frozenset("a an the is are was were be to of in on at for and or do does did i you my your it this that "
                  "what how can".split())


def terms(text: str) -> list[str]:
    low = text.lower()
    out = [w for w in _WORD.findall(low) if w not in _STOP]
    for run in _HAN.findall(low):
        out.extend(run)  # characters
        out.extend(run[i:i + 2] for i in range(len(run) - 1))  # bigrams
    return out


class BM25:
    def __init__(self, docs: list[str], k1: float = 1.5, b: float = 0.75):
        from scipy.sparse import csr_matrix

        self.vocab: dict[str, int] = {}
        rows, cols, tfs = [], [], []
        lengths = []
        for i, doc in enumerate(docs):
            counts: dict[int, int] = {}
            toks = terms(doc)
            lengths.append(len(toks))
            for t in toks:
                j = self.vocab.setdefault(t, len(self.vocab))
                counts[j] = counts.get(j, 0) + 1
            for j, c in counts.items():
                rows.append(i)
                cols.append(j)
                tfs.append(c)
        n = len(docs)
        lengths_arr = np.asarray(lengths, dtype=np.float64)
        avg = float(lengths_arr.mean()) if n else 1.0
        tf = np.asarray(tfs, dtype=np.float64)
        df = np.bincount(np.asarray(cols, dtype=np.int64), minlength=len(self.vocab)) if cols else np.zeros(0)
        idf = np.log(1.0 + (n - df + 0.5) / (df + 0.5))
        row_arr = np.asarray(rows, dtype=np.int64)
        col_arr = np.asarray(cols, dtype=np.int64)
        norm = k1 * (1.0 - b + b * lengths_arr[row_arr] / max(avg, 1e-9)) if n else np.zeros(0)
        weights = idf[col_arr] * tf * (k1 + 1.0) / (tf + norm) if len(tf) else np.zeros(0)
        self.matrix = csr_matrix((weights, (row_arr, col_arr)), shape=(n, max(len(self.vocab), 1)))
        self.n = n

    def scores(self, queries: list[str]) -> np.ndarray:
        from scipy.sparse import csr_matrix

        rows, cols = [], []
        for i, q in enumerate(queries):
            for t in set(terms(q)):
                j = self.vocab.get(t)
                if j is not None:
                    rows.append(i)
                    cols.append(j)
        qm = csr_matrix((np.ones(len(rows)), (rows, cols)), shape=(len(queries), self.matrix.shape[1]))
        return np.asarray((qm @ self.matrix.T).todense())

    def search(self, queries: list[str], k: int) -> tuple[np.ndarray, np.ndarray]:
        """(scores, ids) of the top k per query, best first; -1 ids where fewer than k match."""
        s = self.scores(queries)
        k = min(k, self.n)
        if k == 0:
            return np.zeros((len(queries), 0)), np.zeros((len(queries), 0), dtype=np.int64)
        top = np.argpartition(-s, k - 1, axis=1)[:, :k]
        order = np.take_along_axis(-s, top, axis=1).argsort(axis=1, kind="stable")
        ids = np.take_along_axis(top, order, axis=1)
        sc = np.take_along_axis(s, ids, axis=1)
        ids = np.where(sc > 0, ids, -1)
        return sc, ids


def rrf(rankings: list[np.ndarray], k: int, c: float = 60.0) -> list[tuple[int, float]]:
    """Reciprocal-rank fusion of id rankings (best first, -1 = none): the top k (id, score)."""
    fused: dict[int, float] = {}
    for ranking in rankings:
        for rank, i in enumerate(ranking):
            if i >= 0:
                fused[int(i)] = fused.get(int(i), 0.0) + 1.0 / (c + rank + 1)
    best = sorted(fused.items(), key=lambda kv: (-kv[1], kv[0]))[:k]
    return [(i, round(s, 6)) for i, s in best]
