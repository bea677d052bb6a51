"""The review file's format (schemas.review) and the rules that decide what its decisions make of the base
(schemas.review_outcome): one error naming the line; last line wins on one entry; a split wins over a merge."""

import pytest

from pipelines.stages.paraphrase import link_groups, split_pairs, with_review_merges
from schemas.errors import ConfigError
from schemas.review import load_review, parse_review
from schemas.review_outcome import by_key, decisions_of_entry, entry_review, merge_groups, review_outcome


def _parse(text: str, name: str = "review.jsonl"):
    return parse_review(text.encode("utf-8"), name)


@pytest.mark.parametrize("line, message", [
    ('{"action": "merge", "question": "a"}', "merge needs 'into'"),
    ('{"action": "split", "question": "a"}', "split needs 'from'"),
    ('{"action": "answer", "question": "a"}', "answer needs 'answer'"),
    ('{"action": "answer", "question": "a", "answer": "  "}', "'answer' must be a non-empty string"),
    ('{"action": "time_sensitive", "question": "a"}', "time_sensitive needs 'value'"),
    ('{"action": "time_sensitive", "question": "a", "value": "yes"}', "'value' must be true or false"),
    ('{"action": "exclude"}', "exclude needs 'question'"),
    ('{"action": "exclude", "question": 3}', "'question' must be a non-empty string"),
    ('{"action": "exclude", "question": "?!"}', "has no question key"),
    ('{"action": "exclude", "question": "a", "into": "b"}', "exclude takes no 'into'"),
    ('{"action": "exclude", "question": "a", "note": 1}', "'note' must be a string"),
    ('{"action": "delete", "question": "a"}', "unknown action 'delete'"),
    ('{"question": "a"}', "needs 'action'"),
    ('["exclude", "a"]', "a decision is a mapping"),
    ('{"action": "exclude", "question": "a"', "not valid JSON"),
    ('{"action": "merge", "question": "Hello?", "into": "HELLO"}', "'question' and 'into' are the same question"),
])
def test_a_bad_line_is_one_error_naming_the_file_and_the_line(line, message):
    good = '{"action": "keep", "question": "a"}'
    with pytest.raises(ConfigError) as exc:
        _parse(f"{good}\n\n{line}\n{good}\n")
    assert str(exc.value).startswith("review: review.jsonl line 3: ") and message in str(exc.value)


def test_questions_are_matched_by_the_pipelines_key_and_unknown_keys_are_ignored():
    (a, b) = _parse('# a comment\n{"action": "merge", "question": "長城有多長？", "into": "ＷＨＡＴ  is it?", '
                    '"by": "ana", "at": "2026-11-26"}\n{"action": "exclude", "question": "what is it", '
                    '"note": " why "}\n')
    assert (a.line, a.key, a.other_key) == (2, "长城有多长", "what is it") and b.key == a.other_key
    assert b.note == "why" and b.record() == {"action": "exclude", "question": "what is it", "note": "why"}


def test_yaml_lists_with_line_numbers_and_no_aliases():
    text = '- {action: keep, question: a}\n- action: time_sensitive\n  question: b\n  value: "yes"\n'
    with pytest.raises(ConfigError, match=r"review: r.yaml line 2: .*'value' must be true or false"):
        _parse(text, "r.yaml")
    ok = _parse('- {action: keep, question: a}\n- action: time_sensitive\n  question: b\n  value: true\n', "r.yml")
    assert [d.line for d in ok] == [1, 2] and ok[1].value is True
    with pytest.raises(ConfigError, match="line 2: YAML aliases are not allowed"):
        _parse("- &x {action: keep, question: a}\n- *x\n", "r.yaml")
    with pytest.raises(ConfigError, match="a YAML review file is a list"):
        _parse("action: keep\n", "r.yaml")


def test_load_review_digests_the_bytes_and_refuses_a_missing_path(tmp_path):
    p = tmp_path / "r.jsonl"
    p.write_bytes(b'{"action": "keep", "question": "a"}\n')
    first = load_review(p)
    p.write_bytes(b'{"action": "keep", "question": "a"} \n')
    assert load_review(p).sha256 != first.sha256 and len(first.decisions) == 1
    with pytest.raises(ConfigError, match="file not found"):
        load_review(tmp_path / "none.jsonl")
    (tmp_path / "bin.jsonl").write_bytes(b'{"action": "keep", "question": "a"}\n\xff\n')
    with pytest.raises(ConfigError, match="bin.jsonl line 2: not UTF-8"):
        load_review(tmp_path / "bin.jsonl")


def _decisions(*lines):
    import json

    return _parse("".join(json.dumps(x) + "\n" for x in lines))


def test_on_one_entry_the_later_line_wins_and_the_rest_is_conflicting():
    ds = _decisions({"action": "keep", "question": "a"}, {"action": "exclude", "question": "b", "note": "no"},
                    {"action": "answer", "question": "a", "answer": "x"}, {"action": "answer", "question": "b", "answer": "y"},
                    {"action": "time_sensitive", "question": "a", "value": True})
    review, statuses = entry_review(decisions_of_entry(["a", "b"], by_key(ds)))
    assert review.excluded and not review.keep and review.answer is None and review.time_sensitive is None
    assert statuses[1][0] == "conflicting" and "line 2" in statuses[1][1]
    assert all(statuses[n][0] == "conflicting" and "excluded (line 2)" in statuses[n][1] for n in (3, 4, 5))
    assert statuses[2] == ("applied", "")
    assert review.actions == ("exclude",) and review.notes == ("no",)
    same, st = entry_review(decisions_of_entry(["a"], by_key(_decisions(
        {"action": "answer", "question": "a", "answer": "x"}, {"action": "answer", "question": "a", "answer": "x"}))))
    assert same.answer == "x" and set(st.values()) == {("applied", "")}
    other, st = entry_review(decisions_of_entry(["a", "b"], by_key(_decisions(
        {"action": "answer", "question": "a", "answer": "x"}, {"action": "answer", "question": "b", "answer": "y"}))))
    assert other.answer == "y" and st == {1: ("conflicting", "overridden by line 2 (another answer)"),
                                          2: ("applied", "")}


def test_a_split_wins_over_a_merge_directly_and_through_earlier_merges():
    ds = _decisions({"action": "merge", "question": "a", "into": "b"}, {"action": "merge", "question": "c", "into": "b"},
                    {"action": "split", "question": "a", "from": "c"}, {"action": "merge", "question": "d", "into": "e"},
                    {"action": "split", "question": "d", "from": "e"})
    groups, blocked = merge_groups({"x": "x", "y": "x"}, ds)
    assert groups["a"] == groups["b"] == "a" and "c" not in groups and blocked == {2: 3, 4: 5}
    entry_of = {"a": "a", "b": "a", "c": "c", "d": "d", "e": "e"}
    out = {o["line"]: o for o in review_outcome(ds, entry_of)}
    assert out[1]["status"] == "applied" and out[3]["status"] == "applied" and out[5]["status"] == "applied"
    assert out[2]["status"] == "conflicting" and "line 3" in out[2]["detail"]
    assert out[4]["status"] == "conflicting" and "line 5" in out[4]["detail"]
    pending = {o["line"]: o["status"] for o in review_outcome(ds, {**entry_of, "b": "b"}, built_with=False)}
    assert pending == {1: "pending", 2: "pending", 3: "pending", 4: "conflicting", 5: "pending"}


def test_stale_decisions_name_the_missing_question():
    ds = _decisions({"action": "exclude", "question": "gone"}, {"action": "merge", "question": "a", "into": "gone too"})
    out = review_outcome(ds, {"a": "a"})
    assert [o["status"] for o in out] == ["stale", "stale"] and "'gone too'" in out[1]["detail"]


def _pair(a, b, p=0.9, same=True):
    return ((a, b), (p, same, 0.9, 0.0, True, (), ()))


def test_a_split_breaks_a_chain_through_a_third_question():
    judged = [_pair("a", "c", 0.95), _pair("b", "c", 0.9), _pair("a", "b", 0.8)]
    assert {v[0] for v in link_groups(judged).values()} == {"a"}  # one group of three
    ds = _decisions({"action": "split", "question": "a", "from": "b"})
    groups = link_groups(judged, apart=split_pairs(ds))
    assert groups["a"][0] == groups["c"][0] and "b" not in groups  # c joined a first; b stays alone
    merged = with_review_merges(groups, _decisions({"action": "merge", "question": "d", "into": "b"}))
    assert merged["d"] == ("b", "b", None, None) and merged["b"] == ("b", "d", None, None)
