"""Issue 18, reading: a bad record or a bad file never aborts the read and never loses or changes a row
silently. Every record of every file below is a row or a reject with a reason: rows read = accepted + rejected.

Each test writes its own small file; ``_funnel`` reads it (parse_file) and validates its rows (validate_row),
as the build does."""

import bz2
import csv
import gzip
import json
import lzma
import os

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from pipelines.stages import read
from pipelines.stages.read import expand_inputs, file_format, parse_file, parse_parquet
from pipelines.stages.validate import validate_row
from schemas.config import InputConfig, LimitsConfig
from schemas.errors import InputError
from schemas.records import AcceptedRow, RawRow, Reject
from schemas.text import clean_surface

CFG, LIM = InputConfig(), LimitsConfig()


def _question(i: int) -> str:
    return f"How do I reset the password of account {i}?"


def _record(i: int) -> dict:
    return {"question": _question(i), "answer": f"Use the reset link {i}."}


def _jsonl(numbers) -> str:
    return "".join(json.dumps(_record(i)) + "\n" for i in numbers)


def _csv(numbers, header: str = "question,answer\n") -> str:
    return header + "".join(f'"{_question(i)}","Use the reset link {i}."\n' for i in numbers)


def _funnel(path, cfg=CFG, limits=LIM, fmt=None) -> tuple[list[AcceptedRow], list[Reject]]:
    """(accepted rows, rejects of read and validate) of one file, in file order."""
    items = list(parse_file(str(path), fmt or file_format(str(path)), cfg, limits))
    accepted, rejected = [], []
    for item in items:
        out = validate_row(item, limits) if isinstance(item, RawRow) else item
        (rejected if isinstance(out, Reject) else accepted).append(out)
    assert len(accepted) + len(rejected) == len(items)
    return accepted, rejected


def _positions(rows) -> list[int]:
    return [int(r.row_id.rsplit(":", 1)[1]) for r in rows]


def _reasons(rejects) -> list[tuple[str, int]]:
    return [(r.reason, r.position) for r in rejects]


def _storable(items) -> None:
    """Every text of every record encodes as UTF-8 (what writing Parquet and keying by Beam's coders need)."""
    for item in items:
        for value in item:
            if isinstance(value, str):
                value.encode("utf-8")


# --- one bad record aborted the build ------------------------------------------------------------------------

def test_a_json_number_too_long_for_python_is_a_malformed_json_reject(tmp_path):
    path = tmp_path / "digits.jsonl"
    path.write_text(_jsonl([1]) + '{"question": "How long?", "answer": ' + "9" * 5000 + "}\n" + _jsonl([3]))
    accepted, rejected = _funnel(path)
    assert _positions(accepted) == [1, 3]
    assert _reasons(rejected) == [("malformed_json", 2)]
    assert "4300 digits" in rejected[0].detail and "set_int_max_str_digits" not in rejected[0].detail
    assert rejected[0].source == str(path)


@pytest.mark.parametrize("compress,streams", [(gzip.compress, True), (bz2.compress, False), (lzma.compress, True)],
                         ids=["gzip", "bzip2", "xz"])
def test_a_truncated_compressed_file_keeps_every_line_before_the_cut_and_rejects_the_rest(tmp_path, compress,
                                                                                         streams):
    data = compress(_jsonl(range(1, 201)).encode())
    path = tmp_path / "cut.jsonl.gz"
    path.write_bytes(data[: len(data) // 2])
    accepted, rejected = _funnel(path, fmt="jsonl")
    kept = len(accepted)
    # bzip2 gives out nothing of a block cut short (900 kB): here the whole file
    assert (0 < kept if streams else kept == 0) and kept < 200 and _positions(accepted) == list(range(1, kept + 1))
    assert _reasons(rejected) == [("unreadable_file", kept + 1)]  # the cut line is in it, not a malformed_json
    assert "truncated" in rejected[0].detail
    assert (f"lines 1-{kept} were read" if kept else "no line was read") in rejected[0].detail


@pytest.mark.parametrize("damage", [b"\xff" * 40, b"\x00" * 40], ids=["crc", "zlib"])
def test_a_corrupt_gz_is_one_reject_and_no_damaged_row(tmp_path, damage):
    data = bytearray(gzip.compress(_jsonl(range(1, 201)).encode(), mtime=0))
    data[len(data) // 2: len(data) // 2 + 40] = damage
    path = tmp_path / "corrupt.jsonl.gz"
    path.write_bytes(bytes(data))
    accepted, rejected = _funnel(path)
    # before: rows decompressed from the damaged data were accepted (the CRC fails only at the end)
    assert accepted == [] and _reasons(rejected) == [("unreadable_file", 1)]
    assert rejected[0].detail.startswith("corrupt gzip data: ")
    assert rejected[0].detail.endswith("no line is read (which lines are damaged cannot be told)")


def test_a_plain_text_file_named_gz_is_read_as_the_text_it_is(tmp_path):
    path = tmp_path / "plain.jsonl.gz"
    path.write_text(_jsonl([1, 2, 3]))
    accepted, rejected = _funnel(path)
    assert _positions(accepted) == [1, 2, 3] and rejected == []
    gz = tmp_path / "gzipped.jsonl"  # and gzip data without the name
    gz.write_bytes(gzip.compress(_jsonl([1, 2]).encode()))
    assert _positions(_funnel(gz)[0]) == [1, 2]


def test_a_lone_surrogate_is_a_validate_reject_and_nothing_downstream_sees_it(tmp_path):
    path = tmp_path / "surrogates.jsonl"
    path.write_text("\n".join([
        r'{"question": "\ud800 How do I reset my password?", "answer": "Use the link."}',
        r'{"question": "How do I reset my password?", "answer": "Use the \udfff link."}',
        r'{"question": "How do I reset my password?", "answer": "Use the link.", "timestamp": "2026-\ud800"}',
        r'{"question": "Why is \ud83d\ude00 so popular?", "answer": "It is friendly."}',  # a pair: one emoji
        r'{"messages": [{"role": "bot", "content": "\ud800"}]}',
    ]) + "\n")
    accepted, rejected = _funnel(path)
    assert [r.question for r in accepted] == ["Why is \U0001f600 so popular?"]
    assert [(r.stage, r.reason, r.position) for r in rejected] == [
        ("validate", "invalid_unicode", 1), ("validate", "invalid_unicode", 2), ("validate", "invalid_unicode", 3),
        ("read", "chat_no_user_turn", 5)]
    assert rejected[0].detail.startswith("question: lone surrogate U+D800 at character 0")
    assert rejected[1].detail.startswith("answer: lone surrogate U+DFFF")
    assert rejected[2].detail.startswith("timestamp: lone surrogate U+D800")
    assert "\\ud800" in rejected[0].raw and "\\ud800" in rejected[3].raw  # shown escaped
    _storable(accepted + rejected)


# --- rows lost or changed with no reject ---------------------------------------------------------------------

def test_a_csv_quote_left_open_swallows_no_rows(tmp_path):
    path = tmp_path / "quote.csv"
    path.write_text(_csv([1, 2]) + f'"{_question(3)},Use the reset link 3.\n' + _csv([4, 5], header=""))
    accepted, rejected = _funnel(path)
    assert [r.question for r in accepted] == [_question(i) for i in (1, 2, 4, 5)]
    assert _reasons(rejected) == [("csv_unclosed_quote", 3)]
    assert rejected[0].detail == ("line 4: a quote opened here does not close where the row ends; line 5 is read "
                                  "again as a row")
    assert rejected[0].raw == f'"{_question(3)},Use the reset link 3.'


def test_a_csv_quote_left_open_past_the_field_size_limit_swallows_no_rows(tmp_path):
    path = tmp_path / "quote.csv"
    path.write_text(_csv([1]) + f'"{_question(2)},Use the reset link 2.\n' + _csv(range(3, 9), header=""))
    old = csv.field_size_limit(150)  # the csv module's error ("field larger than field limit"), not a count
    try:
        accepted, rejected = _funnel(path)
    finally:
        csv.field_size_limit(old)
    assert [r.question for r in accepted] == [_question(i) for i in (1, *range(3, 9))]
    assert _reasons(rejected) == [("csv_unclosed_quote", 2)]


def test_a_quoted_answer_over_several_lines_is_still_one_row(tmp_path):
    path = tmp_path / "multiline.csv"
    path.write_text('question,answer\n"How do I reset my password?","First, open settings.\nThen: reset."\n')
    accepted, rejected = _funnel(path)
    assert [r.answer for r in accepted] == ["First, open settings. Then: reset."] and rejected == []


def test_a_csv_without_a_header_is_every_row_rejected_the_first_one_too(tmp_path):
    path = tmp_path / "headless.csv"
    path.write_text(_csv([1, 2, 3], header=""))
    accepted, rejected = _funnel(path)
    assert accepted == []
    assert _reasons(rejected) == [("csv_no_header", 0), ("csv_no_header", 1), ("csv_no_header", 2)]
    assert "names no 'question' column" in rejected[0].detail and _question(1) in rejected[0].raw
    assert rejected[1].detail == "no header row to read it by (row 0: csv_no_header)"


def test_a_csv_header_naming_the_question_but_no_answer_is_a_header(tmp_path):
    path = tmp_path / "no_answer_column.csv"
    path.write_text("question,reply\nHow do I reset my password?,Use the link.\n")
    accepted, rejected = _funnel(path)
    assert accepted == [] and _reasons(rejected) == [("missing_answer", 1)]  # as before: the row is read


def test_a_csv_header_that_is_not_utf8_leaves_no_row_to_read(tmp_path):
    path = tmp_path / "bad_header.csv"
    path.write_bytes(b"question,r\xe9ponse\n" + _csv([1, 2], header="").encode())
    accepted, rejected = _funnel(path)
    assert accepted == []
    assert _reasons(rejected) == [("invalid_utf8", 0), ("csv_no_header", 1), ("csv_no_header", 2)]
    assert rejected[1].detail == "no header row to read it by (row 0: invalid_utf8)"


def test_invalid_utf8_is_a_reject_naming_the_byte_not_a_replacement_character(tmp_path):
    path = tmp_path / "latin1.jsonl"
    bad = '{"question": "Where is the caf\u00e9?", "answer": "Here."}\n'.encode("latin-1")
    first = _jsonl([1]).encode()
    path.write_bytes(first + bad + _jsonl([3]).encode())
    accepted, rejected = _funnel(path)
    assert _positions(accepted) == [1, 3] and all("\ufffd" not in r.question for r in accepted)
    assert _reasons(rejected) == [("invalid_utf8", 2)]
    at = bad.index(b"\xe9")
    assert rejected[0].detail.startswith(f"byte 0xe9 at byte {at} of the line (byte {len(first) + at} of the file)")
    assert "caf\\xe9" in rejected[0].raw


def test_invalid_utf8_in_a_csv_row_and_in_gzip_data(tmp_path):
    path = tmp_path / "latin1.csv"
    path.write_bytes(_csv([1]).encode() + "\"Where is the caf\u00e9?\",Here.\n".encode("latin-1")
                     + _csv([3], header="").encode())
    accepted, rejected = _funnel(path)
    assert [r.question for r in accepted] == [_question(1), _question(3)]
    assert _reasons(rejected) == [("invalid_utf8", 2)] and rejected[0].detail.startswith("line 3: byte 0xe9")
    gz = tmp_path / "latin1.jsonl.gz"
    gz.write_bytes(gzip.compress(b'{"question": "Caf\xe9?", "answer": "Here."}\n'))
    assert "of the decompressed file" in _funnel(gz)[1][0].detail


def test_a_question_of_only_invisible_characters_is_empty(tmp_path):
    path = tmp_path / "invisible.jsonl"
    lines = [{"question": "\u200b\u200b", "answer": "a"}, {"question": "\x00\x07\x1b", "answer": "a"},
             {"question": "\u200b \ufeff\u2060\u00ad", "answer": "a"},
             {"question": "How do I reset my password?", "answer": "\u200d\u200c"},
             {"question": "\u200bHow do I\x00reset my password?\u200e", "answer": "Use the link.\x07"}]
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))
    accepted, rejected = _funnel(path)
    assert _reasons(rejected) == [("empty_question", 1), ("empty_question", 2), ("empty_question", 3),
                                  ("empty_answer", 4)]
    assert [(r.question, r.answer) for r in accepted] == [("How do I reset my password?", "Use the link.")]


def test_clean_surface_trims_invisible_ends_and_keeps_what_holds_text_together():
    assert clean_surface("\ufeff\u200b What is  AI?\u200b\n") == "What is AI?"
    assert clean_surface("a\x00b\x1bc\x85d") == "a b c d"
    family = "\U0001f468\u200d\U0001f469\u200d\U0001f467"  # zero-width joiners inside an emoji sequence
    assert clean_surface(f"Who is in {family}?") == f"Who is in {family}?"
    england = "\U0001f3f4\U000e0067\U000e0062\U000e0065\U000e006e\U000e0067\U000e007f"  # ends in a tag
    assert clean_surface(f"Flag {england}") == f"Flag {england}"
    assert clean_surface("\u200c\u200d\u2060") == ""


# --- encodings users have ------------------------------------------------------------------------------------

def test_a_utf8_bom_is_not_part_of_the_first_record(tmp_path):
    jsonl = tmp_path / "bom.jsonl"
    jsonl.write_bytes(b"\xef\xbb\xbf" + _jsonl([1, 2]).encode())
    assert _positions(_funnel(jsonl)[0]) == [1, 2]
    table = tmp_path / "bom.csv"
    table.write_bytes(b"\xef\xbb\xbf" + _csv([1, 2]).encode())
    accepted, rejected = _funnel(table)
    assert [r.question for r in accepted] == [_question(1), _question(2)] and rejected == []
    joined = tmp_path / "cat.jsonl"  # files joined with `cat`, each with its BOM
    joined.write_bytes(b"\xef\xbb\xbf" + _jsonl([1]).encode() + b"\xef\xbb\xbf" + _jsonl([2]).encode())
    assert _positions(_funnel(joined)[0]) == [1, 2]


@pytest.mark.parametrize("encoding,bom", [("utf-16-le", b"\xff\xfe"), ("utf-16-be", b"\xfe\xff"),
                                          ("utf-32-le", b"\xff\xfe\x00\x00"), ("utf-32-be", b"\x00\x00\xfe\xff")])
@pytest.mark.parametrize("name", ["log.jsonl", "log.csv", "log.json", "log.jsonl.gz"])
def test_utf16_and_utf32_with_a_bom_are_decoded(tmp_path, encoding, bom, name):
    records = [_record(1), {"question": "如何重置我的密码？", "answer": "点击忘记密码。"}]
    if name.endswith(".csv"):
        text = "question,answer\n" + "".join(f"{r['question']},{r['answer']}\n" for r in records)
    elif name.endswith(".json"):
        text = json.dumps(records, ensure_ascii=False, indent=2)
    else:
        text = "".join(json.dumps(r, ensure_ascii=False) + "\r\n" for r in records)
    data = bom + text.encode(encoding)
    path = tmp_path / name
    path.write_bytes(gzip.compress(data) if name.endswith(".gz") else data)
    accepted, rejected = _funnel(path)
    assert [r.question for r in accepted] == [r["question"] for r in records] and rejected == []


def test_utf16_without_a_bom_is_rejected_line_by_line_saying_so(tmp_path):
    path = tmp_path / "nobom.jsonl"
    path.write_bytes(_jsonl([1, 2]).encode("utf-16-le"))
    accepted, rejected = _funnel(path)
    # UTF-16's line breaks are two bytes: the three pieces between the \n bytes, each counted
    assert accepted == [] and _reasons(rejected) == [("undecodable_text", 1), ("undecodable_text", 2),
                                                     ("undecodable_text", 3)]
    assert "without a byte-order mark" in rejected[0].detail and "\\x00" in rejected[0].raw


def test_utf16_that_breaks_off_or_holds_a_lone_surrogate(tmp_path):
    cut = tmp_path / "odd.jsonl"
    cut.write_bytes(b"\xff\xfe" + _jsonl([1, 2]).encode("utf-16-le") + b"{")  # half a character at the end
    accepted, rejected = _funnel(cut)
    assert _positions(accepted) == [1, 2] and _reasons(rejected) == [("undecodable_text", 3)]
    assert rejected[0].detail.startswith("utf-16-le text breaks off at line 3: truncated data")
    lone = tmp_path / "lone.jsonl"
    broken = '{"question": "Why?", "answer": "x"}\n'.encode("utf-16-le").replace(b"W\x00", b"\x00\xd8")
    lone.write_bytes(b"\xff\xfe" + _jsonl([1]).encode("utf-16-le") + broken + _jsonl([3]).encode("utf-16-le"))
    accepted, rejected = _funnel(lone)
    assert _positions(accepted) == [1, 3] and _reasons(rejected) == [("undecodable_text", 2)]
    assert "lone surrogate U+D800" in rejected[0].detail
    _storable(rejected)


# --- JSON arrays ---------------------------------------------------------------------------------------------

def test_a_pretty_printed_json_array_is_read_as_records(tmp_path):
    path = tmp_path / "log.json"
    path.write_text(json.dumps([_record(1), _record(2), [3]], indent=2))
    accepted, rejected = _funnel(path)
    assert [r.question for r in accepted] == [_question(1), _question(2)]
    assert _reasons(rejected) == [("not_an_object", 3)]  # positions: the element's index
    in_jsonl = tmp_path / "log.jsonl"  # a .jsonl file whose first non-blank character is "["
    in_jsonl.write_text("\n  \n" + json.dumps([_record(1), _record(2)]))
    assert _positions(_funnel(in_jsonl)[0]) == [1, 2]
    empty = tmp_path / "empty.json"
    empty.write_text("[ ]\n")
    assert _funnel(empty) == ([], [])


def test_a_broken_json_array_gives_its_rows_up_to_the_fault_and_one_reject(tmp_path):
    text = json.dumps([_record(1), _record(2), _record(3)], indent=2)
    path = tmp_path / "broken.json"
    path.write_text(text.replace('"answer"', '"answer" oops', 2).replace(' oops', '', 1))  # element 2 broken
    accepted, rejected = _funnel(path)
    assert _positions(accepted) == [1] and _reasons(rejected) == [("malformed_json", 2)]
    assert rejected[0].detail.startswith("JSON array element 2 (line 8, column 14): Expecting ':' delimiter")
    trailing = tmp_path / "trailing.json"
    trailing.write_text(json.dumps([_record(1)]) + "\n" + json.dumps([_record(2)]) + "\n")
    accepted, rejected = _funnel(trailing)
    assert _positions(accepted) == [1] and _reasons(rejected) == [("malformed_json", 2)]
    assert "text after the end of the array" in rejected[0].detail
    digits = tmp_path / "digits.json"
    digits.write_text('[{"question": "How long?", "answer": ' + "9" * 5000 + "}]")
    assert [(r.reason, "4300 digits" in r.detail) for r in _funnel(digits)[1]] == [("malformed_json", True)]


def test_a_json_array_that_is_not_utf8_gives_its_rows_up_to_the_bad_byte(tmp_path):
    text = json.dumps([_record(1), _record(2), {"question": "Caf\u00e9?", "answer": "x"}, _record(4)], indent=2,
                      ensure_ascii=False)
    path = tmp_path / "latin1.json"
    path.write_bytes(text.encode("latin-1"))
    accepted, rejected = _funnel(path)
    assert _positions(accepted) == [1, 2]
    line = text[: text.index("\u00e9")].count("\n") + 1
    assert _reasons(rejected) == [("invalid_utf8", line)]
    assert rejected[0].detail.endswith("is not UTF-8 (save the file as UTF-8); the rest of the file is not read")


def test_empty_files_are_no_rows_and_no_rejects(tmp_path):
    for name, data in [("empty.jsonl", b""), ("blank.jsonl", b"\n \n"), ("empty.jsonl.gz", gzip.compress(b"")),
                       ("bom.csv", b"\xef\xbb\xbf"), ("bom16.jsonl", b"\xff\xfe"), ("header.csv", b"question,answer\n"),
                       ("empty.json", b"[]")]:
        (tmp_path / name).write_bytes(data)
        assert _funnel(tmp_path / name) == ([], []), name


def test_a_json_array_over_the_limit_is_one_reject(tmp_path, monkeypatch):
    monkeypatch.setattr(read, "MAX_JSON_ARRAY_BYTES", 200)
    path = tmp_path / "big.json"
    path.write_text(json.dumps([_record(i) for i in range(1, 11)], indent=2))
    accepted, rejected = _funnel(path)
    assert accepted == [] and _reasons(rejected) == [("json_array_too_large", 1)]
    assert "write it as JSONL" in rejected[0].detail


def test_a_truncated_gzipped_json_array_keeps_its_whole_elements(tmp_path):
    data = gzip.compress(json.dumps([_record(i) for i in range(1, 201)], indent=2).encode())
    path = tmp_path / "cut.json.gz"
    path.write_bytes(data[: len(data) // 2])
    accepted, rejected = _funnel(path)
    kept = len(accepted)
    assert 0 < kept < 200 and _positions(accepted) == list(range(1, kept + 1))
    assert [r.reason for r in rejected] == ["unreadable_file"] and "truncated" in rejected[0].detail


# --- files that would have been read whole, or not at all ----------------------------------------------------

def test_a_line_over_the_limit_is_skipped_as_one_reject(tmp_path, monkeypatch):
    monkeypatch.setattr(read, "MAX_LINE_BYTES", 100)
    path = tmp_path / "long.jsonl"
    long_line = json.dumps({"question": "Why?", "answer": "x" * 500}) + "\n"
    path.write_text(_jsonl([1]) + long_line + _jsonl([3]))
    accepted, rejected = _funnel(path)
    assert _positions(accepted) == [1, 3] and _reasons(rejected) == [("line_too_long", 2)]
    assert rejected[0].detail.startswith(f"{len(long_line)} bytes > 100")


def test_a_parquet_row_group_that_breaks_off_keeps_the_rows_of_the_others(tmp_path):
    table = pa.table({"question": [_question(i) for i in range(1, 151)], "answer": ["Use the link."] * 150})
    path = tmp_path / "log.parquet"
    pq.write_table(table, path, row_group_size=50, compression="none")
    data = bytearray(path.read_bytes())
    second = pq.ParquetFile(path).metadata.row_group(1).column(0)
    start = second.data_page_offset
    data[start: start + 64] = b"\xee" * 64  # the second row group's first page header
    path.write_bytes(bytes(data))
    with open(path, "rb") as handle:
        items = list(parse_parquet(handle, str(path), CFG, LIM, batch_rows=10))
    rows = [i for i in items if isinstance(i, RawRow)]
    assert [r.position for r in rows] == [*range(1, 51), *range(101, 151)]
    assert _reasons([i for i in items if isinstance(i, Reject)]) == [("unreadable_parquet", 51)]


def _parquet(path, checksums: bool, flip: bool = False) -> None:
    """150 rows in three row groups of 50, uncompressed (a flipped byte decodes to another value instead of
    failing to decompress); ``flip``: row 60's question then reads "account 70" on disk, its page's checksum
    unchanged."""
    table = pa.table({"question": [_question(i) for i in range(1, 151)],
                      "answer": [f"Use the reset link {i}." for i in range(1, 151)]})
    pq.write_table(table, path, row_group_size=50, compression="none", write_page_checksum=checksums)
    if flip:
        data = bytearray(path.read_bytes())
        at = data.index(b"account 60?") + len(b"account ")
        data[at] ^= ord("6") ^ ord("7")
        path.write_bytes(bytes(data))


def _as_written(accepted) -> bool:
    """Every accepted row holds the question written at its position."""
    return all(r.question == _question(p) for r, p in zip(accepted, _positions(accepted)))


def test_a_parquet_page_that_fails_its_checksum_is_a_reject_and_no_changed_row(tmp_path):
    path = tmp_path / "log.parquet"
    _parquet(path, checksums=True, flip=True)
    accepted, rejected = _funnel(path)  # _funnel: every row read is accepted or rejected
    # the second row group is one reject; the first and the third are intact, checked and read
    assert _positions(accepted) == [*range(1, 51), *range(101, 151)] and _as_written(accepted)
    assert _reasons(rejected) == [("parquet_checksum_mismatch", 51)] and rejected[0].source == str(path)
    assert rejected[0].detail.startswith("row group 2 of 3: rows 51-100 not read: OSError: ")
    assert "CRC checksum verification failed" in rejected[0].detail


def test_an_intact_parquet_with_checksums_reads_every_row(tmp_path):
    path = tmp_path / "log.parquet"
    _parquet(path, checksums=True)
    accepted, rejected = _funnel(path)
    assert _positions(accepted) == list(range(1, 151)) and _as_written(accepted) and rejected == []


def test_a_parquet_without_checksums_reads_as_before(tmp_path):
    path = tmp_path / "log.parquet"
    _parquet(path, checksums=False)
    accepted, rejected = _funnel(path)
    assert _positions(accepted) == list(range(1, 151)) and _as_written(accepted) and rejected == []
    # with no checksum to check, a flipped byte cannot be told from a value: it is read as it stands
    _parquet(path, checksums=False, flip=True)
    accepted, rejected = _funnel(path)
    assert _positions(accepted) == list(range(1, 151)) and rejected == []
    assert accepted[59].question == _question(70)


def test_a_file_gone_since_it_was_listed_is_one_reject(tmp_path):
    accepted, rejected = _funnel(tmp_path / "gone.jsonl")
    assert accepted == [] and _reasons(rejected) == [("unreadable_file", 0)]
    assert rejected[0].detail.startswith("cannot open: FileNotFoundError")


def test_a_file_name_that_is_not_utf8_fails_fast(tmp_path):
    folder = tmp_path / "logs"
    folder.mkdir()
    with open(os.path.join(os.fsencode(folder), b"caf\xe9.jsonl"), "w") as out:
        out.write(_jsonl([1]))
    with pytest.raises(InputError, match=r"a file name that is not UTF-8: .*caf\\udce9\.jsonl") as caught:
        expand_inputs([str(folder)])
    str(caught.value).encode("utf-8")  # the error line itself can be printed


# --- through Beam: the read, validate and count stages -------------------------------------------------------

def test_the_stages_run_over_every_fault_and_count_every_row(tmp_path):
    import apache_beam as beam
    from apache_beam.testing.test_pipeline import TestPipeline
    from apache_beam.testing.util import assert_that, equal_to

    from pipelines.stages.count import CountQuestions
    from pipelines.stages.read import ReadLogs
    from pipelines.stages.validate import ValidateRows

    data = gzip.compress(_jsonl(range(1, 201)).encode())
    (tmp_path / "cut.jsonl.gz").write_bytes(data[: len(data) // 2])
    (tmp_path / "surrogate.jsonl").write_text(r'{"question": "\ud800?", "answer": "a"}' + "\n" + _jsonl([7]))
    (tmp_path / "bom.csv").write_bytes(b"\xef\xbb\xbf" + _csv([8, 9]).encode())
    (tmp_path / "plain.jsonl.gz").write_text('{"question": 1' + "0" * 5000 + "}\n")
    files = expand_inputs([str(tmp_path)])
    expected = {}
    for f in files:
        items = list(parse_file(f["path"], f["format"], CFG, LIM))
        expected[f["path"]] = len(items)
    with TestPipeline() as p:
        read_out = p | ReadLogs(files, CFG, LIM)
        valid = read_out.rows | ValidateRows(LIM)
        counted = valid.accepted | CountQuestions() | "Frequencies" >> beam.Map(lambda kv: sum(kv[1][0].values()))
        every = ((valid.accepted | "AcceptedSource" >> beam.Map(lambda r: r.row_id.rsplit(":", 1)[0]),
                  read_out.rejected | "ReadRejectSource" >> beam.Map(lambda r: r.source),
                  valid.rejected | "ValidateRejectSource" >> beam.Map(lambda r: r.source))
                 | beam.Flatten() | beam.combiners.Count.PerElement())
        assert_that(every, equal_to(list(expected.items())), label="RowsReadAreAcceptedPlusRejected")
        assert_that(counted | "Total" >> beam.CombineGlobally(sum), equal_to([sum(expected.values()) - 3]),
                    label="CountedTheAccepted")


def test_a_parquet_page_that_fails_its_checksum_is_rejected_through_the_stages(tmp_path):
    import apache_beam as beam
    from apache_beam.testing.test_pipeline import TestPipeline
    from apache_beam.testing.util import assert_that, equal_to

    from pipelines.stages.read import ReadLogs
    from pipelines.stages.validate import ValidateRows

    _parquet(tmp_path / "flipped.parquet", checksums=True, flip=True)
    _parquet(tmp_path / "intact.parquet", checksums=True)
    _parquet(tmp_path / "unchecked.parquet", checksums=False)
    files = expand_inputs([str(tmp_path)])
    flipped = str(tmp_path / "flipped.parquet")
    with TestPipeline() as p:
        read_out = p | ReadLogs(files, CFG, LIM)
        valid = read_out.rows | ValidateRows(LIM)
        every = ((valid.accepted | "AcceptedSource" >> beam.Map(lambda r: r.row_id.rsplit(":", 1)[0]),
                  read_out.rejected | "ReadRejectSource" >> beam.Map(lambda r: r.source),
                  valid.rejected | "ValidateRejectSource" >> beam.Map(lambda r: r.source))
                 | beam.Flatten() | beam.combiners.Count.PerElement())
        # rows read = accepted + rejected: 100 rows and one reject of the flipped file, every row of the others
        assert_that(every, equal_to([(flipped, 101), (str(tmp_path / "intact.parquet"), 150),
                                     (str(tmp_path / "unchecked.parquet"), 150)]), label="EveryRowCounted")
        assert_that(read_out.rejected | beam.Map(lambda r: (r.reason, r.source, r.position)),
                    equal_to([("parquet_checksum_mismatch", flipped, 51)]), label="TheChecksumReject")
        changed = valid.accepted | beam.Filter(lambda r: r.question == _question(70) and r.row_id.endswith(":60"))
        assert_that(changed, equal_to([]), label="NoChangedRowAccepted")
        assert_that(valid.rejected, equal_to([]), label="NoValidateReject")
