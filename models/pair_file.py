"""A pair model's file (models.cross_encoder.save_adapter: an ``.npz`` of float32 arrays and its metadata) read
without torch: its metadata and its digest are what identities need, and identities load no model."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from schemas.errors import ModelLoadError


def load_meta(path: str | Path) -> dict:
    """The file's metadata (thresholds, floor, the adapters' shape)."""
    try:
        with np.load(path, allow_pickle=False) as f:
            return json.loads(f["__meta__"].tobytes().decode())
    except (OSError, ValueError, KeyError) as exc:
        raise ModelLoadError(f"model: {path} is not a pair model file ({type(exc).__name__}: {exc})") from None
