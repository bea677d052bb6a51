"""``hdbscan``: topics as HDBSCAN's dense groups (the ``hdbscan`` package, McInnes et al.) over L2-normalised vectors.

Why HDBSCAN: the number of topics is not known in advance, topics differ in size and density, and entries that
belong to no group (one-off questions) should stay out rather than be forced into the nearest topic; HDBSCAN
does all three (noise points become the ``unassigned`` topic). scikit-learn 1.3+ has the same algorithm
(``sklearn.cluster.HDBSCAN``); the issue's design card names the ``hdbscan`` package, which is used here.

Cost. HDBSCAN's space trees help little in hundreds of dimensions (384: ~13 s for 5,000 vectors on one core,
growing with the square), so the vectors are projected on their first ``dims`` principal components (exact
eigendecomposition: deterministic), and at most ``fit_sample`` of them (a seeded sample) are clustered; every
other entry takes the topic of its nearest clustered entry (unassigned if that one is). The package's
``approximate_predict`` does the same job more faithfully but cost 57 s for 40,000 entries against 6 s for the
nearest neighbour (on a loaded 2-core machine). min_samples 1 (every point
may start a dense region) rather than HDBSCAN's default (= min_cluster_size): on BANKING77 questions (the tune set;
CLINC150 held out) it leaves a quarter of the questions unassigned instead of nearly half, and the larger values
often collapse into two giant groups. On L2-normalised vectors
Euclidean distance orders pairs as cosine does. Measured in docs/measurements/topics.md.

With ``min_samples`` 1 (the default) the spanning tree is Prim's over a KD-tree (``algorithm="prims_kdtree"``), not
the package's choice for few dimensions (Borůvka's): both then find the minimum spanning tree of the plain
distances, so the topics are the same (checked on 5,000 and 10,000 real base vectors), and Prim's took 0.75 s where
Borůvka took 2.5 s at 5,000 entries, 3.1 s against 13 s at 10,000 (the default ``fit_sample``). With larger
``min_samples`` the two define core distances a little differently and the topics differ, so the package chooses.
"""

from __future__ import annotations

import hashlib
import json

import numpy as np

from models.topics.base import UNASSIGNED, renumber
from schemas.config import TopicsConfig

SEED = 0
TOPIC_SIZE_DIVISOR = 200  # min_cluster_size 0: max(MIN_TOPIC, entries / this)
MIN_TOPIC = 5


def algorithm(min_samples: int) -> str:
    """HDBSCAN's spanning-tree algorithm for ``min_samples`` (module doc)."""
    return "prims_kdtree" if min_samples == 1 else "best"


def auto_min_cluster_size(n: int) -> int:
    return max(MIN_TOPIC, int(round(n / TOPIC_SIZE_DIVISOR)))


class HdbscanTopics:
    def __init__(self, min_cluster_size: int = TopicsConfig.min_cluster_size,
                 min_samples: int = TopicsConfig.min_samples, dims: int = TopicsConfig.dims,
                 fit_sample: int = TopicsConfig.fit_sample):
        self.min_cluster_size = min_cluster_size
        self.min_samples = min_samples
        self.dims = dims
        self.fit_sample = fit_sample
        self.model_id = hdbscan_identity(min_cluster_size, min_samples, dims, fit_sample)

    def sizes(self, n: int) -> tuple[int, int]:
        """(min_cluster_size, min_samples) for ``n`` vectors clustered (min_samples 0: min_cluster_size, HDBSCAN's
        own default)."""
        mcs = self.min_cluster_size or auto_min_cluster_size(n)
        return mcs, min(self.min_samples or mcs, mcs)

    def group(self, vectors: np.ndarray) -> np.ndarray:
        x = _prepare(vectors, self.dims)
        n = len(x)
        mcs, ms = self.sizes(n)
        if n < max(mcs, 2):  # too few entries for one topic
            return np.full(n, UNASSIGNED, dtype=np.int64)
        import hdbscan

        if n <= self.fit_sample:
            labels = hdbscan.HDBSCAN(min_cluster_size=mcs, min_samples=ms, algorithm=algorithm(ms),
                                     core_dist_n_jobs=1).fit_predict(x)
            return renumber(labels)
        # a seeded sample is clustered (min_cluster_size scaled to it, so topics mean the same share of the base);
        # every other entry takes the topic of its nearest clustered entry (none if that one has none)
        pick = np.sort(np.random.default_rng(SEED).choice(n, size=self.fit_sample, replace=False))
        mcs_fit = max(MIN_TOPIC, int(round(mcs * self.fit_sample / n)))
        ms_fit = min(ms, mcs_fit)
        fitted = hdbscan.HDBSCAN(min_cluster_size=mcs_fit, min_samples=ms_fit,
                                 algorithm=algorithm(ms_fit), core_dist_n_jobs=1).fit_predict(x[pick])
        labels = np.full(n, UNASSIGNED, dtype=np.int64)
        labels[pick] = fitted
        rest = np.setdiff1d(np.arange(n), pick)
        labels[rest] = fitted[nearest(x[rest], x[pick])]
        return renumber(labels)


def nearest(queries: np.ndarray, points: np.ndarray, chunk: int = 4096) -> np.ndarray:
    """The index of each query's nearest point (Euclidean; ties: the first), in chunks (bounded memory)."""
    sq = (points * points).sum(axis=1)
    out = np.empty(len(queries), dtype=np.int64)
    for start in range(0, len(queries), chunk):
        q = queries[start:start + chunk]
        out[start:start + len(q)] = np.argmin(sq[None, :] - 2.0 * (q @ points.T), axis=1)
    return out


def _prepare(vectors: np.ndarray, dims: int) -> np.ndarray:
    """L2-normalised vectors (float64, so the projection is the same on every machine's BLAS within rounding),
    projected on their first ``dims`` principal components (0: as they are; or when they have fewer)."""
    x = np.asarray(vectors, dtype=np.float64)
    if x.ndim != 2:
        raise ValueError(f"topics: vectors must be a matrix, got shape {x.shape}")
    x = x / (np.linalg.norm(x, axis=1, keepdims=True) + 1e-12)
    if dims and x.shape[1] > dims and len(x) > dims:
        centred = x - x.mean(axis=0, keepdims=True)
        # the principal directions from the covariance (dim x dim: cheap at any n); signs fixed so that each
        # direction's largest loading is positive (eigh may return either sign)
        vals, vecs = np.linalg.eigh(centred.T @ centred)
        top = vecs[:, np.argsort(-vals, kind="stable")[:dims]]
        top *= np.where(top[np.abs(top).argmax(axis=0), np.arange(dims)] < 0, -1.0, 1.0)
        x = centred @ top
    return np.ascontiguousarray(x)


def hdbscan_identity(min_cluster_size: int, min_samples: int, dims: int, fit_sample: int) -> str:
    try:
        from importlib.metadata import version

        ver = version("hdbscan")
    except Exception:  # not installed: the identity still names the settings
        ver = "missing"
    params = json.dumps([min_cluster_size, min_samples, dims, fit_sample, TOPIC_SIZE_DIVISOR, MIN_TOPIC])
    return f"hdbscan-{ver}#{hashlib.sha256(params.encode()).hexdigest()[:12]}"
