"""Local sentence-transformers directories (``hf:/dir`` with a ``modules.json``), loaded as their authors set them.

A sentence-transformers directory says how its token vectors become a sentence vector: its ``Pooling`` module
(mean, CLS, max, last token, ...), an optional ``Dense`` projection, an optional ``Normalize``, and prompts in
``config_sentence_transformers.json``. Mean pooling every directory (as :class:`models.embedders.hf.HFMeanPoolEmbedder`
does) gives a CLS-pooled model the wrong vectors, so such a directory goes through ``sentence_transformers``.

The determinism rule of the other torch encoders holds here too: the modules run in float64 and the vectors are
cast to float32 at the end, so a text's vector does not depend on the other texts of its batch (an incremental
build equals a full rebuild). The rows are L2-normalised at the end as every embedder's are (inner product =
cosine, ``models.embedders.base``): a no-op after a ``Normalize`` module; for a model without one it is cosine
similarity, the sentence-transformers default, and drops the vector lengths a dot-product model would rank by.
"""

from __future__ import annotations

import hashlib
import logging
from pathlib import Path

import numpy as np

from schemas.config import ModelsConfig
from schemas.errors import ModelLoadError

SBERT_MARKER = "modules.json"  # what makes a directory a sentence-transformers model
_CONTENT_HASHED_MAX_BYTES = 1 << 20  # config files are hashed by content; tokenizer.json and weights by size


def is_sentence_transformers_dir(path: str | Path) -> bool:
    return (Path(path) / SBERT_MARKER).is_file()


def st_dir_fingerprint(path: Path) -> str:
    """:func:`models.embedders.hf.dir_fingerprint` plus the content of the directory's small JSON files.

    Pooling, normalisation, prompts and the sequence length live in JSON files (``modules.json``,
    ``sentence_bert_config.json``, ``config_sentence_transformers.json``, each module's ``config.json``):
    changing any of them changes the vectors, so it changes the identity even when the size stays.
    """
    from models.embedders.hf_common import dir_fingerprint

    h = hashlib.sha256(dir_fingerprint(path).encode())
    for f in sorted(p for p in path.rglob("*.json") if p.is_file()):
        if f.name != "tokenizer.json" and f.stat().st_size <= _CONTENT_HASHED_MAX_BYTES:
            h.update(f"{f.relative_to(path)}:".encode())
            h.update(f.read_bytes())
    return h.hexdigest()[:16]


def st_identity(path: str | Path) -> str:
    """The ``model_id`` of :class:`SentenceTransformerEmbedder` for a directory, without loading it."""
    path = Path(path)
    return f"hf-st:{path.name}@{st_dir_fingerprint(path)}:f64"


class SentenceTransformerEmbedder:
    """A local sentence-transformers directory's own pipeline (pooling, Dense, Normalize, prompts) in float64.

    Never reaches the Hub (``local_files_only``) and runs no code from the directory (``trust_remote_code``
    stays off). ``device`` as :func:`models.embedders.hf.resolve_device`.
    """

    def __init__(self, path: str | Path, batch_size: int = ModelsConfig.batch_size,
                 torch_threads: int = ModelsConfig.torch_threads, device: str = ModelsConfig.device):
        from models.embedders.hf_common import _quiet_transformers, resolve_device

        path = Path(path)
        self.device = resolve_device(device)  # before loading: a missing GPU fails fast
        _quiet_transformers()
        logging.getLogger("sentence_transformers").setLevel(logging.WARNING)  # no per-load INFO lines
        try:
            import torch
            from sentence_transformers import SentenceTransformer
        except ImportError as exc:
            raise ModelLoadError(f"model: {path} is a sentence-transformers directory (it has {SBERT_MARKER}) "
                                 f"but sentence-transformers cannot be imported ({exc}); "
                                 "pip install sentence-transformers") from None
        try:
            model = SentenceTransformer(str(path), device=self.device, local_files_only=True)
        except Exception as exc:
            raise ModelLoadError(f"model: cannot load {path} as a sentence-transformers encoder: "
                                 f"{type(exc).__name__}: {exc}"[:400]) from None
        if torch_threads:
            torch.set_num_threads(torch_threads)
        self._torch = torch
        self._model = model.double().eval()
        self._batch_size = batch_size
        self.dim = self._dimension()
        self.model_id = st_identity(path)

    def _dimension(self) -> int:
        get = getattr(self._model, "get_embedding_dimension", None) or self._model.get_sentence_embedding_dimension
        dim = get()
        return int(dim) if dim else int(self._encode(["dimension probe"]).shape[1])

    def _encode(self, texts: list[str]):
        """float64 sentence vectors, L2-normalised (a tensor on the model's device)."""
        vectors = self._model.encode(texts, batch_size=self._batch_size, show_progress_bar=False,
                                     convert_to_tensor=True)
        return self._torch.nn.functional.normalize(vectors.to(self._torch.float64), dim=-1)

    def embed(self, texts: list[str]) -> np.ndarray:
        if not texts:
            return np.empty((0, self.dim), dtype=np.float32)
        with self._torch.inference_mode():
            return self._encode(list(texts)).float().cpu().numpy()  # float64 -> float32, batch-independent

    def vocab_words(self) -> set[str]:
        """Whole-word entries of a WordPiece vocabulary (used as a spelling lexicon)."""
        vocab = getattr(self._model.tokenizer, "vocab", None) or {}
        return {w for w in vocab if w.isalpha() and not w.startswith("##")}
