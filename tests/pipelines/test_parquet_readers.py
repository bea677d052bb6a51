"""A published version's qa.parquet and questions.parquet read with common dataframe libraries (pandas, polars,
Hugging Face datasets, duckdb) give nested values
directly (lists, structs, dates), with no JSON to decode: the judges' details are structs, a question's reasons a
list, an entry's logs period two dates. Each reader the environment lacks is skipped, saying so (nothing is
downloaded while testing)."""

import datetime as dt
import importlib.util
import json
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from fakes.models import FakeModels
from models.config_check import load_config
from pipelines.build import run_build
from schemas.layout import QA_FILE, QUESTIONS_FILE, resolve_version

NESTED = {QUESTIONS_FILE: ["reasons", "gec_details", "intent_details"],
          QA_FILE: ["logs_period", "aliases", "answers", "viewpoints", "reliability_parts", "flags"]}
MILK = "How much is a gallon of milk right now?"


@pytest.fixture(scope="module")
def version(tmp_path_factory) -> Path:
    """A small base built with the fake models from dated logs."""
    work = tmp_path_factory.mktemp("readers")
    rows = ([{"question": MILK, "answer": "About $4.20 a gallon.", "timestamp": f"2026-{d}T09:00:00Z"}
             for d in ("10-01", "10-15", "11-20")]
            + [{"question": "What is the capital of Spain?", "answer": "Madrid.",
                "timestamp": "2026-10-02T23:30:00-05:00"}]
            + [{"question": "hello", "answer": "Hi! How can I help?"}, {"question": "asdkjh qwe qwe", "answer": "?"}])
    logs = work / "logs.jsonl"
    logs.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    cfg = load_config(None, {"aggregation.cache": False, "models.cache": False, "quality.data_docs": False})
    run_build([str(logs)], work / "base", cfg, factory=FakeModels(), gate=False)
    return resolve_version(work / "base")


def _plain(value):
    """numpy arrays (pandas' lists) as lists, recursively; everything else as it is."""
    if hasattr(value, "tolist") and not isinstance(value, (str, bytes)):
        value = value.tolist()
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


def _with_pandas(path: Path, columns: list[str]) -> list[dict]:
    import pandas as pd

    return [_plain(r) for r in pd.read_parquet(path, columns=columns).to_dict("records")]


def _with_polars(path: Path, columns: list[str]) -> list[dict]:
    import polars as pl

    return pl.read_parquet(path, columns=columns).to_dicts()


def _with_datasets(path: Path, columns: list[str], cache: Path) -> list[dict]:
    from datasets import Dataset

    ds = Dataset.from_parquet(str(path), columns=columns, cache_dir=str(cache))
    return [dict(r) for r in ds]


def _with_duckdb(path: Path, columns: list[str]) -> list[dict]:
    import duckdb

    names = ", ".join(f'"{c}"' for c in columns)
    with duckdb.connect() as con:
        cur = con.execute(f"SELECT {names} FROM read_parquet(?)", [str(path)])
        return [dict(zip(columns, row)) for row in cur.fetchall()]


READERS = {"pandas": _with_pandas, "polars": _with_polars, "datasets": _with_datasets, "duckdb": _with_duckdb}


@pytest.fixture(params=list(READERS))
def reader(request, tmp_path):
    name = request.param
    if importlib.util.find_spec(name) is None:
        pytest.skip(f"{name} is not installed in this environment (nothing is installed while testing)")
    read = READERS[name]
    return (lambda path, columns: read(path, columns, tmp_path)) if name == "datasets" else read


def _assert_no_json_text(value, where: str):
    """No string in a nested value is a JSON object or list (a value someone would have to decode)."""
    if isinstance(value, str):
        assert not value.lstrip().startswith(("{", "[")), f"{where}: JSON text {value[:60]!r}"
    elif isinstance(value, dict):
        for k, v in value.items():
            if k != "other":  # a key no built-in backend writes keeps its value as JSON text, by design
                _assert_no_json_text(v, f"{where}.{k}")
    elif isinstance(value, list):
        for v in value:
            _assert_no_json_text(v, where)


def test_nested_values_come_out_as_lists_structs_and_dates(version, reader):
    for name, columns in NESTED.items():
        rows = reader(version / name, columns)
        assert _plain(rows) == pq.read_table(version / name, columns=columns).to_pylist(), name
        for r in rows:
            for c in columns:
                _assert_no_json_text(r[c], c)
    questions = reader(version / QUESTIONS_FILE, ["question_key", "reasons", "gec_details", "intent_details"])
    by_key = {r["question_key"]: r for r in questions}
    assert by_key["hello"]["reasons"] == ["low_intent"]
    scored = [r for r in questions if r["gec_details"] is not None]
    assert scored and all(isinstance(r["gec_details"], dict) and isinstance(r["intent_details"], dict)
                          for r in scored)
    qa = {r["question"]: r for r in reader(version / QA_FILE, ["question", "logs_period", "aliases"])}
    assert qa[MILK]["logs_period"] == {"first": dt.date(2026, 10, 1), "last": dt.date(2026, 11, 20)}
    # a stamp with a UTC offset is dated in UTC: 23:30 at -05:00 on 2 October is 3 October
    assert qa["What is the capital of Spain?"]["logs_period"] == {"first": dt.date(2026, 10, 3),
                                                                 "last": dt.date(2026, 10, 3)}
    assert qa[MILK]["aliases"][0]["question"] == MILK
