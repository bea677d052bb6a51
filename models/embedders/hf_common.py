"""What every local Hugging Face load shares: offline settings, the device a model runs on, and a directory's
cheap identity. Its own module so that :mod:`models.embedders.hf` (which dispatches to
:mod:`models.embedders.st`) and :mod:`models.embedders.st` both import it, one way.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from schemas.config import ModelsConfig, rules_for
from schemas.errors import ModelLoadError


def dir_fingerprint(path: Path) -> str:
    """A cheap identity of a model directory: names, sizes and the config's content."""
    h = hashlib.sha256()
    for f in sorted(p for p in path.rglob("*") if p.is_file()):
        h.update(f"{f.relative_to(path)}:{f.stat().st_size};".encode())
        if f.name == "config.json":
            h.update(f.read_bytes())
    return h.hexdigest()[:16]


def _quiet_transformers() -> None:
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    from transformers.utils import logging as hf_logging

    hf_logging.set_verbosity_error()
    hf_logging.disable_progress_bar()


DEVICES = rules_for(ModelsConfig, "device").choices


def resolve_device(device: str = ModelsConfig.device) -> str:
    """``cpu`` or ``cuda``: where a torch model runs in this process for ``models.device``."""
    if device not in DEVICES:
        raise ModelLoadError(f"models.device must be one of {', '.join(DEVICES)}, got {device!r}")
    if device == "cpu":
        return "cpu"
    import torch

    if torch.cuda.is_available():
        return "cuda"
    if device == "cuda":
        build = "a CPU-only torch" if torch.version.cuda is None else f"torch for CUDA {torch.version.cuda}"
        raise ModelLoadError(f"models.device: cuda but no CUDA GPU is available ({build} sees none); "
                             "use models.device: auto or cpu")
    return "cpu"



PRECISIONS = rules_for(ModelsConfig, "precision").choices
BF16_CPU_FLAGS = ("avx512_bf16", "amx_bf16")


def native_bfloat16(cpuinfo: str = "/proc/cpuinfo") -> bool:
    """Whether this machine's CPU computes bfloat16 matrix products natively (AVX-512 BF16 or AMX; elsewhere torch
    emulates them, slower than float32). Read from the kernel's CPU flags, not from torch, so that an identity is
    named without loading it; False where there are none to read."""
    try:
        with open(cpuinfo, encoding="utf-8") as f:
            for line in f:
                if line.startswith("flags"):
                    return any(flag in line.split() for flag in BF16_CPU_FLAGS)
    except OSError:
        pass
    return False


def resolve_precision(precision: str = ModelsConfig.precision) -> str:
    """``float32`` or ``bfloat16``: the number format of the torch cross-encoders for ``models.precision``.
    ``auto`` follows the machine's CPU alone, on a GPU too (a GPU runs float32 fast enough), so that no identity
    depends on ``models.device``."""
    if precision not in PRECISIONS:
        raise ModelLoadError(f"models.precision must be one of {', '.join(PRECISIONS)}, got {precision!r}")
    if precision != "auto":
        return precision
    return "bfloat16" if native_bfloat16() else "float32"


def precision_tag(precision: str) -> str:
    """What a judge's identity adds for its number format: nothing for float32 (the identities of bases built
    before the choice existed), ``+bf16`` for bfloat16, whose probabilities differ in the third decimal."""
    return "" if precision == "float32" else "+bf16"
