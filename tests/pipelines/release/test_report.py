"""The per-version report: self-contained HTML with the same figures as report.json, log text escaped."""

import json
import re
import shutil

import pytest

from models.config_check import load_config
from pipelines.build import run_build
from pipelines.commands.report import main as report_main



@pytest.fixture(scope="module")
def built(tmp_path_factory):
    from pathlib import Path

    fx = Path(__file__).resolve().parents[2] / "fixtures"
    work = tmp_path_factory.mktemp("report")
    hostile = work / "hostile.jsonl"
    hostile.write_text("\n".join([
        json.dumps({"question": "<script>alert('q')</script>", "answer": "<b>x</b>"}),
        '{"question": "<script>alert(\'raw\')</script>", "answer": ',  # malformed JSON: a rejected row
        json.dumps({"question": "What is the capital of France?", "answer": "Paris <img src=x onerror=1>"}),
    ]) + "\n", encoding="utf-8")
    res = run_build([str(fx / "tiny.jsonl"), str(hostile)], work / "base", load_config(None, {}))
    return res


@pytest.mark.slow  # a real-model build
def test_report_is_self_contained_and_matches_its_json(built):
    page = (built.path / "report.html").read_text(encoding="utf-8")
    figures = json.loads((built.path / "report.json").read_text(encoding="utf-8"))
    c = built.manifest["counts"]
    assert dict(figures["funnel"])["rows read"] == c["rows_read"] and dict(figures["funnel"])["published"] == \
        c["published"]
    assert f"{c['rows_read']:,}" in page and figures["version"] == built.version
    assert len(re.findall(r'<img src="data:image/png;base64,', page)) == 5  # GEC, intent, reliability, frequency, per question
    assert not re.search(r'(?:src|href)="(?:https?:)?//', page)  # nothing loaded from the network
    files = json.loads((built.path / "manifest.json").read_text(encoding="utf-8"))["files"]
    assert "report.html" not in files and "qa.parquet" in files  # reports are regenerable, not checksummed
    assert sum(figures["row_rejections"].values()) == c["rows_rejected"] >= 1
    assert figures["gate"]["critical_failures"] == 0 and "Quality gate passed" in page
    rel = figures["reliability"]
    assert len(rel["scores"]) == c["published"] and all(0.0 <= x <= 1.0 for x in rel["scores"])
    assert 'id="reliability"' in page and rel["least"] and rel["least"][0][0] == f"{min(rel['scores']):.3f}"


@pytest.mark.slow  # a real-model build
def test_great_expectations_data_docs_are_kept_beside_the_report(built):
    quality = built.manifest["quality"]
    assert quality["data_docs"] == "data_docs/index.html"
    docs = built.path / "data_docs"
    assert (docs / "index.html").is_file()
    pages = {p.name for p in docs.glob("validations/**/*.html")}
    assert {"qabase-accepted_rows.html", "qabase-qa_store.html", "qabase-index.html"} <= pages
    assert 'href="data_docs/index.html"' in (built.path / "report.html").read_text(encoding="utf-8")
    suites = {r["suite"] for r in quality["results"]}
    assert {"accepted_rows", "accepted_rows_profile", "scored_questions", "qa_store", "index"} <= suites


@pytest.mark.slow  # a real-model build
def test_log_text_is_escaped(built):
    page = (built.path / "report.html").read_text(encoding="utf-8")
    assert "<script" not in page.lower()
    assert "&lt;script&gt;alert(" in page  # the rejected row and the dropped question, shown as text


@pytest.mark.slow  # a real-model build
def test_report_command_rebuilds_a_version(built, tmp_path, capsys):
    base = built.path.parent.parent
    (built.path / "report.html").unlink()
    assert report_main(["--base", str(base), "--version", built.version]) == 0
    assert (built.path / "report.html").is_file()
    assert report_main(["--base", str(base), "--version", "nope"]) == 2
    assert "no published version nope" in capsys.readouterr().err
    shutil.rmtree(tmp_path, ignore_errors=True)


@pytest.mark.slow  # a real-model build
def test_quality_gate_stops_the_publish_on_bad_intermediate_data(tmp_path, monkeypatch):
    """Duplicate qids and an out-of-range score injected into the staged QA store: the gate refuses to
    publish, latest stays on the previous version, and the failure report says why."""
    from pathlib import Path

    import pyarrow.parquet as pq

    import pipelines.stages.write as write
    from schemas.errors import PublishError

    fx = Path(__file__).resolve().parents[2] / "fixtures"
    base = tmp_path / "base"
    first = run_build([str(fx / "tiny.jsonl")], base, load_config(None, {}))
    assert first.manifest["quality"]["critical_failures"] == [] and len(first.manifest["quality"]["results"]) >= 15
    real = write.write_store

    def corrupting_write_store(rows, staging, index_cfg):
        facts = real(rows, staging, index_cfg)
        path = Path(staging) / "qa.parquet"
        table = pq.read_table(path)
        data = table.to_pylist()
        data[1]["qid"] = data[0]["qid"]  # duplicate qid
        data[0]["gec_score"] = 1.5  # out of range
        pq.write_table(table.from_pylist(data, schema=table.schema), path)
        return facts

    monkeypatch.setattr(write, "write_store", corrupting_write_store)
    # the duplicate qid also leaves a counted question pointing at no entry (qid_in_base)
    with pytest.raises(PublishError, match=r"quality gate: 3 critical expectation\(s\) failed .*qid_in_base.*qid.*gec_score"):
        run_build([str(fx / "tiny.jsonl")], base, load_config(None, {}), full_rebuild=True)
    assert (base / "latest").resolve() == first.path  # unchanged
    failed = list((base / "failed").glob("*/report.html"))
    assert len(failed) == 1
    page = failed[0].read_text(encoding="utf-8")
    assert "FAIL" in page and "expect_column_values_to_be_unique" in page


@pytest.mark.slow  # a real-model build
def test_quality_gate_catches_accepted_rows_beyond_the_limits(tmp_path, monkeypatch):
    """A validator regression lets an over-long question through: the accepted-rows suites stop the publish."""
    import dataclasses
    from pathlib import Path

    import pipelines.stages.validate as validate
    from schemas.errors import PublishError

    src = tmp_path / "long.jsonl"
    src.write_text("\n".join(json.dumps({"question": q, "answer": "An answer."}) for q in [
        "What is the capital of France?", "What is the capital of France?",
        "Could you please explain how the tides are caused by the moon and the sun?"]) + "\n", encoding="utf-8")
    real = validate.validate_row
    monkeypatch.setattr(validate, "validate_row", lambda row, limits, *rest: real(
        row, dataclasses.replace(limits, max_question_chars=10 ** 6), *rest))
    # allow_empty: this base has no entry (the fake filter drops both questions), which is its own expectation
    cfg = load_config(None, {"limits.max_question_chars": 40, "quality.data_docs": False, "quality.allow_empty": True})
    with pytest.raises(PublishError, match=r"quality gate: 2 critical .*accepted_rows\.expect_column_value_lengths"
                                           r"_to_be_between\(question\).*accepted_rows_profile\..*question_chars_max"):
        run_build([str(src)], tmp_path / "base", cfg)
    assert not (tmp_path / "base" / "latest").exists()
    figures = json.loads(next(Path(tmp_path / "base" / "failed").glob("*/report.json")).read_text(encoding="utf-8"))
    assert figures["gate"]["critical_failures"] == 2
    failing = [r for r in figures["expectations"] if not r["success"]]
    assert any("Could you please explain" in x for r in failing for x in r["examples"])
