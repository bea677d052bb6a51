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
