"""qa.parquet and questions.parquet describe themselves and hold typed values (schemas.described,
schemas.details, schemas.tables): every column and nested field has a description, the docs' column tables are
the generated ones, the judges' details are structs, and a format-2 file (JSON text, "+"-joined reasons, ISO
date strings) reads as the current format."""

import datetime as dt
import json
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from schemas import QA_SCHEMA, QUESTIONS_SCHEMA, documents
from schemas.described import DESCRIPTION, description, every_field
from schemas.details import GEC_DETAILS, INTENT_DETAILS, details_value
from schemas.layout import QA_FILE, QUESTIONS_FILE
from schemas.tables import has_reason, read_qa, read_questions, rows_as_shown

# how base format 2 stored the columns format 3 typed
FORMAT_2_QUESTIONS = pa.schema([
    pa.field("question_key", pa.string(), nullable=False),
    pa.field("gec_details", pa.string(), nullable=False),
    pa.field("intent_details", pa.string(), nullable=False),
    pa.field("reason", pa.string(), nullable=False),
])
FORMAT_2_QA = pa.schema([
    pa.field("qid", pa.string(), nullable=False),
    pa.field("logs_period", pa.struct([pa.field("first", pa.string(), nullable=False),
                                       pa.field("last", pa.string(), nullable=False)]), nullable=True),
])


@pytest.mark.parametrize("schema", [QA_SCHEMA, QUESTIONS_SCHEMA], ids=["qa", "questions"])
def test_every_column_and_nested_field_has_a_description(schema):
    undescribed = [path for path, f in every_field(schema) if not description(f).strip()]
    assert undescribed == []
    assert len(every_field(schema)) > len(schema)  # the nested fields were walked too


def test_a_built_bases_files_carry_the_descriptions(shared_fake_base):
    """The Parquet files keep the Arrow field metadata: a reader of the published file finds them."""
    version = Path(shared_fake_base[1].path)
    for name, schema in ((QA_FILE, QA_SCHEMA), (QUESTIONS_FILE, QUESTIONS_SCHEMA)):
        stored = pq.read_schema(version / name)
        assert stored.names == schema.names
        assert [(p, description(f)) for p, f in every_field(stored)] == \
            [(p, description(f)) for p, f in every_field(schema)]
        assert all(f.metadata[DESCRIPTION] for f in stored)


def test_the_column_tables_of_outputs_md_are_the_generated_ones():
    """docs/reference/outputs.md holds what `python -m schemas.documents` writes from the descriptions."""
    outputs = (documents.DOCS / "outputs.md").read_text(encoding="utf-8")
    assert documents.with_column_tables(outputs) == outputs
    for schema in (QA_SCHEMA, QUESTIONS_SCHEMA):
        for path, f in every_field(schema):
            assert f"| `{path}` |" in outputs and description(f).replace("|", "\\|") in outputs


def test_details_are_typed_fields_with_what_no_field_declares_kept_aside():
    gec = {"words": 4, "nll": 5, "z": None, "tagger_edits": [{"word": "teh", "tag": "$REPLACE_the", "p": 0.91}],
           "unknown_words": ["teh"], "doubled": True, "beam": {"width": 4}}
    typed = details_value(gec, GEC_DETAILS)
    assert typed["words"] == 4 and typed["nll"] == 5.0 and isinstance(typed["nll"], float) and typed["z"] is None
    assert typed["tagger_edits"] == [{"word": "teh", "tag": "$REPLACE_the", "p": 0.91}]
    assert typed["fluency"] is None  # a field this backend does not write
    # an undeclared key, and a declared one whose value does not fit its type, keep their value as JSON text
    assert typed["other"] == [{"name": "beam", "value": '{"width": 4}'}, {"name": "doubled", "value": "true"}]
    assert details_value(json.dumps(gec, sort_keys=True), GEC_DETAILS) == typed  # the score cache's JSON text
    assert details_value("", GEC_DETAILS) is None and details_value(None, INTENT_DETAILS) is None  # not scored
    intent = details_value({"margin": 0.1, "space": "en", "signals": {"very_short": -1.2, "question_form": 0.8},
                            "top_labels": {"weather": 0.2, "howto": 0.7}}, INTENT_DETAILS)
    assert intent["signals"] == [{"name": "question_form", "value": 0.8}, {"name": "very_short", "value": -1.2}]
    assert intent["top_labels"] == [{"label": "howto", "probability": 0.7}, {"label": "weather", "probability": 0.2}]
    assert pa.array([typed, None], GEC_DETAILS).to_pylist()[0] == typed  # the values fit the Arrow types
    assert pa.array([intent], INTENT_DETAILS).to_pylist() == [intent]


def _format_2_files(folder: Path) -> tuple[Path, Path]:
    questions = pa.Table.from_pylist([
        {"question_key": "a", "gec_details": json.dumps({"nll": 3.5, "words": 2}), "intent_details":
         json.dumps({"margin": 0.2, "signals": {"question_form": 0.8}}), "reason": ""},
        {"question_key": "b", "gec_details": json.dumps({"nll": 9.0}), "intent_details": json.dumps({"margin": -0.3}),
         "reason": "low_gec+low_intent+no_subject"},
        {"question_key": "c", "gec_details": "", "intent_details": "", "reason": "below_top_k"},
        {"question_key": "d", "gec_details": "{}", "intent_details": "{}", "reason": "no_valid_answer"},
    ], schema=FORMAT_2_QUESTIONS)
    qa = pa.Table.from_pylist([{"qid": "q1", "logs_period": {"first": "2026-10-01", "last": "2026-11-20"}},
                               {"qid": "q2", "logs_period": None}], schema=FORMAT_2_QA)
    pq.write_table(questions, folder / QUESTIONS_FILE)
    pq.write_table(qa, folder / QA_FILE)
    return folder / QUESTIONS_FILE, folder / QA_FILE


def test_a_format_2_questions_file_reads_as_the_current_format(tmp_path):
    path, _ = _format_2_files(tmp_path)
    table = read_questions(path)
    assert table.column_names == ["question_key", "gec_details", "intent_details", "reasons"]
    for name in table.column_names:  # the current types and descriptions
        assert table.schema.field(name).type == QUESTIONS_SCHEMA.field(name).type
        assert description(table.schema.field(name)) == description(QUESTIONS_SCHEMA.field(name))
    rows = {r["question_key"]: r for r in table.to_pylist()}
    assert [rows[k]["reasons"] for k in "abcd"] == [[], ["low_gec", "low_intent", "no_subject"], ["below_top_k"],
                                                   ["no_valid_answer"]]
    assert rows["a"]["gec_details"]["nll"] == 3.5 and rows["a"]["gec_details"]["words"] == 2
    assert rows["a"]["intent_details"]["signals"] == [{"name": "question_form", "value": 0.8}]
    assert rows["c"]["gec_details"] is None and rows["d"]["gec_details"]["other"] == []
    # the current name asks for the former column; a column the file lacks is left out
    assert read_questions(path, ["question_key", "reasons", "entry_key"]).column_names == ["question_key", "reasons"]
    assert has_reason(table, ["no_subject", "no_valid_answer"]).to_pylist() == [False, True, False, True]
    shown = rows_as_shown(path, ["question_key", "reason"])
    assert [r["reason"] for r in shown] == ["", "low_gec+low_intent+no_subject", "below_top_k", "no_valid_answer"]


def test_a_format_2_qa_file_reads_its_periods_as_dates(tmp_path):
    _, path = _format_2_files(tmp_path)
    table = read_qa(path)
    assert table.schema.field("logs_period").type == QA_SCHEMA.field("logs_period").type
    assert table.column("logs_period").to_pylist() == [{"first": dt.date(2026, 10, 1), "last": dt.date(2026, 11, 20)},
                                                       None]
    assert [r["logs_period"] for r in rows_as_shown(path, ["logs_period"])] == \
        [{"first": "2026-10-01", "last": "2026-11-20"}, None]


def test_a_current_file_reads_unchanged(shared_fake_base):
    version = Path(shared_fake_base[1].path)
    for name, read in ((QA_FILE, read_qa), (QUESTIONS_FILE, read_questions)):
        stored = pq.read_table(version / name)
        assert read(version / name).equals(stored, check_metadata=True)
