"""Token states of questions by the packaged e5 in torch (models.embedders.e5_torch): what the pair head reads.

Each question is encoded as the engine encodes a query (``<s> query: text </s>``, cut to ``max_tokens``) and its
last layer's states are kept, one float16 row per token (they are read again many times by training; float16
halves the memory and changes the head's logits in the fourth decimal). Questions are batched by length, so a
batch pads little; the pooled vector (mean over the tokens, L2) comes with them.
"""

from __future__ import annotations

import numpy as np

MAX_TOKENS = 64  # a question past this is long (the paraphrase stage never asks the judge about long questions)


class TokenStates:
    """``states(texts)`` -> (one (tokens, dim) float16 array per text, (n, dim) float32 unit vectors)."""

    def __init__(self, device: str = "cpu", path: str | None = None, batch_size: int = 64,
                 max_tokens: int = MAX_TOKENS):
        from models.embedders.e5_torch import load_e5_torch

        self.model, self.tokenizer = load_e5_torch(device, path)
        self.device = next(self.model.parameters()).device
        self.batch_size = batch_size
        self.max_tokens = max_tokens

    def states(self, texts: list[str], progress=None) -> tuple[list[np.ndarray], np.ndarray]:
        import torch

        ids = [self.tokenizer.encode(t, max_length=self.max_tokens) for t in texts]
        order = sorted(range(len(texts)), key=lambda i: (len(ids[i]), i))
        out: list = [None] * len(texts)
        pooled = np.zeros((len(texts), self.model.config.hidden_size), dtype=np.float32)
        with torch.inference_mode():
            for s in range(0, len(order), self.batch_size):
                rows = order[s:s + self.batch_size]
                longest = max(len(ids[i]) for i in rows)
                x = torch.full((len(rows), longest), self.tokenizer.pad, dtype=torch.long)
                mask = torch.zeros((len(rows), longest), dtype=torch.long)
                for j, i in enumerate(rows):
                    x[j, :len(ids[i])] = torch.tensor(ids[i])
                    mask[j, :len(ids[i])] = 1
                h = self.model(input_ids=x.to(self.device), attention_mask=mask.to(self.device)).last_hidden_state
                h = h.float().cpu().numpy()
                for j, i in enumerate(rows):
                    n = len(ids[i])
                    out[i] = h[j, :n].astype(np.float16)
                    v = h[j, :n].mean(0)
                    pooled[i] = v / max(float(np.linalg.norm(v)), 1e-12)
                if progress is not None:
                    progress(len(rows))
        return out, pooled
