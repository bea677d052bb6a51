"""Pair models averaged: several adapter sets (models.cross_encoder's) on one packaged e5, each reading a pair through
its own adapted layers, their logits averaged.

Why: two answer-match models fitted alike but adapting 6 and 8 of e5's 12 layers err on different answers.
Averaged, out-of-fold F1 on the real tune lines rose by about .013, the threshold chosen inside the folds
(docs/measurements/answer-match.md). Why one module: the layers below every member's adapters are the packaged
ones, so they run once a pair for all members (4 of the 12 layers for members adapting 6 and 8).

The file is one ``.npz`` (:func:`save_pair_mean`): each member's arrays under its index (``0:``, ``1:``, ...) and
metadata whose ``members`` hold each member's own (its adapters' shape); its ``threshold`` is the mean's.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path

import numpy as np
import torch
from torch import nn

from models.lora import TARGETS, additive_mask, folded
from models.pair_file import load_meta
from schemas.errors import ModelLoadError


def _prefix(index: int) -> str:
    return f"{index}:"


class PairMean(nn.Module):
    """The mean logit of its members for each pair, called as a single pair model is (``model(ids, mask)``;
    models.cross_encoder.pair_logits). Built from one e5 (``bert``) and each member's (metadata, trained arrays):
    the adapters are folded into each member's own copy of the layers it reads through."""

    def __init__(self, bert, members: list[tuple[dict, dict[str, torch.Tensor]]]):
        super().__init__()
        self.shared = min(int(meta["lora_from"]) for meta, _ in members)
        self.embeddings = bert.embeddings
        self.bottom = nn.ModuleList(bert.encoder.layer[:self.shared])
        self.tops, self.classifiers = nn.ModuleList(), nn.ModuleList()
        for meta, arrays in members:
            expected = {f"bert.encoder.layer.{i}.{name}.{ab}" for i in range(int(meta["lora_from"]), len(
                bert.encoder.layer)) for name in TARGETS for ab in "ab"} | {"classifier.weight", "classifier.bias"}
            if set(arrays) != expected:
                raise KeyError(f"parameters differ: {sorted(set(arrays) ^ expected)[:3]}")
            layers = copy.deepcopy(nn.ModuleList(bert.encoder.layer[self.shared:]))
            scale = float(meta["alpha"]) / float(meta["r"])
            for i, layer in enumerate(layers, self.shared):
                if i < int(meta["lora_from"]):
                    continue
                for name in TARGETS:
                    parent, _, leaf = name.rpartition(".")
                    linear = getattr(layer.get_submodule(parent), leaf)
                    stem = f"bert.encoder.layer.{i}.{name}"
                    linear.weight = folded(linear.weight, arrays[f"{stem}.a"], arrays[f"{stem}.b"], scale)
            classifier = nn.Linear(bert.config.hidden_size, 1)
            classifier.load_state_dict({"weight": arrays["classifier.weight"], "bias": arrays["classifier.bias"]})
            for p in list(layers.parameters()) + list(classifier.parameters()):
                p.requires_grad_(False)
            self.tops.append(layers)
            self.classifiers.append(classifier)

    def forward(self, ids: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        h = self.embeddings(input_ids=ids)
        add = additive_mask(mask, h.dtype)
        for layer in self.bottom:
            h = layer(h, attention_mask=add)
        m = mask[..., None].to(h.dtype)
        logits = []
        for layers, classifier in zip(self.tops, self.classifiers):
            g = h
            for layer in layers:
                g = layer(g, attention_mask=add)
            logits.append(classifier((g * m).sum(1) / m.sum(1)).squeeze(-1))
        return torch.stack(logits).mean(0)


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


def load_pair_mean(path: str | Path, meta: dict, device: str = "cpu", base: str | Path | None = None,
                   precision: str = "float32"):
    """(:class:`PairMean` in eval mode on ``device`` in ``precision``, the tokenizer, the file's metadata)."""
    from models.embedders.e5_torch import load_e5_torch

    bert, tokenizer = load_e5_torch("cpu", base)
    try:
        with np.load(path, allow_pickle=False) as f:
            members = [(own, {name[len(_prefix(k)):]: torch.from_numpy(f[name]) for name in f.files
                              if name.startswith(_prefix(k))}) for k, own in enumerate(meta["members"])]
        model = PairMean(bert, members)
    except (OSError, ValueError, KeyError, RuntimeError) as exc:
        raise ModelLoadError(f"model: {path} is not a pair model file ({type(exc).__name__}: {exc})") from None
    return model.to(device=device, dtype=getattr(torch, precision)).eval(), tokenizer, meta
