"""zh-ngram v4's boundary features and head (models.gec.zh_boundary), and the tool that fits and measures it
(models.tools.train_zh_gec), on tiny models: no packaged model, no shared data."""

import json

import numpy as np
import pytest

from models.gec.zh_boundary import (FEATURE_NAMES, BoundaryFeatures, boundary_log_odds, edited_boundaries,
                                    text_values)
from models.lm.char_ngram import CharNgramModel
from schemas.errors import ModelLoadError

CORPUS = ["我们今天去公园散步。", "他们明天去学校上课。", "我们明天去公园。", "今天天气很好。", "旧金山很远。"] * 3


@pytest.fixture(scope="module")
def models():
    (fwd, fwd_low), (bwd, bwd_low) = CharNgramModel.build_kneser_ney(CORPUS, order=5, lower=2)
    return fwd, fwd_low, bwd, bwd_low


def _head(weights=None, offset=0.0, power=3.0):
    n = len(FEATURE_NAMES)
    return {"mean": [0.0] * n, "scale": [1.0] * n, "weights": weights or [0.1] * n, "bias": -1.0,
            "offset": offset, "power": power}


def test_features_line_up_with_the_models_and_their_neighbours(models):
    fwd, fwd_low, bwd, bwd_low = models
    texts = ["我们去公园。", "", "天"]
    x, n_pred = BoundaryFeatures(*models)(texts)
    assert n_pred.tolist() == [7, 1, 2] and x.shape == (10, 24)
    col = {name: i for i, name in enumerate(FEATURE_NAMES)}
    here = x[:7]
    np.testing.assert_allclose(here[:, col["fwd5"]], -fwd.logprobs([texts[0]])[0])
    np.testing.assert_allclose(here[:, col["fwd2"]], -fwd_low.logprobs([texts[0]])[0])
    np.testing.assert_allclose(here[:, col["fwd3"]], -fwd.truncated(3).logprobs([texts[0]])[0])
    back = -bwd.logprobs([texts[0]])[0]  # value i: character i (the last: the text's start)
    assert here[0, col["bwd5"]] == pytest.approx(back[-1])
    np.testing.assert_allclose(here[1:, col["bwd5"]], back[:-1])
    np.testing.assert_allclose(here[:, col["bwd2"]][1:], -bwd_low.logprobs([texts[0]])[0][:-1])
    # neighbours: 0 beyond the ends, else the boundary to the left / right
    assert not here[0, col["left_fwd5"]:col["left_bwd1"] + 1].any()
    np.testing.assert_allclose(here[1:, col["left_fwd5"]], here[:-1, col["fwd5"]])
    np.testing.assert_allclose(here[:-1, col["right_bwd5"]], here[1:, col["bwd5"]])
    assert not here[-1, col["right_fwd5"]:].any()
    assert not x[7, 8:].any()  # the empty text: one boundary, no neighbours
    empty, n = BoundaryFeatures(*models)([])
    assert empty.shape == (0, 24) and len(n) == 0


def test_features_refuse_a_forward_model_as_the_backward_one(models):
    fwd, fwd_low, _, bwd_low = models
    with pytest.raises(ValueError, match="right to left"):
        BoundaryFeatures(fwd, fwd_low, fwd, bwd_low)


def test_edited_boundaries_mark_both_sides_of_a_change_and_the_place_of_an_insertion():
    assert edited_boundaries("我去学校", "我去学校").tolist() == [0, 0, 0, 0, 0]
    assert edited_boundaries("我去学校", "我去了学校").tolist() == [0, 0, 1, 0, 0]  # 了 goes in after 去
    assert edited_boundaries("我去去学校", "我去学校").tolist() == [0, 0, 1, 1, 0, 0] or \
        edited_boundaries("我去去学校", "我去学校").tolist() == [0, 1, 1, 0, 0, 0]  # one 去 goes
    assert edited_boundaries("我去学较", "我去学校").tolist() == [0, 0, 0, 1, 1]  # 较 -> 校
    assert edited_boundaries("ｗｏ 去", "wo去").tolist() == [0, 0, 0, 0]  # normalised first


def test_text_value_is_the_power_mean_above_the_offset():
    z = np.array([0.0, 3.0, -1.0, 2.0, 2.0])
    v = text_values(_head(offset=1.0, power=3.0), z, np.array([3, 2]))
    assert v[0] == pytest.approx((2.0 ** 3 / 3) ** (1 / 3))
    assert v[1] == pytest.approx(1.0)
    assert text_values(_head(), np.zeros(0), np.zeros(0, dtype=np.int64)).shape == (0,)
    assert boundary_log_odds(_head(weights=[1.0] + [0.0] * 23), np.eye(24)[:2]).tolist() == [0.0, -1.0]


def test_the_packaged_head_loads_and_a_broken_one_fails_clearly(tmp_path):
    from models.gec.zh_ngram import HEAD_PATH, load_boundary_head

    head = load_boundary_head()
    assert len(head["weights"]) == 24 and head["features"] == list(FEATURE_NAMES) and head["power"] == 3.0
    assert HEAD_PATH.name == "zh_gec_boundary_lr.json"
    with pytest.raises(ModelLoadError, match="not found"):
        load_boundary_head(tmp_path / "missing.json")
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({**_head(), "weights": [0.1] * 8}), encoding="utf-8")
    with pytest.raises(ModelLoadError, match="not a zh-ngram boundary head"):
        load_boundary_head(bad)


def test_the_head_changes_the_identity_and_none_gives_v3(models):
    from models.gec.zh_ngram import ZhNgramGecScorer

    fwd, fwd_low, bwd, bwd_low = models
    refs = ["我们明天去公园。", "今天天气很好。"]
    kw = dict(model=fwd, lower=fwd_low, backward=bwd, backward_lower=bwd_low, references=refs)
    a = ZhNgramGecScorer(boundary_head=_head(), **kw)
    b = ZhNgramGecScorer(boundary_head=_head(offset=0.5), **kw)
    v3 = ZhNgramGecScorer(boundary_head=None, **kw)
    assert a.model_id.startswith("zh-ngram-v4:") and b.model_id.startswith("zh-ngram-v4:")
    assert a.model_id != b.model_id and v3.model_id.startswith("zh-ngram-v3:")
    (score, details), = a.score(["我们明天去公园。"])
    assert 0.0 <= score <= 1.0 and {"boundary_value", "boundary_log_odds_max", "least_likely"} <= set(details)
    # without a backward model the head cannot be used: v2
    assert ZhNgramGecScorer(model=fwd, lower=fwd_low, references=refs).model_id.startswith("zh-ngram-v2:")


def test_source_groups_follow_the_essay_topics():
    from models.tools.train_zh_gec import source_group

    assert source_group("在公共场所吸烟对别人的健康不好。") == "hsk-essay"
    assert source_group("我喜欢流行歌曲。") == "hsk-essay"
    assert source_group("父母是孩子的第一任老师。") == "hsk-essay"
    assert source_group("现在已经晚了。我要去睡觉了。") == "other"
    assert source_group("我吃了澳门名产的鸡蛋排！") == "other"


def test_leave_source_out_never_fits_on_the_held_out_group(models, monkeypatch):
    from models.tools import train_zh_gec

    lines = [("1", "吸烟对身体不好的。", ["吸烟对身体不好。"]), ("2", "我们去去公园。", ["我们去公园。"]),
             ("3", "我们明天去公园园。", ["我们明天去公园。", "我们明天去那个公园。"]),
             ("4", "孩子们去学校上课了了。", ["孩子们去学校上课了。"])]
    table = train_zh_gec.Table(lines, BoundaryFeatures(*models))
    assert table.groups.tolist().count("hsk-essay") == 4 and len(table.texts) == 9
    assert len(table.y) == len(table.x) and table.y.sum() > 0
    seen = []
    fit_head = train_zh_gec.fit_head

    def spy(x, y):
        seen.append(len(x))
        return fit_head(x, y)

    monkeypatch.setattr(train_zh_gec, "fit_head", spy)
    rows = train_zh_gec.leave_source_out(table)
    hsk_rows = int(table.n_pred[table.groups == "hsk-essay"].sum())
    other_rows = int(table.n_pred[table.groups == "other"].sum())
    assert seen == [other_rows, hsk_rows]  # held out hsk-essay: fitted on the rest, and the other way round
    assert [(r["held out"], r["lines"]) for r in rows] == [
        ("hsk-essay", "all"), ("hsk-essay", "fewest edits"), ("other", "all"), ("other", "fewest edits"),
        ("pooled", "all"), ("pooled", "fewest edits")]
    assert rows[4]["v3"]["texts"] == 9 and 0.0 <= rows[4]["v4"]["auroc"] <= 1.0
    assert "| pooled | all (4) | 9 |" in train_zh_gec.markdown(rows)


def test_the_tool_fails_with_one_error_line_without_the_data(tmp_path, capsys):
    from models.tools.train_zh_gec import main

    assert main(["--data", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: input: no such file") and err.count("\n") == 1
