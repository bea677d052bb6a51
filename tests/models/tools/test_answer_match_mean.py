"""The answer-match trainer's mean of models (models.tools.train_answer_match.mean_of): each model's out-of-fold
logits after its own epoch count, averaged, and the threshold chosen on the mean."""

import numpy as np
import pytest

from models.tools.cross_training import auc
from models.tools.train_answer_match import best_f1_threshold, mean_of


def _member(tmp_path, name, epochs):
    path = tmp_path / name
    meta = np.frombuffer(f'{{"epochs": {epochs}}}'.encode(), dtype=np.uint8)
    np.savez(path, __meta__=meta)
    return path


def test_each_models_own_epoch_is_averaged_and_the_threshold_is_the_means(tmp_path):
    rng = np.random.default_rng(0)
    y = (rng.random(300) < 0.3).astype(int)
    a = rng.normal(size=(3, 300)) + 2.0 * y  # epoch 2 of a is the one fitted
    b = rng.normal(size=(2, 300)) + 1.0 * y  # epoch 1 of b
    a[0], a[2], b[1] = -5.0 * y, -5.0 * y, -5.0 * y  # the epochs not fitted rank backwards: a wrong pick shows
    meta = mean_of([(_member(tmp_path, "a.npz", 2), a, y), (_member(tmp_path, "b.npz", 1), b, y)])
    mean = (a[1] + b[0]) / 2
    assert meta["out_of_fold_auc"] == round(auc(mean, y), 4) > 0.8
    assert meta["members_out_of_fold_auc"] == [round(auc(a[1], y), 4), round(auc(b[0], y), 4)]
    assert meta["threshold"] == round(best_f1_threshold(1 / (1 + np.exp(-mean)), y), 6)
    assert meta["kind"] == "e5-answer-match-lora-mean"


def test_logits_of_other_lines_are_refused(tmp_path):
    y = np.array([0, 1, 0, 1])
    other = np.array([1, 1, 0, 1])
    with pytest.raises(ValueError, match="same tune lines"):
        mean_of([(_member(tmp_path, "a.npz", 1), np.zeros((1, 4)), y),
                 (_member(tmp_path, "b.npz", 1), np.zeros((1, 4)), other)])
