"""A BERT encoder's forward pass in plain torch: the packaged MiniLM and e5 at inference, without transformers.

Importing transformers' model code costs a build about 2.5 s on 2 cores (its BertModel pulls in its masking,
activation and layer utilities), on every run that loads MiniLM (any log with English questions) or a pair model:
a day's small increment pays it in full. These encoders need only what is below: absolute positions, post-layer
norm, exact (erf) GELU, and attention through torch's ``scaled_dot_product_attention`` as transformers' default
``sdpa`` path calls it, so the outputs are the same numbers (tests/models/embedders/test_plain_bert.py compares
them with transformers' ``BertModel`` in float64, float32 and bfloat16). The parameters carry transformers' names,
so a state dict, a LoRA wrapper (models.cross_encoder) or a layer-by-layer caller works on either module.

Training keeps transformers' module (models.embedders.e5_torch, ``for_training``): its dropout is what the
packaged adapters were trained with.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace

import torch
from torch import nn
from torch.nn import functional as F


@dataclass(frozen=True)
class BertShape:
    vocab: int
    hidden: int
    layers: int
    heads: int
    ffn: int
    max_positions: int
    token_types: int
    eps: float
    pad: int

    @classmethod
    def from_config(cls, config: dict) -> "BertShape":
        """From a Hugging Face ``config.json`` of a plain BERT."""
        return cls(config["vocab_size"], config["hidden_size"], config["num_hidden_layers"],
                   config["num_attention_heads"], config["intermediate_size"], config["max_position_embeddings"],
                   config.get("type_vocab_size", 2), config.get("layer_norm_eps", 1e-12),
                   config.get("pad_token_id") or 0)


class _Unfilled:
    """A layer whose parameters are allocated but never filled (``reset_parameters`` does nothing): a BERT here
    always takes every weight from a state dict (:meth:`BertEncoder.load_weights`). Random initial weights,
    replaced at once, took 0.6 s for e5's word table on 2 cores; making them on the meta device instead imports
    torch's compiler on its first use (1.7 s a process)."""

    def reset_parameters(self) -> None:
        pass


class _Linear(_Unfilled, nn.Linear):
    pass


class _Embedding(_Unfilled, nn.Embedding):
    pass


class _LayerNorm(_Unfilled, nn.LayerNorm):
    pass


class _Embeddings(nn.Module):
    def __init__(self, s: BertShape):
        super().__init__()
        self.word_embeddings = _Embedding(s.vocab, s.hidden, padding_idx=s.pad)
        self.position_embeddings = _Embedding(s.max_positions, s.hidden)
        self.token_type_embeddings = _Embedding(s.token_types, s.hidden)
        self.LayerNorm = _LayerNorm(s.hidden, eps=s.eps)

    def forward(self, input_ids: torch.Tensor) -> torch.Tensor:
        n = input_ids.shape[1]
        positions = torch.arange(n, device=input_ids.device)[None, :]
        # in transformers' order: words + token types (all type 0), then + positions
        h = self.word_embeddings(input_ids) + self.token_type_embeddings(torch.zeros_like(positions))
        return self.LayerNorm(h + self.position_embeddings(positions))


class _SelfAttention(nn.Module):
    def __init__(self, s: BertShape):
        super().__init__()
        self.heads, self.size = s.heads, s.hidden // s.heads
        self.query = _Linear(s.hidden, s.hidden)
        self.key = _Linear(s.hidden, s.hidden)
        self.value = _Linear(s.hidden, s.hidden)

    def forward(self, h: torch.Tensor, mask: torch.Tensor | None) -> torch.Tensor:
        shape = (*h.shape[:-1], -1, self.size)
        q, k, v = (m(h).view(*shape).transpose(1, 2) for m in (self.query, self.key, self.value))
        out = F.scaled_dot_product_attention(q, k, v, attn_mask=mask, dropout_p=0.0, scale=self.size ** -0.5,
                                             is_causal=False)
        return out.transpose(1, 2).contiguous().reshape(*h.shape[:-1], -1).contiguous()


class _Residual(nn.Module):
    """``dense`` then the layer norm of it plus the input (transformers' BertSelfOutput and BertOutput)."""

    def __init__(self, d_in: int, d_out: int, eps: float):
        super().__init__()
        self.dense = _Linear(d_in, d_out)
        self.LayerNorm = _LayerNorm(d_out, eps=eps)

    def forward(self, h: torch.Tensor, residual: torch.Tensor) -> torch.Tensor:
        return self.LayerNorm(self.dense(h) + residual)


class _Attention(nn.Module):
    def __init__(self, s: BertShape):
        super().__init__()
        self.self = _SelfAttention(s)
        self.output = _Residual(s.hidden, s.hidden, s.eps)

    def forward(self, h: torch.Tensor, mask: torch.Tensor | None) -> torch.Tensor:
        return self.output(self.self(h, mask), h)


class _Intermediate(nn.Module):
    def __init__(self, s: BertShape):
        super().__init__()
        self.dense = _Linear(s.hidden, s.ffn)

    def forward(self, h: torch.Tensor) -> torch.Tensor:
        return F.gelu(self.dense(h))


class BertLayer(nn.Module):
    def __init__(self, s: BertShape):
        super().__init__()
        self.attention = _Attention(s)
        self.intermediate = _Intermediate(s)
        self.output = _Residual(s.ffn, s.hidden, s.eps)

    def forward(self, h: torch.Tensor, attention_mask: torch.Tensor | None = None) -> torch.Tensor:
        """``attention_mask``: None, or what sdpa takes: boolean (True where a token is attended) or additive,
        broadcast to (batch, heads, queries, keys)."""
        a = self.attention(h, attention_mask)
        return self.output(self.intermediate(a), a)


class _Layers(nn.Module):
    def __init__(self, s: BertShape):
        super().__init__()
        self.layer = nn.ModuleList(BertLayer(s) for _ in range(s.layers))


class BertEncoder(nn.Module):
    """transformers' ``BertModel(add_pooling_layer=False)`` at inference: ``embeddings``, ``encoder.layer[i]``,
    ``config.hidden_size``; ``forward`` returns an object with ``last_hidden_state``. Its parameters are unfilled
    until :meth:`load_weights` gives them."""

    def __init__(self, shape: BertShape):
        super().__init__()
        self.shape = shape
        self.config = SimpleNamespace(hidden_size=shape.hidden, num_hidden_layers=shape.layers,
                                      max_position_embeddings=shape.max_positions, pad_token_id=shape.pad)
        self.embeddings = _Embeddings(shape)
        self.encoder = _Layers(shape)

    def forward(self, input_ids: torch.Tensor, attention_mask: torch.Tensor | None = None, **_):
        h = self.embeddings(input_ids)
        mask = None
        if attention_mask is not None and not bool(attention_mask.all()):
            # as transformers builds it for sdpa: boolean, (batch, 1, queries, keys); none without padding
            n = attention_mask.shape[1]
            mask = attention_mask.bool()[:, None, None, :].expand(-1, 1, n, n)
        for layer in self.encoder.layer:
            h = layer(h, mask)
        return SimpleNamespace(last_hidden_state=h)

    def load_weights(self, state: dict[str, torch.Tensor]) -> "BertEncoder":
        """Takes a BertModel's state dict (a pooler and buffers are ignored); every parameter must be there."""
        own = set(dict(self.named_parameters()))
        given = {k: v for k, v in state.items() if k in own}
        missing = own - set(given)
        if missing:
            raise KeyError(f"weights missing: {sorted(missing)[:3]}")
        self.load_state_dict(given, strict=True, assign=True)
        return self.eval()


def is_plain_bert_dir(path: Path) -> bool:
    """A Hugging Face directory this module can load: a plain BERT (absolute positions, GELU) in safetensors, with
    a fast tokenizer's ``tokenizer.json``. (models.embedders.hf loads only the packaged MiniLM this way: the one
    whose tokenizer and weights the tests compare with transformers'.)"""
    try:
        config = json.loads((path / "config.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return (config.get("model_type") == "bert" and config.get("hidden_act") == "gelu"
            and config.get("position_embedding_type", "absolute") == "absolute"
            and (path / "model.safetensors").is_file() and (path / "tokenizer.json").is_file())


class FastTokenizer:
    """A directory's ``tokenizer.json`` through the tokenizers library, answering the two calls
    :class:`models.embedders.hf.HFMeanPoolEmbedder` makes of a transformers tokenizer (the same ids: truncation
    to ``max_length`` with the specials, padding on the right with the pad token)."""

    def __init__(self, path: Path):
        from tokenizers import Tokenizer

        self._tok = Tokenizer.from_file(str(path / "tokenizer.json"))
        self._tok.no_padding()  # the file's own settings (a fixed length) are not the caller's
        self._tok.no_truncation()
        config = json.loads((path / "config.json").read_text(encoding="utf-8"))
        self.pad_token_id = config.get("pad_token_id") or 0
        self.vocab = self._tok.get_vocab()

    def __call__(self, texts: list[str], truncation: bool = True, max_length: int = 512) -> dict:
        if truncation:
            self._tok.enable_truncation(max_length)
        else:
            self._tok.no_truncation()
        ids = [e.ids for e in self._tok.encode_batch(list(texts))]
        return {"input_ids": ids, "attention_mask": [[1] * len(i) for i in ids]}

    def pad(self, enc: dict, return_tensors: str = "pt") -> dict:
        width = max((len(i) for i in enc["input_ids"]), default=0)
        ids = [i + [self.pad_token_id] * (width - len(i)) for i in enc["input_ids"]]
        mask = [m + [0] * (width - len(m)) for m in enc["attention_mask"]]
        return {"input_ids": torch.tensor(ids, dtype=torch.long),
                "attention_mask": torch.tensor(mask, dtype=torch.long)}


def load_bert_dir(path: Path) -> BertEncoder:
    """The encoder of a directory :func:`is_plain_bert_dir` accepts, float32, eval mode, on the CPU."""
    from safetensors.torch import load_file

    config = json.loads((path / "config.json").read_text(encoding="utf-8"))
    return BertEncoder(BertShape.from_config(config)).load_weights(load_file(str(path / "model.safetensors")))
