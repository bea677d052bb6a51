"""The human-annotated answer groups (benchmarks/viewpoint_groups.jsonl) and the agreement measures of
benchmarks/viewpoint_eval.py (issue 15). No models."""

import importlib.util
import json
import random
from collections import Counter
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[2] / "benchmarks"
GROUPS = BENCH / "viewpoint_groups.jsonl"


def _load_eval():
    spec = importlib.util.spec_from_file_location("viewpoint_eval", BENCH / "viewpoint_eval.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


ve = _load_eval()
ROWS = [json.loads(line) for line in GROUPS.read_text(encoding="utf-8").splitlines() if line.strip()]


def test_every_group_is_well_formed():
    problems = {g.get("id"): ve.validate_group(g) for g in ROWS}
    assert {k: v for k, v in problems.items() if v} == {}
    assert all(6 <= len(g["answers"]) <= 10 for g in ROWS)
    assert all(a["view"] in g["views"] for g in ROWS for a in g["answers"])


def test_ids_unique_and_prefixed_by_language():
    ids = [g["id"] for g in ROWS]
    assert len(ids) == len(set(ids))
    assert all(g["id"].startswith(g["lang"] + "-") for g in ROWS)


def test_coverage():
    langs = Counter(g["lang"] for g in ROWS)
    assert langs["en"] >= 15 and langs["zh"] >= 15
    assert len(ROWS) >= 36
    assert {g["kind"] for g in ROWS} == {"factual", "opinion", "mixed"}
    views = Counter(len(g["views"]) for g in ROWS)
    assert views[1] >= 2, "some groups where every answer makes the same point"
    assert any(len(g["views"]) == len(g["answers"]) for g in ROWS), "some groups where each answer is its own view"
    assert max(views) >= 5


def test_load_groups_filters_by_language_and_rejects_bad_rows(tmp_path):
    assert len(ve.load_groups(GROUPS, "zh")) == sum(g["lang"] == "zh" for g in ROWS)
    bad = dict(ROWS[0], answers=ROWS[0]["answers"][:5])
    path = tmp_path / "bad.jsonl"
    path.write_text(json.dumps(bad) + "\n", encoding="utf-8")
    with pytest.raises(ValueError, match="answers"):
        ve.load_groups(path)
    path.write_text(json.dumps(ROWS[0]) + "\n" + json.dumps(ROWS[0]) + "\n", encoding="utf-8")
    with pytest.raises(ValueError, match="duplicate id"):
        ve.load_groups(path)


def test_validate_group_catches_unknown_label():
    g = json.loads(json.dumps(ROWS[0]))
    g["answers"][0]["view"] = "no-such-view"
    assert any("not in views" in e for e in ve.validate_group(g))


@pytest.mark.parametrize("true, pred, expected", [
    ([0, 0, 1, 1], [0, 0, 1, 1], 1.0),
    ([0, 0, 1, 1], [5, 5, 3, 3], 1.0),  # label names do not matter
    ([0, 0, 1, 1], [0, 1, 0, 1], -0.5),
    ([0, 0, 0, 1, 1, 1], [0, 0, 1, 1, 2, 2], 0.24242424242424243),
    ([0, 0, 0, 0], [0, 0, 0, 0], 1.0),  # both one cluster
    ([0, 1, 2, 3], [3, 2, 1, 0], 1.0),  # both all singletons
    ([0, 0, 0, 0], [0, 1, 2, 3], 0.0),
    ([0, 0, 1, 1, 2], [0, 0, 0, 0, 0], 0.0),
])
def test_adjusted_rand_index_known_cases(true, pred, expected):
    assert ve.adjusted_rand_index(true, pred) == pytest.approx(expected)


def test_adjusted_rand_index_is_symmetric_and_matches_sklearn():
    rng = random.Random(0)
    sklearn = pytest.importorskip("sklearn.metrics")
    for _ in range(300):
        n = rng.randint(2, 10)
        a = [rng.randint(0, 4) for _ in range(n)]
        b = [rng.randint(0, 4) for _ in range(n)]
        assert ve.adjusted_rand_index(a, b) == pytest.approx(ve.adjusted_rand_index(b, a))
        assert ve.adjusted_rand_index(a, b) == pytest.approx(sklearn.adjusted_rand_score(a, b))
        assert ve.v_measure(a, b) == pytest.approx(sklearn.v_measure_score(a, b))


def test_v_measure_known_cases():
    assert ve.v_measure([0, 0, 1, 1], [1, 1, 0, 0]) == pytest.approx(1.0)
    assert ve.v_measure([0, 0, 1, 1], [0, 1, 0, 1]) == pytest.approx(0.0)
    assert ve.v_measure([0, 0, 0, 0], [0, 0, 0, 0]) == pytest.approx(1.0)


def test_average_linkage_and_baselines():
    # two tight pairs far apart, in 2-D
    vecs = [[1.0, 0.0], [0.99, 0.14], [0.0, 1.0], [0.14, 0.99]]
    dist = ve._cos_dist(vecs)
    assert ve.average_linkage(dist, threshold=0.05) == [0, 0, 1, 1]
    assert ve.average_linkage(dist, threshold=0.0) == [0, 1, 2, 3]
    assert ve.average_linkage(dist, threshold=2.0) == [0, 0, 0, 0]
    assert ve.average_linkage(dist, k=2) == [0, 0, 1, 1]
    base = ve.baseline_labels(vecs, 2)
    assert base["one cluster"] == [0, 0, 0, 0] and base["all singletons"] == [0, 1, 2, 3]
    assert base["avg-link oracle k"] == [0, 0, 1, 1]


def test_aggregator_labels_maps_ids_and_keeps_left_out_answers_apart():
    from models.aggregators.base import AggregateResult, Viewpoint

    r = AggregateResult("a", 1.0, 0.5, [Viewpoint("x", [1, 3]), Viewpoint("y", [2])], "test", [])
    assert ve.aggregator_labels(r, 5) == ([0, 1, 0, 2, 3], 2)


def test_summary_and_markdown_on_fake_rows():
    rows = []
    for i, (lang, kind) in enumerate([("en", "factual"), ("zh", "opinion")]):
        true = [0, 0, 1, 1, 2, 2]
        methods = {"aggregator": [0, 0, 1, 1, 2, 3], "one cluster": [0] * 6}
        rows.append({"id": f"{lang}-{i}", "lang": lang, "kind": kind, "source": "written", "qtype": "objective",
                     "method": "m", "flags": [], "human": true, "left_out": 0, "labels": methods,
                     "scores": {m: ve.scores(true, p) for m, p in methods.items()}})
    summary = ve.summarise(rows)
    assert summary["all"]["groups"] == 2 and summary["en"]["groups"] == 1
    agg = summary["all"]["methods"]["aggregator"]
    assert agg["abs_dk"] == 1.0 and agg["dk"] == 1.0 and agg["exact_k"] == 0.0
    assert summary["all"]["methods"]["one cluster"]["ari"] == 0.0
    text = ve.markdown({"summary": summary, "per_group": rows, "aggregator_seconds": 0.0, "groups": 2})
    assert "| aggregator |" in text and "ARI en" in text


@pytest.mark.parametrize("name", ["viewpoint_onetopic_tune", "viewpoint_onetopic_heldout",
                                  "viewpoint_onetopic_heldout2"])
def test_one_topic_groups_are_well_formed(name):
    """Issue 33: one topic per group, each answer stressing one aspect: 4-5 views of 1-3 answers, both languages."""
    groups = ve.load_groups(BENCH / f"{name}.jsonl")
    assert {g["lang"] for g in groups} == {"en", "zh"}
    lone = 0
    for g in groups:
        sizes = Counter(a["view"] for a in g["answers"]).values()
        assert 8 <= len(g["answers"]) <= 10 and 4 <= len(g["views"]) <= 6 and max(sizes) <= 3, g["id"]
        lone += 1 in sizes
    assert lone >= len(groups) / 2, "most groups have an answer with an angle of its own"
