"""Beam's inference module comes without its model manager's torch and scipy, and keeps what the stages use."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]

PROBE = """
import sys
import pipelines.beam.metering as metering
from apache_beam.ml.inference import base

assert "torch" not in sys.modules, "torch was imported"
assert "scipy.optimize" not in sys.modules, "scipy.optimize was imported"
assert base.ModelManager is None
assert metering.ModelHandler is base.ModelHandler and metering.RunInference is base.RunInference
assert base._get_current_process_memory_in_bytes() > 0, "the model-load memory figure is gone"
assert not any(type(f).__name__ == "_WithoutModelManager" for f in sys.meta_path), "the import guard stayed"
from apache_beam.ml.inference.model_manager import ModelManager  # the one path that needs it still finds it
print("ok", ModelManager.__name__)
"""


def _run(code: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)


def test_the_stages_inference_import_leaves_torch_unloaded():
    done = _run(PROBE)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split() == ["ok", "ModelManager"]


def test_where_torch_is_loaded_already_the_model_manager_is_let_through():
    done = _run("import torch, sys\nimport pipelines.beam.metering\nfrom apache_beam.ml.inference import base\n"
                "print(base.ModelManager is not None, 'apache_beam.ml.inference.model_manager' in sys.modules)")
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split() == ["True", "True"]
