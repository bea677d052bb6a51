"""Standardised L2 logistic regression (fitted by Newton's method) shared by the small trained heads:
a handful of features up to a sentence vector, a few hundred labelled rows; exact, fast, no sklearn.

Why ours and not scikit-learn's (installed with hdbscan): a head is a JSON file of weights that must score alike
wherever the base is rebuilt, and what fits it here is a few lines of numpy with no solver, tolerance or default
that a scikit-learn release could change between two builds of the same base."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numpy as np

from schemas.errors import ModelLoadError


def read_params(path: Path, what: str) -> dict:
    """A head's fitted parameters (JSON) from ``path``; a missing or unreadable file is a ModelLoadError that
    names ``what`` ("non-answer parameters") and the path."""
    try:
        params = json.loads(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ModelLoadError(f"model: {what} not found: {path}") from None
    except json.JSONDecodeError as exc:
        raise ModelLoadError(f"model: {path} is not valid JSON ({exc.msg})") from None
    except UnicodeDecodeError:
        raise ModelLoadError(f"model: {path} is not valid JSON (not UTF-8)") from None
    if not isinstance(params, dict):
        raise ModelLoadError(f"model: {path} is not a JSON object of {what}")
    return params


def params_digest(params: dict) -> str:
    """12 hex digits of the parameters' content: part of a head's identity (score caches must not mix heads)."""
    return hashlib.sha256(json.dumps(params, sort_keys=True).encode()).hexdigest()[:12]


def fit(x: np.ndarray, y: np.ndarray, l2: float = 1.0, steps: int = 50, sample_weights: np.ndarray | None = None) -> dict:
    """{"mean", "scale", "weights", "bias"} of a logistic regression of ``y`` (0/1) on ``x`` (each row counted
    ``sample_weights`` times; once without)."""
    sw = np.ones(len(x)) if sample_weights is None else np.asarray(sample_weights, dtype=np.float64)
    mean, scale = x.mean(axis=0), x.std(axis=0)
    scale[scale < 1e-9] = 1.0
    z = np.hstack([(x - mean) / scale, np.ones((len(x), 1))])
    w = np.zeros(z.shape[1])
    reg = l2 * np.eye(z.shape[1])
    reg[-1, -1] = 0.0  # no penalty on the bias
    for _ in range(steps):
        p = 1.0 / (1.0 + np.exp(-z @ w))
        step = np.linalg.solve((z * (sw * p * (1 - p))[:, None]).T @ z + reg, z.T @ (sw * (p - y)) + reg @ w)
        w -= step
        if np.abs(step).max() < 1e-8:
            break
    return {"mean": mean.tolist(), "scale": scale.tolist(), "weights": w[:-1].tolist(), "bias": float(w[-1])}


def apply(params: dict, x: np.ndarray) -> np.ndarray:
    """P(label 1) per row of ``x``."""
    z = (x - np.asarray(params["mean"])) / np.asarray(params["scale"])
    return 1.0 / (1.0 + np.exp(-(z @ np.asarray(params["weights"]) + params["bias"])))
