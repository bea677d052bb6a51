"""A base written by format 2 (questions.parquet's ``reason`` "+"-joined, the judges' details as JSON text,
qa.parquet's ``logs_period`` as ISO strings) still loads, serves, reports and is built upon exactly as the same
base written by the current format: one base built with the fake models from dated logs, and a copy whose
latest version is rewritten as format 2 wrote it (checksums updated, manifest_version 2)."""

import json
import shutil
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from fakes.models import FakeModels, HashEmbedder
from models.config_check import load_config
from pipelines.build import run_build
from schemas.layout import BASE_FORMAT, MANIFEST, QA_FILE, QUESTIONS_FILE, resolve_version, sha256_file
from schemas.tables import read_qa, read_questions

MILK = "How much is a gallon of milk right now?"
SPAIN = "What is the capital of Spain?"
CLOCK = "What time is it now?"
LATER = "What is the capital of Italy?"
CFG = {"aggregation.cache": False, "models.cache": False, "quality.data_docs": False}


def _row(question, answer, day):
    return {"question": question, "answer": answer, "timestamp": f"2026-{day}T09:00:00Z"}


def _plain(details: dict | None):
    """A typed details value back to the JSON text format 2 stored ("" when not scored)."""
    if details is None:
        return ""
    out = {k: v for k, v in details.items() if k != "other" and v is not None}
    out.update({o["name"]: json.loads(o["value"]) for o in details["other"]})
    return json.dumps(out, ensure_ascii=False, sort_keys=True)


def _as_format_2(version: Path) -> None:
    """Rewrite a version's qa.parquet and questions.parquet with format 2's column types, as a format-2 build
    left them (no descriptions), and its manifest to match."""
    questions = pq.read_table(version / QUESTIONS_FILE)
    rows = questions.to_pylist()
    for r in rows:
        r["reason"] = "+".join(r.pop("reasons"))
        r["gec_details"], r["intent_details"] = _plain(r["gec_details"]), _plain(r["intent_details"])
    former = {"reasons": pa.field("reason", pa.string(), nullable=False),
              "gec_details": pa.field("gec_details", pa.string(), nullable=False),
              "intent_details": pa.field("intent_details", pa.string(), nullable=False)}
    schema = pa.schema([former.get(f.name, pa.field(f.name, f.type, f.nullable)) for f in questions.schema])
    pq.write_table(pa.Table.from_pylist(rows, schema=schema), version / QUESTIONS_FILE)
    qa = pq.read_table(version / QA_FILE)
    rows = qa.to_pylist()
    for r in rows:
        p = r["logs_period"]
        r["logs_period"] = {"first": p["first"].isoformat(), "last": p["last"].isoformat()} if p else None
    period = pa.struct([pa.field("first", pa.string(), nullable=False), pa.field("last", pa.string(), nullable=False)])
    schema = pa.schema([pa.field(f.name, period if f.name == "logs_period" else f.type, f.nullable) for f in qa.schema])
    pq.write_table(pa.Table.from_pylist(rows, schema=schema), version / QA_FILE)
    manifest = json.loads((version / MANIFEST).read_text(encoding="utf-8"))
    manifest["manifest_version"] = 2
    for name in (QA_FILE, QUESTIONS_FILE):
        manifest["files"][name] = {"bytes": (version / name).stat().st_size, "sha256": sha256_file(version / name)}
    (version / MANIFEST).write_text(json.dumps(manifest, indent=2), encoding="utf-8")


@pytest.fixture(scope="module")
def bases(tmp_path_factory):
    """(the current-format base, its format-2 copy, the folder of the logs)"""
    work = tmp_path_factory.mktemp("format2")
    rows = ([_row(MILK, "About $4.20 a gallon.", d) for d in ("10-01", "10-15", "11-20")]
            + [_row(SPAIN, "Madrid is the capital of Spain.", d) for d in ("10-02", "10-03")]
            + [_row(CLOCK, "I cannot provide real-time information.", d) for d in ("10-04", "10-05")]
            + [_row("hello", "Hi! How can I help?", "10-06")])
    logs = work / "logs.jsonl"
    logs.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    run_build([str(logs)], work / "current", load_config(None, CFG), factory=FakeModels(), gate=False)
    shutil.copytree(work / "current", work / "former", symlinks=True)
    _as_format_2(resolve_version(work / "former"))
    return work / "current", work / "former", work


def test_the_copy_is_a_format_2_version(bases):
    _, former, _ = bases
    version = resolve_version(former)
    assert json.loads((version / MANIFEST).read_text())["manifest_version"] == 2 < BASE_FORMAT
    assert pq.read_schema(version / QUESTIONS_FILE).field("reason").type == pa.string()
    assert pq.read_schema(version / QUESTIONS_FILE).field("gec_details").type == pa.string()
    assert pq.read_schema(version / QA_FILE).field("logs_period").type.field("first").type == pa.string()


def test_its_files_read_as_the_current_ones(bases):
    current, former, _ = bases
    now, then = resolve_version(current), resolve_version(former)
    assert read_questions(then / QUESTIONS_FILE).equals(read_questions(now / QUESTIONS_FILE))
    assert read_qa(then / QA_FILE).equals(read_qa(now / QA_FILE))
    assert any(read_questions(then / QUESTIONS_FILE, ["reasons"]).column("reasons").to_pylist())


def test_it_loads_and_serves_as_the_current_format_does(bases):
    from indexes.loading import load_base
    from indexes.retrievers import AnswerRetriever

    current, former, _ = bases
    a, b = load_base(current, embedder=HashEmbedder()), load_base(former, embedder=HashEmbedder())
    assert b.periods == a.periods and b.withheld == a.withheld and b.time_sensitive == a.time_sensitive
    assert b.questions == a.questions and b.answers == a.answers and b.reliability == a.reliability
    assert b.withheld  # the refused entry is withheld, read from the former "reason" column
    milk = AnswerRetriever(former, embedder=HashEmbedder()).get(MILK)
    assert milk.found and milk.logs_period == {"first": "2026-10-01", "last": "2026-11-20"}
    ar_now = AnswerRetriever(current, embedder=HashEmbedder())
    ar_then = AnswerRetriever(former, embedder=HashEmbedder())
    for q in (MILK, SPAIN, CLOCK, "hello"):
        assert ar_then.get(q) == ar_now.get(q)


def test_the_report_and_the_browse_page_read_it(bases):
    from pipelines.release import browse, report

    current, former, _ = bases
    now, then = resolve_version(current), resolve_version(former)
    manifest = json.loads((now / MANIFEST).read_text())
    shown = report.collect(then, manifest)
    assert shown == report.collect(now, manifest)
    assert shown["question_rejections"]  # grouped by the joined reasons, as before
    assert browse.collect(then, manifest) == browse.collect(now, manifest)


def test_a_build_continues_a_format_2_version_as_it_continues_a_current_one(bases):
    """An incremental build on top of the format-2 version writes the current format, row for row what it writes
    on top of the current one."""
    current, former, work = bases
    more = work / "more.jsonl"
    more.write_text(json.dumps(_row(LATER, "Rome is the capital of Italy.", "11-21")) + "\n", encoding="utf-8")
    inputs = [str(work / "logs.jsonl"), str(more)]
    built = [run_build(inputs, base, load_config(None, CFG), factory=FakeModels(), gate=False)
             for base in (current, former)]
    assert [b.manifest["increment"]["mode"] for b in built] == ["incremental", "incremental"]
    assert [b.manifest["manifest_version"] for b in built] == [BASE_FORMAT, BASE_FORMAT]
    for name in (QA_FILE, QUESTIONS_FILE):
        a, b = pq.read_table(Path(built[0].path) / name), pq.read_table(Path(built[1].path) / name)
        assert a.equals(b) and a.schema.equals(b.schema, check_metadata=True), name
