"""Candidate lists per query and their fusion (QuestionRetriever's hybrid mode, the default).

A candidate list is ``(rows, scores)``, best first, one entry per base row: searches over forms (an entry's
representative and its aliases) keep each row's best form (max over its forms).
"""

from __future__ import annotations

import numpy as np


def best_per_row(form_ids: np.ndarray, scores: np.ndarray, rows: np.ndarray | None, depth: int
                 ) -> tuple[np.ndarray, np.ndarray]:
    """One search's hits over forms (best first; -1 = none) -> the first ``depth`` distinct rows with their
    best score. ``rows``: the row of each form (None: forms are rows)."""
    seen: set[int] = set()
    out_rows, out_scores = [], []
    for i, s in zip(form_ids.tolist(), scores.tolist()):
        if i < 0:
            continue
        r = int(rows[i]) if rows is not None else int(i)
        if r in seen:
            continue
        seen.add(r)
        out_rows.append(r)
        out_scores.append(s)
        if len(out_rows) == depth:
            break
    return np.asarray(out_rows, dtype=np.int64), np.asarray(out_scores, dtype=np.float64)


def weighted_rrf(lists: list[tuple[np.ndarray, np.ndarray]], weights: list[float], k: int, c: float
                 ) -> list[tuple[int, float]]:
    """Weighted reciprocal-rank fusion: sum of ``w / (c + rank)`` (rank from 1) over the lists; top ``k``
    (row, score), ties to the lower row."""
    fused: dict[int, float] = {}
    for (rows, _), w in zip(lists, weights):
        for rank, r in enumerate(rows.tolist()):
            fused[r] = fused.get(r, 0.0) + w / (c + rank + 1)
    best = sorted(fused.items(), key=lambda kv: (-kv[1], kv[0]))[:k]
    return [(r, round(s, 6)) for r, s in best]


def score_fusion(dense: tuple[np.ndarray, np.ndarray], lexical: tuple[np.ndarray, np.ndarray], alpha: float,
                 k: int) -> list[tuple[int, float]]:
    """Cosine plus ``alpha`` x the BM25 score over the query's best BM25 score (0..1), over the union of both
    lists; a row outside the dense list takes the list's lowest cosine (a bound: it ranked below), a row
    outside the BM25 list 0. Top ``k`` (row, score), ties to the lower row."""
    d_rows, d_scores = dense
    l_rows, l_scores = lexical
    floor = float(d_scores.min()) if len(d_scores) else 0.0
    top = float(l_scores.max()) if len(l_scores) else 0.0
    cos = dict(zip(d_rows.tolist(), d_scores.tolist()))
    lex = dict(zip(l_rows.tolist(), (l_scores / top).tolist())) if top > 0 else {}
    fused = {r: cos.get(r, floor) + alpha * lex.get(r, 0.0) for r in set(cos) | set(lex)}
    best = sorted(fused.items(), key=lambda kv: (-kv[1], kv[0]))[:k]
    return [(r, round(s, 6)) for r, s in best]
