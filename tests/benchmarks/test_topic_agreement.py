"""benchmarks/topic_agreement.py: its metrics, its skip without data, and (slow) the topics on real intents."""

import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks"))

import topic_agreement  # noqa: E402


def test_unassigned_questions_count_as_one_group_and_are_scored_apart_too():
    truth = np.array([0, 0, 0, 1, 1, 1])
    s = topic_agreement.scores(truth, np.array([5, 5, -1, 7, 7, -1]))
    assert s["groups"] == 2 and s["unassigned"] == pytest.approx(1 / 3)
    assert s["ari_assigned"] == pytest.approx(1.0) and s["nmi_assigned"] == pytest.approx(1.0)
    assert s["ari"] < 1.0  # the unassigned group mixes both intents
    assert "unassigned" not in topic_agreement.scores(truth, truth)


def test_without_the_data_it_says_skipped(tmp_path, capsys):
    assert topic_agreement.main(["--data", str(tmp_path / "absent")]) == 0
    assert "skipped" in capsys.readouterr().out


def test_a_sample_is_seeded_and_labels_are_numbered_by_name():
    texts = [f"q{i}" for i in range(50)]
    labels = ["b" if i % 2 else "a" for i in range(50)]
    a, ta = topic_agreement.sample(texts, labels, 10, 0)
    b, tb = topic_agreement.sample(texts, labels, 10, 0)
    assert a == b and (ta == tb).all() and all(t == int(q[1:]) % 2 for q, t in zip(a, ta))


@pytest.mark.slow  # loads the packaged MiniLM
def test_topics_agree_with_banking77_intents(shared_data, tmp_path):
    texts, labels = topic_agreement.load_set(shared_data, "banking77")
    sample, truth = topic_agreement.sample(texts, labels, 1000, 0)
    x = topic_agreement.embed("minilm", sample, tmp_path)
    rows = {r["method"].split(" (")[0]: r for r in topic_agreement.run_methods(x, truth, 0)}
    ours = rows["hdbscan"]
    # the assigned questions share their topic's intent much more than chance (ARI 0) would
    assert ours["ari_assigned"] > 0.2 and ours["nmi_assigned"] > 0.6 and ours["groups"] >= 5
    assert rows["k-means, k = labels"]["nmi"] > 0.6
