"""Language detection: which language a logged question is in.

``load_detector(spec)`` gives a :class:`~models.language.base.LanguageDetector` for ``input.language_detector``:

- ``langid`` (default): py3langid, whose model ships in its wheel (offline, deterministic);
- ``hf:/path``: a local Hugging Face sequence-classification directory with language labels.

Either way the script decides first (Han -> zh, kana -> ja, Hangul -> ko; see ``base``).
``shared_detector(spec)`` loads one per process (Beam workers call it in ``setup``).
"""

from __future__ import annotations

import functools

from models.language.base import LanguageDetector, LanguageModel, ScriptFirstDetector, decide
from schemas.errors import ModelLoadError

DEFAULT = "langid"

__all__ = ["DEFAULT", "LanguageDetector", "LanguageModel", "ScriptFirstDetector", "decide", "load_detector",
           "shared_detector", "detector_identity"]


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
