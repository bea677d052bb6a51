import gzip
import shutil

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from pipelines.stages.read import chat_pairs, expand_inputs, file_format, parse_file
from pipelines.stages.validate import validate_row
from schemas.config import InputConfig, LimitsConfig
from schemas.errors import InputError
from schemas.records import RawRow, Reject

CFG, LIM = InputConfig(), LimitsConfig()


def _parse(path, cfg=CFG):
    return list(parse_file(str(path), file_format(str(path)), cfg, LIM))


def test_jsonl_bad_rows_become_rejects_with_reasons(fixtures):
    items = _parse(fixtures / "bad.jsonl")
    rejects = [i for i in items if isinstance(i, Reject)]
    rows = [i for i in items if isinstance(i, RawRow)]
    assert [(r.reason, r.position) for r in rejects] == [
        ("malformed_json", 2), ("not_an_object", 3), ("chat_no_user_turn", 10)]
    assert all(r.stage == "read" and r.source.endswith("bad.jsonl") for r in rejects)
    assert rejects[0].raw == "{this is not json"
    # the blank line 11 is not a row; positions are line numbers
    assert [r.position for r in rows] == [1, 4, 5, 6, 7, 8, 9, 12]
    reasons = [getattr(validate_row(r, LIM), "reason", "ok") for r in rows]
    assert reasons == ["ok", "missing_question", "missing_answer", "question_not_string", "answer_not_string",
                       "empty_question", "empty_question_key", "ok"]


def test_oversize_text_is_rejected():
    lim = LimitsConfig(max_question_chars=10, raw_preview_chars=20)
    out = validate_row(RawRow("f", 1, "x" * 11, "a"), lim)
    assert out.reason == "question_too_long" and "11 chars" in out.detail and len(out.raw) <= 20


def test_chat_records_first_and_all_pairs(fixtures):
    rows = _parse(fixtures / "chat.jsonl")
    assert [(r.question, r.answer, r.turn) for r in rows] == [
        ("How do I reset my password?", "Click Forgot password on the sign-in page.", 1),
        ("What is the capital of France?", "Paris.", 1)]
    assert rows[0].conversation_id == "c1"
    rows = _parse(fixtures / "chat.jsonl", InputConfig(chat_pairs="all"))
    assert [r.turn for r in rows] == [1, 2, 1]
    assert chat_pairs("nope", "first") == "chat_messages_not_a_list"
    assert chat_pairs([{"role": "user", "content": "hi"}], "first") == "chat_no_assistant_reply"


def test_csv_and_bad_field_count(fixtures):
    items = _parse(fixtures / "pairs.csv")
    assert [type(i).__name__ for i in items] == ["RawRow", "Reject", "RawRow"]
    assert items[1].reason == "csv_bad_field_count" and items[1].position == 2
    assert items[0].ext_id == "c1"


def test_gzip_and_parquet(tmp_path, fixtures):
    gz = tmp_path / "tiny.jsonl.gz"
    with open(fixtures / "tiny.jsonl", "rb") as src, gzip.open(gz, "wb") as dst:
        shutil.copyfileobj(src, dst)
    assert len(_parse(gz)) == 15
    pq.write_table(pa.table({"question": ["q1?", None], "answer": ["a1", "a2"]}), tmp_path / "t.parquet")
    rows = _parse(tmp_path / "t.parquet")
    assert [(r.question, r.position) for r in rows] == [("q1?", 1), (None, 2)]
    assert validate_row(rows[1], LIM).reason == "missing_question"


def test_custom_column_names(tmp_path):
    p = tmp_path / "x.jsonl"
    p.write_text('{"prompt": "Why is the sky blue?", "response": "Rayleigh scattering."}\n')
    rows = _parse(p, InputConfig(question_field="prompt", answer_field="response"))
    assert rows[0].question == "Why is the sky blue?" and rows[0].answer == "Rayleigh scattering."


def test_missing_input_and_unknown_format_fail_fast(tmp_path, fixtures):
    with pytest.raises(InputError, match="no such file or no files match"):
        expand_inputs([str(tmp_path / "missing.jsonl")])
    with pytest.raises(InputError, match="no such file or no files match"):
        expand_inputs([str(tmp_path / "*.jsonl")])
    (tmp_path / "x.txt").write_text("hi")
    with pytest.raises(InputError, match="cannot tell the format"):
        expand_inputs([str(tmp_path / "x.txt")])
    files = expand_inputs([str(fixtures / "*.jsonl")])
    assert [f["path"].rsplit("/", 1)[1] for f in files] == ["bad.jsonl", "chat.jsonl", "empty.jsonl", "tiny.jsonl"]


def test_a_folder_input_takes_the_log_files_in_it(tmp_path, fixtures):
    (tmp_path / "a.jsonl").write_text('{"question": "q?", "answer": "a"}\n')
    (tmp_path / "notes.txt").write_text("not a log")
    (tmp_path / ".hidden.jsonl").write_text("")
    files = expand_inputs([str(tmp_path)])
    assert [f["path"] for f in files] == [str(tmp_path / "a.jsonl")]


def test_logged_language_tag_wins_over_detection():
    row = RawRow("f", 1, "OK?", "a", lang_hint="zh-CN")
    assert validate_row(row, LIM).lang == "zh"
    assert validate_row(row._replace(lang_hint="en_US"), LIM).lang == "en"
    out = validate_row(row._replace(lang_hint="fr"), LIM)  # a language tag we know, not one the build keeps
    assert (out.reason, out.detail) == ("unsupported_language", "fr (logged lang 'fr'); input.languages: en, zh, mixed")
    assert validate_row(row._replace(lang_hint="klingon"), LIM).lang == "en"  # a tag we do not know: detected


def test_accepted_profile_combines_exactly_across_bundles():
    from pipelines.stages.validate import AcceptedProfileFn
    from schemas.records import AcceptedRow

    fn = AcceptedProfileFn()
    rows = [AcceptedRow("k1", "Hi?", "Yes.", "yes", "en", "a:1"), AcceptedRow("k2", "A longer one?", "No", "no", "en",
                                                                              "a:2"),
            AcceptedRow("", "?", "Maybe so", "maybe so", "other", "a:3")]
    a, b = fn.create_accumulator(), fn.create_accumulator()
    for r in rows[:2]:
        a = fn.add_input(a, r)
    b = fn.add_input(b, rows[2])
    out = fn.extract_output(fn.merge_accumulators([a, fn.create_accumulator(), b]))
    assert out == {"rows": 3, "question_chars_min": 1, "question_chars_max": 13, "answer_chars_min": 2,
                   "answer_chars_max": 8, "empty_key": 1}
