"""qabase aggregate with a person's grouping beside: the viewpoints found, the human labels, the agreement."""

import json

import pytest

from models.tools.aggregate import adjusted_rand_index, main


def test_adjusted_rand_index_known_cases():
    assert adjusted_rand_index([0, 0, 1, 1], ["a", "a", "b", "b"]) == 1.0
    assert adjusted_rand_index([0, 0, 1, 1], [0, 1, 0, 1]) == pytest.approx(-0.5)
    assert adjusted_rand_index([0, 0, 0], [0, 0, 0]) == 1.0


def test_annotated_groups_print_the_human_grouping_beside_the_viewpoints(tmp_path, capsys):
    group = {"question": "How tall is Mount Everest?", "answers": [
        {"text": "Mount Everest is 8,849 metres tall.", "view": "8849"},
        {"text": "It stands 8,849 m above sea level.", "view": "8849"},
        {"text": "About 8,849 m, measured in 2020.", "view": "8849"},
        {"text": "Everest is 8,611 m high.", "view": "wrong"}]}
    src = tmp_path / "groups.jsonl"
    src.write_text(json.dumps(group) + "\n", encoding="utf-8")
    assert main(["--input", str(src)]) == 0
    shown = capsys.readouterr().out
    assert "human grouping: 8849 [1, 2, 3]; wrong [4]" in shown and "adjusted Rand index 1.000" in shown
    assert "contradicts a minority with numbers" in shown
    out = tmp_path / "out.jsonl"
    assert main(["--input", str(src), "--output", str(out)]) == 0
    row = json.loads(out.read_text(encoding="utf-8"))
    assert row["human_views"] == ["8849"] * 3 + ["wrong"] and row["adjusted_rand_index"] == 1.0
    assert row["agreeing_answers"] == 3 and row["contradicted"] and 0 < row["reliability"] < 1


def test_a_malformed_annotated_answer_is_one_error_line(tmp_path, capsys):
    src = tmp_path / "groups.jsonl"
    src.write_text(json.dumps({"question": "q?", "answers": [{"view": "a"}]}) + "\n", encoding="utf-8")
    assert main(["--input", str(src)]) == 2
    assert capsys.readouterr().err.startswith("error: input:")
