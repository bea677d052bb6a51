"""The gate's audit of published text reads every string at a column, nested ones too, and counts each value."""

import pyarrow as pa
import pyarrow.parquet as pq

from schemas.layout import QA_FILE
from schemas.privacy.audit import personal_data_counts, texts
from schemas.privacy.redactor import Redactor


def _qa(folder):
    answer = pa.struct([("text", pa.string()), ("count", pa.int64())])
    table = pa.table({
        "question": pa.array(["Mail me at ann@example.com?", None, "Where is Oslo?"]),
        "answers": pa.array([[{"text": "Write to ann@example.com.", "count": 2}, {"text": None, "count": 1}],
                             None, [], ], type=pa.list_(answer)),
        "viewpoints": pa.array([[{"summary": "ann@example.com"}], [{"summary": "In Norway."}], None],
                               type=pa.list_(pa.struct([("summary", pa.string())]))),
        "rank": pa.array([1, 2, 3]),
    })
    pq.write_table(table, folder / QA_FILE)


def test_texts_reads_top_level_and_nested_strings_and_nothing_where_the_path_is_not_there(tmp_path):
    _qa(tmp_path)
    assert list(texts(tmp_path, QA_FILE, "question")) == ["Mail me at ann@example.com?", "Where is Oslo?"]
    assert list(texts(tmp_path, QA_FILE, "answers.text")) == ["Write to ann@example.com."]
    assert list(texts(tmp_path, QA_FILE, "viewpoints.summary")) == ["ann@example.com", "In Norway."]
    for absent in ("answers.missing", "rank.text", "aliases.question", "rank"):
        assert list(texts(tmp_path, QA_FILE, absent)) == []
    assert list(texts(tmp_path, "no_such.parquet", "question")) == []


def test_each_value_is_counted_where_it_stands_even_when_the_same_text_was_read_before(tmp_path):
    _qa(tmp_path)
    counts = personal_data_counts(tmp_path, Redactor.of())
    assert counts["qa.parquet:question"] == 1 and counts["qa.parquet:answers.text"] == 1
    assert counts["qa.parquet:viewpoints.summary"] == 1 and counts["qa.parquet:answer"] == 0
