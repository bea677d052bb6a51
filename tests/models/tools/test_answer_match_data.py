"""The answer-match trainer's data: the report split of the real labels never reaches training or calibration."""

import pytest

from models.tools.train_answer_match import is_fit, training_sets


def test_the_fit_share_is_cut_by_line_hash():
    share = sum(is_fit(n) for n in range(4000)) / 4000
    assert 0.65 < share < 0.75 and is_fit(17) == is_fit(17)


def test_no_report_answer_is_trained_or_calibrated_on(shared_data):
    if not (shared_data / "dq_base" / "dq_base_sample.jsonl").is_file():
        pytest.skip("the DQ sample is absent")
    sets = training_sets(shared_data, None, 0)
    report = {(q, a) for q, a, _ in sets["report"]}
    used = {(q, a) for name in ("fit", "calibrate") for q, a, _ in sets[name]}
    assert len(sets["report"]) == 1986 and not report & used
    fit_questions = {q for q, _, _ in sets["fit"]}
    for measured in ("calibrate", "report"):  # nor their questions, with another answer (a written one)
        assert not fit_questions & {q for q, _, _ in sets[measured]}
