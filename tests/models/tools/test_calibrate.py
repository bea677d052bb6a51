"""models.tools.calibrate: thresholds for a keep rate or a precision, histogram table and PNG."""

import json

import numpy as np
import pytest

from models.tools.calibrate import histogram, main, threshold_for_keep, threshold_for_precision
from schemas.errors import QabaseError


def test_threshold_for_keep_keeps_the_share_asked_for():
    scores = np.array([0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0])
    for target, kept in ((0.9, 9), (0.5, 5), (1.0, 10), (0.25, 3)):
        t = threshold_for_keep(scores, target)
        assert int((scores > t).sum()) == kept, (target, t)
    with pytest.raises(QabaseError):
        threshold_for_keep(scores, 0.0)


def test_threshold_for_precision_picks_the_most_recall():
    scores = np.array([0.95, 0.9, 0.8, 0.7, 0.6, 0.5, 0.4, 0.3])
    labels = np.array([1, 1, 1, 0, 1, 0, 0, 0])
    t, reached = threshold_for_precision(scores, labels, 0.8)
    assert reached and t == 0.5  # keeps 0.95..0.6: 4 good of 5 = 0.8, the lowest such threshold
    t, reached = threshold_for_precision(scores, labels, 1.0)
    assert reached and t == 0.7
    t, reached = threshold_for_precision(np.array([0.5, 0.5]), np.array([1, 0]), 0.9)
    assert not reached


def test_histogram_counts_every_score_once():
    scores = np.array([0.0, 0.05, 0.1, 0.55, 0.999, 1.0])
    rows = histogram(scores, {"all": np.ones(6, dtype=bool), "hi": scores > 0.5})
    assert sum(r["all"] for r in rows) == 6 and sum(r["hi"] for r in rows) == 3
    assert rows[0]["all"] == 2 and rows[-1]["all"] == 2


def test_command_on_prescored_labelled_lines_writes_png_and_json(tmp_path, capsys):
    rng = np.random.default_rng(0)
    lines = [{"text": f"q{i}", "score": float(s), "label": int(s > 0.4)} for i, s in enumerate(rng.random(200))]
    src = tmp_path / "scored.jsonl"
    src.write_text("\n".join(json.dumps(x) for x in lines))
    out = tmp_path / "cal"
    assert main(["intent", "--input", str(src), "--target-precision", "0.99", "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "proposed e2 (filter.intent_threshold)" in printed and "0.9-1.0" in printed
    result = json.loads((out / "intent_calibration.json").read_text())
    assert result["goal"] == {"target_precision": 0.99, "reached": True}
    assert result["proposed"]["precision"] >= 0.99 and result["proposed"]["recall"] == 1.0
    png = (out / "intent_histogram.png").read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and len(png) > 5000
    assert main(["gec", "--input", str(src), "--target-keep", "0.5"]) == 0
    assert "kept_share 0.5" in capsys.readouterr().out


def test_command_errors_are_one_line(tmp_path, capsys):
    src = tmp_path / "plain.txt"
    src.write_text("how do i reset my password\n")
    assert main(["gec", "--input", str(src), "--target-precision", "0.9"]) == 2
    assert "needs a 'label'" in capsys.readouterr().err
    assert main(["gec", "--input", str(tmp_path / "missing.txt")]) == 2
    assert "no such file" in capsys.readouterr().err
