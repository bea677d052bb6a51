"""What the pair models' modules share (models.cross_encoder, models.pair_mean): the BERT matrices that carry LoRA
adapters, the adapter itself, its fold into the frozen matrix, and the additive mask BERT's layers take."""

from __future__ import annotations

import math

import torch
from torch import nn

TARGETS = ("attention.self.query", "attention.self.key", "attention.self.value", "attention.output.dense",
           "intermediate.dense", "output.dense")


class LoRALinear(nn.Module):
    """``base(x) + (alpha / r) * x A^T B^T``: ``base`` frozen, ``B`` starting at zero (the packaged model at
    first)."""

    def __init__(self, base: nn.Linear, r: int, alpha: float):
        super().__init__()
        self.base = base
        for p in self.base.parameters():
            p.requires_grad_(False)
        self.a = nn.Parameter(torch.empty(r, base.in_features))
        self.b = nn.Parameter(torch.zeros(base.out_features, r))
        nn.init.kaiming_uniform_(self.a, a=math.sqrt(5))
        self.scale = alpha / r

    def forward(self, x):
        return self.base(x) + (x @ self.a.t() @ self.b.t()) * self.scale


def folded(weight: torch.Tensor, a: torch.Tensor, b: torch.Tensor, scale: float) -> nn.Parameter:
    """``W + scale B A`` as a new frozen parameter (the packaged weights' arrays are never written to)."""
    with torch.no_grad():
        return nn.Parameter(weight + (b @ a) * scale, requires_grad=False)


def additive_mask(mask: torch.Tensor, dtype) -> torch.Tensor:
    """The additive mask BERT's attention takes (sdpa and eager alike): 0 on tokens, the dtype's minimum on
    padding."""
    return (1.0 - mask[:, None, None, :].to(dtype)) * torch.finfo(dtype).min
