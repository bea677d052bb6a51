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


@pytest.mark.slow
def test_the_trainers_build_figure_is_what_the_non_answer_stage_shuts_out():
    # "as a build applies them" is measured with the stage's own rule: the packaged model through the trainer
    # shuts out exactly what the build's judges do in the non-answer stage (its default config)
    from collections import Counter

    from models.answermatch.backends import PACKAGED
    from models.config_check import load_config
    from models.cross_encoder import load_cross_encoder
    from models.factory import RegistryModels
    from models.tools.train_answer_match import as_a_build_applies
    from pipelines.stages.nonanswer import judge_groups
    from pipelines.stages.paraphrase import make_entry
    from schemas.records import ScoredQuestion

    pairs = [("李白是哪个朝代的诗人？", "唐代。", 0), ("汪文斌多大了？", "无法确定汪文斌的年龄。", 1),
             ("质数是什么？", "质数的定义和基本性质", 1), ("12306是什么？", "12306是一个整数。", 1),
             ("光合作用是什么？", "简单说，就是植物借助阳光把二氧化碳和水变成养分，同时放出氧气。", 0),
             ("狗多重？", "因品种、年龄等因素而有所不同，请以实际为准。", 1),
             ("春节怎么过最有意思？", "和家人一起包饺子、看春晚。", 0), ("我的快递到哪了？", "我没有办法查看物流信息。", 1),
             ("今天星期几？", "我无法获取实时信息，不过你可以查看手机上的日期。", 1)]
    # among them: sure rules' flags, an answer let through unsure and flagged by the model (the heading), the head's
    # own flags judged again (the two inabilities), answers let through sure and not asked
    model, tokenizer, meta = load_cross_encoder(PACKAGED)
    flags, asked = as_a_build_applies(model, tokenizer, pairs, meta["threshold"])
    cfg = load_config(None)
    judges = RegistryModels.of(cfg).answer_judges()
    batch = [(make_entry([ScoredQuestion(q, q, 1, "zh", 1, 0.9, 0.9, "{}", "{}", True, True, {})], {}),
              [(q, {"a": Counter({a: 1})})]) for q, a, _ in pairs]
    built = [group.answers[0].non_answer for _, group in judge_groups(judges, batch, 10)]
    assert list(flags) == built and 0 < asked <= len(pairs)
    assert sum(built) >= 3  # the model and the rules do flag here: equal by flagging nothing would prove nothing


def test_cross_fitting_never_fits_a_fold_on_its_own_lines_nor_on_the_report_split(shared_data):
    if not (shared_data / "dq_base" / "dq_base_sample.jsonl").is_file():
        pytest.skip("the DQ sample is absent")
    from models.tools.train_answer_match import cross_fit_sets

    sets = cross_fit_sets(shared_data, None, 0, 3)
    report = {q for q, _, _ in sets["report"]}
    held_lines = [i for _, _, index in sets["folds"] for i in index]
    assert sorted(held_lines) == list(range(len(sets["tune"])))  # each tune line is held out once
    for fit, held, index in sets["folds"]:
        fitted = {q for q, _, _ in fit}
        assert not fitted & {q for q, _, _ in held} and not fitted & report
        assert held == [sets["tune"][i] for i in index] and 550 < len(held) < 800
    assert not {q for q, _, _ in sets["fit"]} & report
    assert {(q, a) for q, a, _ in sets["tune"]} <= {(q, a) for q, a, _ in sets["fit"]}
