"""Intent backend classifier:DIR (a trained head, or a local HF classifier) and models.tools.train_intent."""

import json
import zlib

import numpy as np
import pytest

from models.intent.classifier import HfClassifierIntentScorer, clarity, load_classifier_intent, softmax
from models.tools.train_intent import fit_temperature, stratified_split, train
from models.tools.train_intent import main as train_main
from schemas.errors import ModelLoadError, QabaseError


class BagOfWordsEmbedder:
    """Hashed bag of words, unit length: a fake where the embedder is beside the point."""

    model_id = "bag-of-words-test"
    dim = 64

    def embed(self, texts):
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for i, t in enumerate(texts):
            for w in t.lower().replace("?", " ").split():
                out[i, zlib.crc32(w.encode()) % self.dim] += 1.0
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        return out / np.where(norms == 0, 1, norms)


DATA = ([("how do i reset my password", "password"), ("reset the password please", "password"),
         ("i forgot my password how do i reset it", "password"), ("change my password", "password"),
         ("what is my account balance", "balance"), ("show my balance", "balance"),
         ("how much money is in my account", "balance"), ("balance of my savings account", "balance"),
         ("hello there", "oos"), ("lol ok", "oos"), ("tell me a joke", "oos"), ("haha nice one", "oos")] * 3)


def test_softmax_clarity_and_temperature():
    logits = np.array([[2.0, 0.0], [0.0, 2.0]])
    p = softmax(logits)
    assert p.sum(1) == pytest.approx([1, 1])
    assert clarity(p, [1]) == pytest.approx([p[0, 0], p[1, 0]])  # binary: 1 - P(unclear)
    assert clarity(p, []) == pytest.approx(p.max(1))  # no unclear label: confidence
    three = softmax(np.array([[3.0, 1.0, 0.0], [1.0, 1.0, 0.5]]))
    assert clarity(three, [2]) == pytest.approx(three[:, :2].max(1))  # the best clear intent's probability
    # over-confident logits (a third of them wrong) want a temperature above 1; timid correct ones below 1
    overconfident = np.array([[9.0, 0.0], [0.0, 9.0], [9.0, 0.0]])
    assert fit_temperature(overconfident, np.array([0, 1, 1])) > 1.0
    assert fit_temperature(np.array([[1.0, 0.0], [0.0, 1.0]]), np.array([0, 1])) < 1.0


def test_stratified_split_keeps_every_label_in_training():
    labels = ["a"] * 10 + ["b"] * 3 + ["c"]
    tr, held = stratified_split(labels, 0.3, seed=0)
    assert sorted(tr + held) == list(range(len(labels)))
    assert {labels[i] for i in tr} == {"a", "b", "c"}
    assert len(held) == 3 + 1  # 30% of a, 30% of b, none of the singleton c


def test_trained_head_separates_requests_from_chitchat(tmp_path):
    texts, labels = zip(*DATA)
    meta = train(list(texts), list(labels), tmp_path / "head", BagOfWordsEmbedder(), {"oos"}, val_share=0.25,
                 epochs=200, embedder_spec="bow")
    assert meta["unclear_labels"] == ["oos"] and meta["labels"] == ["balance", "oos", "password"]
    assert meta["metrics"]["held_out_examples"] == 9
    scorer = load_classifier_intent(str(tmp_path / "head"), lambda spec: BagOfWordsEmbedder())
    (clear, details), (chat, _) = scorer.score(["how do i reset my password?", "haha hello"], ["en", "en"])
    assert clear > 0.8 > 0.2 > chat
    assert set(details["top_labels"]) <= {"balance", "oos", "password"}
    # vectors are handed on for reuse, in the head's one embedding space for both languages
    scores, vectors = scorer.score_with_vectors(["show my balance"], ["zh"])
    assert vectors[0].shape == (64,) and "zh" in scorer.embedders()


def test_train_needs_an_unclear_label(tmp_path):
    with pytest.raises(QabaseError, match="no unclear label"):
        train(["a b", "c d"], ["x", "y"], tmp_path / "h", BagOfWordsEmbedder(), {"oos"})


def test_train_intent_command_with_a_local_encoder(tmp_path, tiny_bert, capsys):
    data = tmp_path / "labeled.jsonl"
    data.write_text("".join(json.dumps({"text": t, "label": y}) + "\n" for t, y in DATA), encoding="utf-8")
    out = tmp_path / "head"
    assert train_main(["--data", str(data), "--out", str(out), "--embedder", f"hf:{tiny_bert}", "--epochs", "20"]) == 0
    summary = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert summary["labels"] == 3 and summary["unclear_labels"] == ["oos"]
    meta = json.loads((out / "intent_head.json").read_text())
    assert meta["embedder"] == f"hf:{tiny_bert}" and meta["dim"] == 16
    # the pipeline's registry loads it as classifier:DIR with the embedder it was trained on
    from models.registry import model_key_model
    from schemas.config import ModelsConfig

    scorer = model_key_model("intent", ModelsConfig(intent=f"classifier:{out}"))
    [(score, _)] = scorer.score(["how do i reset my password ?"], ["en"])
    assert 0.0 <= score <= 1.0
    data.write_text('{"text": "x"}\n', encoding="utf-8")
    assert train_main(["--data", str(data), "--out", str(out)]) == 2
    assert "needs a string 'text' and a 'label'" in capsys.readouterr().err


def test_hf_sequence_classifier_backend(tiny_bert_classifier):
    scorer = load_classifier_intent(str(tiny_bert_classifier), lambda spec: None)
    assert isinstance(scorer, HfClassifierIntentScorer)
    assert scorer.labels == ["clear", "oos"] and scorer.unclear == [1]
    results, vectors = scorer.score_with_vectors(["how do i reset my password ?", "hello"], ["en", "en"])
    assert vectors == {} and scorer.embedders() == {}
    for score, details in results:
        assert score == pytest.approx(1.0 - details["top_labels"]["oos"], abs=1e-3)
        assert score == pytest.approx(details["top_labels"]["clear"], abs=1e-3)
    # a calibration file rescales the logits
    logits = scorer.logits(["hello"])
    (tiny_bert_classifier / "qabase_calibration.json").write_text('{"temperature": 4.0}')
    try:
        hot = HfClassifierIntentScorer(tiny_bert_classifier)
        [(score, _)] = hot.score(["hello"], ["en"])
        assert score == pytest.approx(float(softmax(logits, 4.0)[0, 0]), abs=1e-5)
    finally:
        (tiny_bert_classifier / "qabase_calibration.json").unlink()


def test_classifier_directory_errors(tmp_path, tiny_bert):
    with pytest.raises(ModelLoadError, match="is not a directory"):
        load_classifier_intent(str(tmp_path / "nope"), lambda spec: None)
    (tmp_path / "empty").mkdir()
    with pytest.raises(ModelLoadError, match="neither intent_head.json"):
        load_classifier_intent(str(tmp_path / "empty"), lambda spec: None)


def test_score_questions_with_a_classifier_that_hands_on_no_vectors(tiny_bert_classifier):
    from models.registry import ScoringModels, model_key_model
    from pipelines.stages.score import score_questions
    from schemas.config import FilterConfig, ModelsConfig
    from schemas.records import QuestionStats

    heuristic = ModelsConfig(gec_en="zh-heuristic", gec_zh="zh-heuristic")
    models = ScoringModels(model_key_model("gec_en", heuristic), model_key_model("gec_zh", heuristic),
                           HfClassifierIntentScorer(tiny_bert_classifier))
    q = QuestionStats(key="你好吗", question="你好吗", frequency=2, lang="zh", surface_forms=1)
    [scored] = score_questions(models, [q], FilterConfig(gec_threshold=0.0, intent_threshold=0.0))
    assert scored.vectors == {}
    assert 0.0 <= scored.intent_score <= 1.0
