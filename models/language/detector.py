"""The detector a config names (``input.language_detector``), loaded once per process, and its identity."""

from __future__ import annotations

import functools

from models.language.base import ScriptFirstDetector
from schemas.errors import ModelLoadError

DEFAULT = "langid"

def load_detector(spec: str = DEFAULT) -> ScriptFirstDetector:
    from models.language import hf, langid

    if spec == langid.NAME:
        return ScriptFirstDetector(langid.LangidModel())
    if spec.startswith(hf.PREFIX) and spec[len(hf.PREFIX):]:
        return ScriptFirstDetector(hf.HfLanguageModel(spec[len(hf.PREFIX):]))
    raise ModelLoadError(f"language: unknown detector {spec!r} (use {DEFAULT} or hf:/path/to/a/local/classifier)")


@functools.lru_cache(maxsize=None)
def shared_detector(spec: str = DEFAULT) -> ScriptFirstDetector:
    """One detector per process and spec (its per-text cache is shared too)."""
    return load_detector(spec)


def detector_identity(spec: str = DEFAULT) -> str:
    """The ``model_id`` :func:`load_detector` would give, without loading a model."""
    from importlib.metadata import version

    from models.language import hf, langid

    if spec == langid.NAME:
        return f"script+py3langid-{version('py3langid')}[iso639-1]"
    if spec.startswith(hf.PREFIX):
        return "script+" + hf.hf_identity(spec[len(hf.PREFIX):])
    raise ModelLoadError(f"language: unknown detector {spec!r}")
