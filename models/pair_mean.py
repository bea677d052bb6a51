"""Pair models averaged: several adapter sets (models.cross_encoder's) on one packaged e5, each reading a pair through
its own adapted layers, their logits averaged.

Why: two answer-match models fitted alike but adapting 6 and 8 of e5's 12 layers err on different answers.
Averaged, out-of-fold F1 on the real tune lines rose by about .013, the threshold chosen inside the folds
(docs/measurements/answer-match.md). Why one module: the layers below every member's adapters are the packaged
ones, so they run once a pair for all members (4 of the 12 layers for members adapting 6 and 8).

The file is one ``.npz`` (:func:`save_pair_mean`): each member's arrays under its index (``0:``, ``1:``, ...) and
metadata whose ``members`` hold each member's own (its adapters' shape); its ``threshold`` is the mean's.
models.cross_encoder.load_cross_encoder reads it.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import torch
from torch import nn

from models.pair_file import load_meta


def _prefix(index: int) -> str:
    return f"{index}:"


def member_arrays(arrays: dict, index: int) -> dict:
    """Member ``index``'s arrays of a mean's file, under their own names."""
    return {name[len(_prefix(index)):]: v for name, v in arrays.items() if name.startswith(_prefix(index))}


class PairMean(nn.Module):
    """The mean logit of its members (models.cross_encoder.CrossEncoder, their adapters folded) for each pair, called
    as a single pair model is (``model(ids, mask)``; models.cross_encoder.pair_logits). The members share the
    modules below layer ``shared`` (no adapter of any member there), which run once."""

    def __init__(self, members: list, shared: int):
        super().__init__()
        self.members, self.shared = nn.ModuleList(members), shared

    def forward(self, ids: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        h = self.members[0].bottom(ids, mask, upto=self.shared)
        return torch.stack([m.top(h, mask, start=self.shared) for m in self.members]).mean(0)


def save_pair_mean(member_paths: list[str | Path], meta: dict, path: str | Path) -> None:
    """One file of the pair-model files ``member_paths`` (models.cross_encoder.save_adapter), averaged: ``meta``
    (the mean's threshold and how it was chosen) gains ``members``, each member's own metadata."""
    arrays, members = {}, []
    for k, member in enumerate(member_paths):
        own = load_meta(member)
        if "members" in own:
            raise ValueError(f"{member} is already a mean of models")
        members.append(own)
        with np.load(member, allow_pickle=False) as f:
            arrays.update({_prefix(k) + name: f[name] for name in f.files if name != "__meta__"})
    meta = dict(meta, members=members)
    np.savez_compressed(path, __meta__=np.frombuffer(json.dumps(meta, sort_keys=True).encode(), dtype=np.uint8),
                        **arrays)
