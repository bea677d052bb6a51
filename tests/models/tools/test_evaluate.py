"""Evaluation metrics by hand-checkable cases, and the command on a small labelled file."""

import json

import pytest

from models.tools.evaluate import auroc, main, pairwise_accuracy, precision_recall
from schemas.errors import QabaseError


def test_auroc_known_values():
    assert auroc([0.9, 0.8, 0.2, 0.1], [1, 1, 0, 0]) == 1.0
    assert auroc([0.1, 0.2, 0.8, 0.9], [1, 1, 0, 0]) == 0.0
    assert auroc([0.5, 0.5], [1, 0]) == 0.5
    assert auroc([0.9, 0.3, 0.5, 0.1], [1, 1, 0, 0]) == 0.75
    with pytest.raises(QabaseError, match="need both labels"):
        auroc([0.1], [1])


def test_precision_recall_and_pairs():
    pr = precision_recall([0.9, 0.6, 0.4, 0.7], [1, 1, 0, 0], threshold=0.5)
    assert pr == {"threshold": 0.5, "precision": 0.6667, "recall": 1.0, "kept_share": 0.75}
    assert pairwise_accuracy([0.9, 0.2, 0.4, 0.4], [1, 0, 1, 0], ["a", "a", "b", "b"]) == 0.75
    assert pairwise_accuracy([0.9], [1], [None]) is None


@pytest.mark.slow
def test_evaluate_command_beats_length_on_a_small_gec_set(tmp_path, capsys):
    good = ["How do I reset my password?", "What is the capital of France?", "Why is the sky blue?"]
    bad = ["how do i resett my pasword", "waht is teh capital of frnace", "why is teh sky bleu"]
    lines = [{"text": t, "label": 1, "pair": i} for i, t in enumerate(good)]
    lines += [{"text": t, "label": 0, "pair": i} for i, t in enumerate(bad)]
    src = tmp_path / "l.jsonl"
    src.write_text("\n".join(json.dumps(x) for x in lines))
    assert main(["gec", "--input", str(src), "--json", str(tmp_path / "o.json")]) == 0
    figures = json.loads((tmp_path / "o.json").read_text())
    assert figures["auroc"] == 1.0 and figures["pairwise_accuracy"] == 1.0
    assert figures["baseline_length_auroc"] < figures["auroc"]
    bad_file = tmp_path / "b.jsonl"
    bad_file.write_text('{"text": "x", "label": 3}\n')
    assert main(["gec", "--input", str(bad_file)]) == 2
    assert "a 'label' of 0 or 1" in capsys.readouterr().err


def test_length_matched_auroc_ignores_pairs_of_different_length():
    from models.tools.evaluate import length_matched_auroc

    texts = ["short", "a much longer clear request", "short", "a much longer unclear turn!"]
    scores = [0.9, 0.2, 0.1, 0.8]
    labels = [1, 1, 0, 0]
    # same-length pairs only: (short 0.9 vs short 0.1) won, (long 0.2 vs long 0.8) lost
    assert length_matched_auroc(scores, labels, texts) == {"auroc": 0.5, "baseline_length_auroc": 0.5, "pairs": 2}
