"""Beam's ``ModelHandler`` and ``RunInference``, imported without the model manager's torch and scipy.

``apache_beam.ml.inference.base`` imports its ``ModelManager`` when it is imported, and the manager imports torch
and ``scipy.optimize`` (1.5-3 s on 2 cores), for a manager that only ``RunInference(..., use_model_manager=True)``
runs and no stage here asks for. A build that runs no torch model (no MiniLM, no pair or answer-match model) need
not import torch at all. Beam expects the manager to be missing (its import sits in a ``try`` that leaves ``ModelManager`` None, as on
an install without torch) and imports it itself on the one path that needs it. So the first import of the module
here keeps the manager's import from running; where torch is already loaded the manager costs next to nothing and
is let through.
"""

from __future__ import annotations

import importlib.abc
import resource
import sys

_BASE = "apache_beam.ml.inference.base"
_MANAGER = "apache_beam.ml.inference.model_manager"


class _WithoutModelManager(importlib.abc.MetaPathFinder):
    """Refuses the model manager's module while Beam's inference module is first imported."""

    def find_spec(self, fullname, path=None, target=None):
        if fullname == _MANAGER:
            raise ImportError(f"{_MANAGER} is left unloaded: no stage uses Beam's model manager", name=fullname)
        return None


def _import_base():
    if _BASE in sys.modules or "torch" in sys.modules:
        from apache_beam.ml.inference import base

        return base
    finder = _WithoutModelManager()
    sys.meta_path.insert(0, finder)
    try:
        from apache_beam.ml.inference import base
    finally:
        sys.meta_path.remove(finder)
    if base.resource is None:  # the same `except ImportError` dropped the resource module with the manager
        base.resource = resource
    return base


_base = _import_base()
ModelHandler = _base.ModelHandler
RunInference = _base.RunInference

__all__ = ["ModelHandler", "RunInference"]
