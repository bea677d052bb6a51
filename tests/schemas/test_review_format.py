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


# --- read as strictly as the logs: what the build would fail on later, or take silently, is an error of its line --

SPLITLINES_BREAKS = [chr(c) for c in range(0x110000) if not 0xD800 <= c <= 0xDFFF and len(f"a{chr(c)}b".splitlines()) > 1]


def test_every_character_a_written_decision_holds_reads_back_from_both_formats():
    from schemas.review import MAX_NOTE_CHARS, decision_of, review_line

    assert set("\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029") == set(SPLITLINES_BREAKS)
    code_points = [c for c in range(0x110000) if not 0xD800 <= c <= 0xDFFF]
    chunk = MAX_NOTE_CHARS - 2
    notes = ["a" + "".join(map(chr, code_points[i:i + chunk])) + "b" for i in range(0, len(code_points), chunk)]
    written = [review_line(decision_of({"action": "exclude", "question": "q", "note": n}, "r", 1)) for n in notes]
    assert not any(len(line.splitlines()) > 1 for line in written)  # one line, whoever splits it
    for name, prefix in (("r.jsonl", ""), ("r.yaml", "- ")):
        read = parse_review("".join(prefix + line + "\n" for line in written).encode("utf-8"), name)
        assert [d.note for d in read] == notes and [d.line for d in read] == list(range(1, len(notes) + 1))


@pytest.mark.parametrize("ch", SPLITLINES_BREAKS)
def test_a_json_line_holding_a_line_break_of_splitlines_in_a_string_is_one_line(ch):
    text = '{"action": "exclude", "question": "a", "note": "x%sy"}\r\n{"action": "keep", "question": "b"}\n' % ch
    if ch < " ":  # the C0 controls are no JSON string's text as they are (json.dumps escapes them): line 1 is bad
        with pytest.raises(ConfigError, match="line 1: not valid JSON"):
            _parse(text)
        return
    a, b = _parse(text)
    assert a.note == f"x{ch}y" and (a.line, b.line) == (1, 2)


LONE = "\\ud800"  # a JSON (and YAML double-quoted) escape of a lone surrogate


@pytest.mark.parametrize("decision, where", [
    ('{"action": "exclude", "question": "a%s"}' % LONE, "'question'"),
    ('{"action": "answer", "question": "a", "answer": "x%s"}' % LONE, "'answer'"),
    ('{"action": "exclude", "question": "a", "note": "%s"}' % LONE, "'note'"),
    ('{"action": "merge", "question": "a", "into": "b%s"}' % LONE, "'into'"),
    ('{"action": "split", "question": "a", "from": "b\\udfff"}', "'from'"),
    ('{"action": "exclude", "question": "a", "by": "ana%s"}' % LONE, "'by'"),
    ('{"action": "exclude", "question": "a", "x%s": 1}' % LONE, "the key 'x\\ud800'"),
    ('{"action": "exclude", "question": "a", "by": [{"who": ["ana", {"k%s": 1}]}]}' % LONE, "'by'"),
    ('{"action": "exclude%s", "question": "a"}' % LONE, "'action'"),
])
@pytest.mark.parametrize("name", ["r.jsonl", "r.yaml"])
def test_a_lone_surrogate_in_any_string_of_a_decision_is_an_error_of_its_line(decision, where, name):
    text = f'{{"action": "keep", "question": "k"}}\n{decision}\n'
    if name.endswith(".yaml"):
        text = "".join(f"- {line}\n" for line in text.splitlines())
    with pytest.raises(ConfigError) as exc:
        _parse(text, name)
    assert str(exc.value).startswith(f"review: {name} line 2: {where} holds a lone surrogate (\\ud")


def _nested(depth: int, opening: str = "[", closing: str = "]", inner: str = "") -> str:
    return opening * depth + inner + closing * depth


@pytest.mark.parametrize("field", ["note", "by"])
@pytest.mark.parametrize("brackets", [("[", "]", ""), ('{"a":', "}", "1")])
def test_a_decision_nested_deeper_than_the_limit_is_an_error_of_its_line_whatever_the_depth(field, brackets):
    from schemas.review import MAX_DEPTH

    def line(depth):  # the decision's own object is the first level
        return '{"action": "exclude", "question": "a", "%s": %s}' % (field, _nested(depth - 1, *brackets))

    good = '{"action": "keep", "question": "k"}\n'
    if field == "by":
        assert len(_parse(good + line(MAX_DEPTH) + "\n")) == 2
    for depth in (MAX_DEPTH + 1, 100_001):
        with pytest.raises(ConfigError) as exc:
            _parse(good + line(depth) + "\n")
        assert str(exc.value) == f"review: review.jsonl line 2: nested more than {MAX_DEPTH} levels deep (lists or " \
                                 f"objects within lists or objects)"


def test_brackets_in_strings_do_not_count_toward_the_depth():
    (d,) = _parse('{"action": "exclude", "question": "a", "note": "%s \\" ["}\n' % ("[{" * 100))
    assert d.note.startswith("[{[{")


def test_a_yaml_decision_nested_deeper_than_the_limit_is_an_error_of_its_line():
    from schemas.review import MAX_DEPTH

    good = "- {action: keep, question: k}\n"
    ok = _parse(good + "- {action: exclude, question: a, by: %s}\n" % _nested(MAX_DEPTH - 1), "r.yaml")
    assert len(ok) == 2
    for depth in (MAX_DEPTH, 100_000):
        with pytest.raises(ConfigError, match=f"^review: r.yaml line 2: nested more than {MAX_DEPTH} levels deep"):
            _parse(good + "- {action: exclude, question: a, note: %s}\n" % _nested(depth), "r.yaml")
    block = good + "- action: exclude\n  question: a\n  by:\n" + "".join(
        "  " * (i + 2) + "- \n" for i in range(MAX_DEPTH)) + "  " * (MAX_DEPTH + 2) + "- x\n"
    with pytest.raises(ConfigError, match=f"^review: r.yaml line {MAX_DEPTH + 4}: nested more than"):
        _parse(block, "r.yaml")


@pytest.mark.parametrize("text, name, message", [
    ('{"action": "exclude", "question": "a", "x": %s}' % ("9" * 100_001), "r.jsonl",
     "line 2: not valid JSON (Exceeds the limit (4300 digits)"),
    ("- {action: exclude, question: a, x: %s}" % ("9" * 100_001), "r.yaml",
     "line 2: not valid YAML (Exceeds the limit (4300 digits)"),
    ("- {action: exclude, question: a, at: 2026-13-45}", "r.yaml", "line 2: not valid YAML (month must be in 1..12)"),
    ('{"action": [], "question": "a"}', "r.jsonl", "line 2: unknown action []"),
    ('{"action": {"a": 1}, "question": "a"}', "r.jsonl", "line 2: unknown action {'a': 1}"),
])
def test_a_value_no_parser_reads_is_an_error_of_its_line(text, name, message):
    good = '{"action": "keep", "question": "k"}'
    if name.endswith(".yaml"):
        good = f"- {good}"
    with pytest.raises(ConfigError) as exc:
        _parse(f"{good}\n{text}\n", name)
    assert str(exc.value).startswith(f"review: {name} {message}")


@pytest.mark.parametrize("text, name, line, key", [
    ('{"action": "exclude", "question": "a", "question": "b"}', "r.jsonl", 2, "question"),
    ('{"action": "exclude", "question": "a", "by": {"who": 1, "who": 2}}', "r.jsonl", 2, "who"),
    ('- {action: exclude, question: a, question: b}', "r.yaml", 2, "question"),
    ('- action: exclude\n  question: a\n  note: x\n  note: y', "r.yaml", 5, "note"),
    ('- action: exclude\n  question: a\n  by: {who: 1, who: 2}', "r.yaml", 4, "who"),
])
def test_a_key_named_twice_is_an_error_not_the_last_value(text, name, line, key):
    good = '{"action": "keep", "question": "k"}'
    if name.endswith(".yaml"):
        good = f"- {good}"
    with pytest.raises(ConfigError) as exc:
        _parse(f"{good}\n{text}\n", name)
    kind = "object" if name.endswith(".jsonl") else "mapping"
    assert str(exc.value) == (f"review: {name} line {line}: key '{key}' appears twice in one {kind} (which value is "
                              f"meant cannot be told)")


@pytest.mark.parametrize("field, limit_name", [("answer", "MAX_ANSWER_CHARS"), ("note", "MAX_NOTE_CHARS"),
                                               ("question", "MAX_QUESTION_CHARS"), ("into", "MAX_QUESTION_CHARS")])
def test_an_answer_note_or_question_over_its_limit_is_an_error_of_its_line(field, limit_name):
    from schemas import review
    from schemas.config import LimitsConfig

    limit = getattr(review, limit_name)
    assert review.MAX_ANSWER_CHARS == LimitsConfig().max_answer_chars  # no longer than the logs' longest answer
    action = {"answer": "answer", "note": "exclude", "question": "exclude", "into": "merge"}[field]
    base = {"action": action, "question": "a", **({"answer": "x"} if action == "answer" else {}),
            **({"into": "b"} if action == "merge" else {})}
    at_limit = ("b" if field == "into" else "a") + "x" * (limit - 1)
    assert len(_decisions({**base, field: at_limit})) == 1
    with pytest.raises(ConfigError) as exc:
        _decisions({"action": "keep", "question": "k"}, {**base, field: at_limit + "x"})
    assert str(exc.value) == f"review: review.jsonl line 2: {field} is {limit + 1:,} characters; at most {limit:,}"


def test_a_question_merged_into_two_questions_goes_where_the_later_line_says():
    from schemas.review_outcome import superseded_merges

    ds = _decisions({"action": "merge", "question": "a", "into": "b"},
                    {"action": "merge", "question": "A?", "into": "c"},
                    {"action": "merge", "question": "d", "into": "e"},
                    {"action": "merge", "question": "d", "into": "E"},
                    {"action": "merge", "question": "f", "into": "a"})
    assert superseded_merges(ds) == {1: 2}  # the same target twice (d into e, into E) is no conflict
    groups, blocked = merge_groups({}, ds)
    assert groups["a"] == groups["c"] == groups["f"] and "b" not in groups and blocked == {}
    links = with_review_merges({}, ds)
    assert links["a"][:2] == (groups["a"], "c") and "b" not in links
    entry_of = {k: k for k in "abcdef"}
    out = {o["line"]: (o["status"], o["detail"]) for o in review_outcome(ds, entry_of, built_with=False)}
    assert out[1] == ("conflicting", "overridden by line 2 (a merge into another question)")
    assert {out[n][0] for n in (2, 3, 4, 5)} == {"pending"}
    built = {"a": "a", "c": "a", "f": "a", "b": "b", "d": "d", "e": "d"}
    out = {o["line"]: o["status"] for o in review_outcome(ds, built)}
    assert out == {1: "conflicting", 2: "applied", 3: "applied", 4: "applied", 5: "applied"}
    # the later line wins when its target is in no entry too: the earlier one does not apply instead
    stale = {o["line"]: o["status"] for o in review_outcome(ds[:2], {"a": "a", "b": "a"})}
    assert stale == {1: "conflicting", 2: "stale"}
