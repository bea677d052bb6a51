"""The whole build graph (read .. publish) with small fake models: every stage's wiring, in seconds."""

import json
import time

import pyarrow.parquet as pq
from fake_models import FakeModels

from models.registry import load_config
from pipelines.build import run_build
from schemas.layout import QA_FILE, QUESTIONS_FILE, REJECTED_FILE


def test_whole_graph_runs_with_fake_models(fixtures, tmp_base):
    cfg = load_config(None, {"aggregation.cache": False, "models.cache": False, "quality.data_docs": False})
    t0 = time.perf_counter()
    res = run_build([str(fixtures / "tiny.jsonl"), str(fixtures / "bad.jsonl"), str(fixtures / "pairs.csv")],
                    tmp_base, cfg, factory=FakeModels())
    seconds = time.perf_counter() - t0
    c = res.manifest["counts"]
    assert c["rows_read"] == c["rows_accepted"] + c["rows_rejected"] and c["rows_rejected"] > 0
    assert 0 < c["published"] <= c["passed_both"] <= c["distinct_questions"]
    # the manifest names the models that ran, from the factory (nothing loaded to find them)
    assert res.manifest["models"] == FakeModels().identities()

    qa = pq.read_table(res.path / QA_FILE).to_pylist()
    assert [r["rank"] for r in qa] == list(range(1, len(qa) + 1))
    assert len(qa) == c["published"] == res.manifest["index"]["ntotal"]
    france = next(r for r in qa if r["question_key"] == "what is the capital of france")
    assert france["rank"] == 1 and "Paris" in france["answer"]  # the majority answer, not "Lyon."
    assert all(r["qtype"] in ("objective", "subjective") for r in qa)

    questions = pq.read_table(res.path / QUESTIONS_FILE).to_pylist()
    assert len(questions) == c["distinct_questions"]
    dropped = {r["question_key"]: r["reason"] for r in questions if r["reason"]}
    assert dropped and set(dropped.values()) <= {"low_gec", "low_intent", "low_gec+low_intent", "below_top_k"}
    assert pq.read_table(res.path / REJECTED_FILE).num_rows == c["rows_rejected"]
    assert json.loads((res.path / "manifest.json").read_text())["quality"]["critical_failures"] == []
    assert seconds < 60, seconds
