"""``qabase train-from-review``: a review file's decisions as labels, the heads refitted on them, the build's use."""

import json
import shutil

import numpy as np
import pytest

from fakes.models import HashEmbedder
from models.logistic import fit, params_digest
from models.paraphrase.pair_classifier import load_params
from models.timesensitive.embedding import features
from models.tools import train_from_review as tfr
from models.tools import train_nonanswer, train_timesensitive
from models.tools.review_labels import (ANCHOR_LINE, Label, QuestionTexts, anchors, base_texts, held_out_lines,
                                        labels_of)
from pipelines import cli
from schemas.review import parse_review

TEXTS = {
    "a": QuestionTexts("A?", "zh", ("无法确定", "建议关注官方通知")),
    "b": QuestionTexts("B?", "en", ("Paris.",)),
    "c": QuestionTexts("C?", "en", ("blue",)),
}


def _decisions(*items):
    return parse_review("".join(json.dumps(x, ensure_ascii=False) + "\n" for x in items).encode(), "r.jsonl")


def test_decisions_become_labels_on_the_bases_texts():
    labels = labels_of(_decisions(
        {"action": "exclude", "question": "a", "note": "non-answer: inability stated as a fact"},
        {"action": "exclude", "question": "b", "note": "out of date"},  # another reason: no label
        {"action": "answer", "question": "c", "answer": "Blue, mostly."},
        {"action": "answer", "question": "b", "answer": "Paris", "note": "logged answer is a non_answer"},
        {"action": "time_sensitive", "question": "b", "value": True},
        {"action": "time_sensitive", "question": "b", "value": False},  # the later line wins
        {"action": "merge", "question": "a", "into": "c"},
        {"action": "split", "question": "b", "from": "c"},
        {"action": "keep", "question": "c"},
        {"action": "exclude", "question": "nowhere", "note": "non-answer"},
        {"action": "merge", "question": "a", "into": "nowhere"},
    ), TEXTS)
    assert labels.of("non_answer") == [
        Label("non_answer", 1, "zh", 1, "A?", "建议关注官方通知"), Label("non_answer", 1, "zh", 1, "A?", "无法确定"),
        Label("non_answer", 3, "en", 0, "C?", "Blue, mostly."),
        Label("non_answer", 4, "en", 0, "B?", "Paris"), Label("non_answer", 4, "en", 1, "B?", "Paris.")]
    assert labels.of("time_sensitive") == [Label("time_sensitive", 6, "en", 0, "B?")]
    assert labels.of("paraphrase") == [Label("paraphrase", 7, "zh", 1, "A?", "C?"),
                                       Label("paraphrase", 8, "en", 0, "B?", "C?")]
    assert [line for line, _ in labels.skipped] == [10, 11]
    assert "no question 'nowhere'" in labels.skipped[0][1]


def test_held_out_share_is_seeded_per_kind_and_keeps_a_decisions_labels_together():
    labels = labels_of(_decisions(*[{"action": "exclude", "question": q, "note": "non-answer"} for q in "abc"],
                                  *[{"action": "time_sensitive", "question": q, "value": True} for q in "abc"]),
                       TEXTS)
    held = held_out_lines(labels, 0.34, 7)
    assert held == held_out_lines(labels, 0.34, 7)
    assert len(held & {1, 2, 3}) == 1 and len(held & {4, 5, 6}) == 1
    assert held_out_lines(labels, 0.0, 7) == frozenset()
    assert {held_out_lines(labels, 0.34, s) for s in range(10)} != {held}  # the seed chooses


# --- a fake world: the hash embedder, small "packaged" sets and heads fitted on them -----------------------------

NA_ROWS = [("en", "What is the capital of France?", "Paris is the capital of France.", 0),
           ("en", "How do I reset my password?", "Click Forgot password on the sign-in page.", 0),
           ("en", "Which is better, tea or coffee?", "Tea is calmer.", 0),
           ("en", "Who won?", "I cannot browse the internet.", 1),
           ("en", "What time is it?", "I don't have real-time data.", 1),
           ("en", "Price of gold?", "Prices vary; check a reliable source.", 1),
           ("zh", "中国的首都是哪里", "北京是中国的首都。", 0), ("zh", "水的沸点", "一百摄氏度。", 0),
           ("zh", "明天天气", "无法确定明天的天气。", 1), ("zh", "金价多少", "请以官方通知为准。", 1)]
TS_ROWS = [("en", "What is the price of gold today?", 1, ""), ("en", "Who is the current CEO?", 1, ""),
           ("en", "What is the capital of France?", 0, ""), ("en", "How do I boil an egg?", 0, ""),
           ("zh", "今天金价多少", 1, ""), ("zh", "现在的总统是谁", 1, ""), ("zh", "中国的首都是哪里", 0, ""),
           ("zh", "水的沸点是多少", 0, "")]


def _fake_world(tmp_path, named=True):
    """(sets folder, embedders, "packaged" heads); ``named=False``: heads that name no embedder (a config check
    compares the name with models.embedder's)."""
    sets = tmp_path / "sets"
    sets.mkdir(parents=True)
    for name in train_nonanswer.DEV_FILES:
        (sets / name).write_text("lang\tquestion\tanswer\tlabel\tkind\n" + "".join(
            f"{lg}\t{q}\t{a}\t{y}\t\n" for lg, q, a, y in NA_ROWS), encoding="utf-8")
    (sets / train_timesensitive.DEV_FILE).write_text("lang\tlabel\tkind\tquestion\n" + "".join(
        f"{lg}\t{y}\t{k}\t{q}\n" for lg, q, y, k in TS_ROWS), encoding="utf-8")
    emb = HashEmbedder()
    na = train_nonanswer.fit_heads(NA_ROWS, emb, 0.7)
    ts = {}
    for sp in ("en", "zh"):
        rows = [r for r in TS_ROWS if r[0] == sp]
        x = features(emb.embed([r[1] for r in rows]), [r[1] for r in rows], [r[0] for r in rows])
        ts[sp] = dict(fit(x, np.array([r[2] for r in rows], float), l2=10.0), threshold=0.5, embedder=emb.model_id)
    pairs = _fake_pair_judge(sets, emb)
    if not named:
        na.pop("embedder")
        for head in (*ts.values(), *pairs.values()):
            head.pop("embedder")
    return sets, {"embedder": emb, "en": emb, "zh": emb}, {"non_answer": na, "time_sensitive": ts,
                                                           "paraphrase": pairs}


EN_PAIRS = [("how do I reset my password", "how can I reset my password", 1),
            ("how do I reset my password", "how do I change my email", 0),
            ("what is the capital of france", "which city is the capital of france", 1),
            ("what is the capital of france", "what is the capital of spain", 0),
            ("where is my order", "where is my parcel", 1), ("where is my order", "how do I cancel my order", 0)]


def _fake_pair_judge(sets, emb) -> dict:
    """A ``pair-lr`` judge of the six features fitted on EN_PAIRS, written as the three English pair files."""
    from models.paraphrase.evidence import pair_features
    from models.paraphrase.pair_classifier import fit_logistic
    from models.tools.train_paraphrase import EN_HARD, EN_MEDICAL, EN_PAIRS as EN_FILE

    for name in (EN_FILE, EN_HARD):
        (sets / name).write_text("".join(f"{a}\t{b}\t{y}\n" for a, b, y in EN_PAIRS), encoding="utf-8")
    (sets / EN_MEDICAL).write_text("question\tparaphrase\tnot\n", encoding="utf-8")
    x = np.stack([pair_features(a, b, "en", float(emb.embed([a])[0] @ emb.embed([b])[0])) for a, b, _ in EN_PAIRS])
    head = dict(fit_logistic(x, np.array([y for _, _, y in EN_PAIRS], float)), floor=-1.0, threshold=0.5,
                embedder=emb.model_id)
    return {"en": head, "zh": dict(head)}


REVIEW = [{"action": "exclude", "question": "asdkjh qwe zxcv", "note": "non-answer (a shrug)"},
          {"action": "exclude", "question": "and the second one?", "note": "non-answer: answers another question"},
          {"action": "answer", "question": "hello", "answer": "Hello! How can I help you today?"},
          {"action": "answer", "question": "你好", "answer": "你好！有什么可以帮你？"},
          {"action": "time_sensitive", "question": "How do I reset my password?", "value": True},
          {"action": "time_sensitive", "question": "What is the capital of France?", "value": False},
          {"action": "time_sensitive", "question": "中国的首都是哪里", "value": False},
          {"action": "merge", "question": "hello", "into": "你好"}]


def _learn(base, review, tmp_path, named=True, **kw):
    sets, embedders, packaged = _fake_world(tmp_path, named)
    return tfr.learn(str(base), review, sets=sets, embedders=embedders, packaged=packaged, **kw)


@pytest.fixture
def base_and_review(shared_fake_base, tmp_path):
    base = tmp_path / "base"
    shutil.copytree(shared_fake_base[0], base, symlinks=True)
    review = tmp_path / "review.jsonl"
    review.write_text("".join(json.dumps(x, ensure_ascii=False) + "\n" for x in REVIEW), encoding="utf-8")
    return base, review


def test_refit_is_deterministic_versioned_and_measured(base_and_review, tmp_path):
    base, review = base_and_review
    first = _learn(base, review, tmp_path / "one", holdout=0.5, seed=3)
    files = {k: h["file"] for k, h in first["heads"].items()}
    written = {k: open(f, "rb").read() for k, f in files.items()}
    again = _learn(base, review, tmp_path / "two", holdout=0.5, seed=3)
    assert {k: h["file"] for k, h in again["heads"].items()} == files
    assert {k: open(f, "rb").read() for k, f in files.items()} == written
    assert again["held_out"] == first["held_out"]
    for kind, path in files.items():
        params = json.loads(written[kind])
        assert path.endswith(f"-{params_digest(params)}.json") and "/learned/" in path
    # refitted, not copied: the review's labels move the heads; thresholds stay the packaged ones
    _, _, packaged = _fake_world(tmp_path / "three")
    na = json.loads(written["non_answer"])
    assert na["en"]["weights"] != packaged["non_answer"]["en"]["weights"]
    assert na["en"]["threshold"] == packaged["non_answer"]["en"]["threshold"]
    assert set(first["held_out"]["non_answer"]) == set(tfr.HEADS)
    assert first["labels"]["non_answer"]["anchors"] > 0
    # the merge refits the English pair judge (no Chinese pair was decided: its regression stays as it was)
    assert first["labels"]["paraphrase"]["labels"] == 1
    judge = load_params(files["paraphrase"])
    assert judge["en"]["weights"] != packaged["paraphrase"]["en"]["weights"]
    assert judge["zh"] == packaged["paraphrase"]["zh"]
    assert judge["en"]["threshold"] == 0.5 and judge["meta"]["review"]["refit"] == {"en": True}
    assert first["heads"]["paraphrase"]["config"] == f"paraphrase.judge: pair-lr:{files['paraphrase']}"
    report = json.loads((base / "learned" / f"review-{first['review']['sha256'][:12]}.json").read_text())
    assert report["heads"] == first["heads"]
    # the answer-match gate to build with, matched to the refit head's scores, is among the settings printed
    gate = first["heads"]["non_answer"]["settings"][1]
    assert gate == f"answer_match.ask_above: {na['ask_above']:g}" and 0 <= na["ask_above"] <= 0.03
    assert gate in tfr.render(first)


def test_the_held_out_table_counts_anchors_judged_otherwise():
    test = [Label("non_answer", 3, "en", 1, "q1", "a1"), Label("non_answer", 4, "en", 0, "q2", "a2")]
    stood = [Label("non_answer", ANCHOR_LINE, "en", 0, f"s{i}", "fine") for i in range(4)]
    flag_all = {"all": True, "none": False}
    table = tfr._table(lambda head, labs: [flag_all[head]] * len(labs), {"all": "all", "none": "none"}, test, stood)
    assert table["all"]["precision"] == 0.5 and table["all"]["recall"] == 1.0 and table["all"]["anchors_changed"] == 4
    assert table["none"]["recall"] == 0.0 and table["none"]["anchors_changed"] == 0 and table["none"]["anchors"] == 4


def test_a_language_without_review_labels_keeps_its_packaged_head(base_and_review, tmp_path):
    base, review = base_and_review
    review.write_text(json.dumps({"action": "exclude", "question": "asdkjh qwe zxcv", "note": "non-answer"}) + "\n")
    out = _learn(base, review, tmp_path / "w", holdout=0.0)
    _, _, packaged = _fake_world(tmp_path / "p")
    na = json.loads(open(out["heads"]["non_answer"]["file"]).read())
    assert na["zh"] == packaged["non_answer"]["zh"] and na["en"] != packaged["non_answer"]["en"]
    assert out["held_out"]["non_answer"] == {} and "time_sensitive" not in out["heads"]


def test_anchors_are_the_versions_verdicts_on_entries_no_decision_names(base_and_review):
    from schemas.layout import version_dir

    folder = version_dir(base_and_review[0])
    decisions = _decisions(*REVIEW[4:6])  # two time_sensitive decisions: the other entries stood
    texts = base_texts(folder)
    stood = anchors(folder, decisions, texts, 100, 0)
    named = {texts[k].question for d in decisions for k in d.keys() if k in texts}
    assert stood and all(lab.line == ANCHOR_LINE for lab in stood)
    assert not {lab.question for lab in stood} & named
    assert {lab.label for lab in stood if lab.kind == "non_answer"} == {0}
    assert {lab.question for lab in stood if lab.kind == "time_sensitive"} == \
        {lab.question for lab in stood if lab.kind == "non_answer"}
    assert anchors(folder, decisions, texts, 2, 5) == anchors(folder, decisions, texts, 2, 5)
    assert len({lab.question for lab in anchors(folder, decisions, texts, 2, 5)}) == 2


def test_the_build_records_the_refit_heads_identity(base_and_review, tmp_path):
    from models.config_check import load_config
    from models.factory import RegistryModels

    base, review = base_and_review
    heads = _learn(base, review, tmp_path / "w", named=False, holdout=0.0)["heads"]
    cfg = load_config(None, {"non_answer.model": f"embedding:{heads['non_answer']['file']}",
                             "time_sensitive.model": f"embedding:{heads['time_sensitive']['file']}",
                             "paraphrase.judge": f"pair-lr:{heads['paraphrase']['file']}"})
    ids = RegistryModels.of(cfg).identities()
    for kind, key in (("non_answer", "non_answer"), ("time_sensitive", "time_sensitive")):
        digest = heads[kind]["file"].rsplit("-", 1)[1].removesuffix(".json")
        assert f"@{digest}" in ids[key]
    packaged = RegistryModels.of(load_config(None, {})).identities()
    assert packaged["non_answer"] != ids["non_answer"] and packaged["time_sensitive"] != ids["time_sensitive"]
    assert ids["paraphrase"].startswith("paraphrase-pair-lr-v3@") and packaged["paraphrase"] != ids["paraphrase"]


def test_a_bad_review_file_is_one_error_line(shared_fake_base, tmp_path, capsys):
    base = shared_fake_base[0]
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"action": "merge", "question": "hello"}\n', encoding="utf-8")
    assert cli.main(["train-from-review", "--base", str(base), "--review", str(bad)]) == 2
    assert capsys.readouterr().err.strip().splitlines() == ["error: review: bad.jsonl line 1: merge needs 'into'"]
    nothing = tmp_path / "keep.jsonl"
    nothing.write_text('{"action": "keep", "question": "hello"}\n', encoding="utf-8")
    assert cli.main(["train-from-review", "--base", str(base), "--review", str(nothing)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("error: review: ") and "gives no label" in err[0]
    assert not (base / "learned").exists()


def test_a_refit_starts_from_what_the_packaged_head_was_trained_on(base_and_review, tmp_path):
    sets, embedders, packaged = _fake_world(tmp_path / "w")
    (sets / train_timesensitive.REAL_STYLE_FILE).write_text(
        "lang\tlabel\tkind\tquestion\nzh\t1\tprice\t金价今天多少\nzh\t0\tfixed_fact\t泰山海拔多少米\n", encoding="utf-8")
    names = (train_timesensitive.DEV_FILE, train_timesensitive.REAL_STYLE_FILE)
    packaged["time_sensitive"]["en"]["trained_on"] = [names[0]]
    packaged["time_sensitive"]["zh"]["trained_on"] = [*names, train_timesensitive.REAL_SOURCE]
    absent = tmp_path / "no-shared-data"
    rows, sources = tfr.timesensitive_training(sets, packaged["time_sensitive"], absent)
    assert len(rows) == len(TS_ROWS) + 2 and sources["en"] == [names[0]] and sources["zh"][:2] == list(names)
    assert sources["zh"][2].startswith(f"not {train_timesensitive.REAL_SOURCE}: ") and len(sources["zh"]) == 3
    # each head's own files only: the English head was not fitted on the real-style file
    (sets / train_timesensitive.REAL_STYLE_FILE).write_text(
        "lang\tlabel\tkind\tquestion\nen\t1\tprice\tgold price today\n", encoding="utf-8")
    assert len(tfr.timesensitive_training(sets, packaged["time_sensitive"], absent)[0]) == len(TS_ROWS)
    # an older head that names nothing starts from the dev file alone
    assert tfr.timesensitive_training(sets, {"en": {}, "zh": {}}, absent)[1] == {"en": [names[0]], "zh": [names[0]]}
    # the refit head says what it started from, and the command's summary warns of what was missing
    base, review = base_and_review
    out = tfr.learn(str(base), review, sets=sets, embedders=embedders, packaged=packaged, data=absent, holdout=0.0)
    head = json.loads(open(out["heads"]["time_sensitive"]["file"]).read())
    assert head["en"]["trained_on"] == [names[0], "review"]
    assert head["zh"]["trained_on"][:2] == list(names) and head["zh"]["trained_on"][-1] == "review"
    assert "warning: time_sensitive's refit started from less than its packaged head: not " in tfr.render(out)


def test_the_packaged_chinese_time_head_learned_real_questions_apart_from_the_report_split(shared_data):
    import models.timesensitive.embedding as ts

    trained = {sp: ts.load_params()[sp]["trained_on"] for sp in ts.SPACES}
    assert train_timesensitive.REAL_SOURCE in trained["zh"] and train_timesensitive.REAL_SOURCE not in trained["en"]
    tune = train_timesensitive.real_rows(shared_data, "tune")
    report = train_timesensitive.real_rows(shared_data, "report")
    assert len(tune) > 1000 and len(report) > 300 and not {r[1] for r in tune} & {r[1] for r in report}


def test_the_answer_match_gate_follows_the_refit_heads_scores():
    # a refit that scores the base's answers ten times lower asks answer_match of as many at a tenth of the gate
    x = np.linspace(-3, 3, 200)[:, None]
    packaged = {sp: {"mean": [0.0], "scale": [1.0], "weights": [1.0], "bias": 0.0} for sp in ("en", "zh")}
    lower = {sp: dict(head, bias=-np.log(10.0)) for sp, head in packaged.items()}
    langs = ["zh"] * 100 + ["en"] * 100
    gate = 0.5
    asked = int((1 / (1 + np.exp(-x[:, 0])) >= gate).sum())
    matched = tfr.matched_gate(packaged, lower, x, langs, gate)
    assert matched < gate / 5
    after = 1 / (1 + np.exp(-(x[:, 0] - np.log(10.0))))
    assert int((after >= matched).sum()) == asked
    assert tfr.matched_gate(packaged, packaged, x, langs, gate) == gate  # the same heads, the same gate
    assert tfr.matched_gate(packaged, lower, x[:0], [], gate) == gate


def test_chinese_merges_without_the_public_pairs_refit_nothing_and_say_why(base_and_review, tmp_path):
    base, review = base_and_review
    review.write_text(json.dumps({"action": "merge", "question": "你好", "into": "中国的首都是哪里"},
                                 ensure_ascii=False) + "\n", encoding="utf-8")
    out = _learn(base, review, tmp_path / "w", holdout=0.0, data=tmp_path / "no-shared-data")
    assert "paraphrase" not in out["heads"] and "no LCQMC and BQ dev pairs" in out["not_refit"]["paraphrase"]
    assert "paraphrase: not refitted: zh: " not in tfr.render(out)
    assert "paraphrase: not refitted: " in tfr.render(out)
    # with an English pair beside it, the English regression is refitted and the summary says what was not
    review.write_text("".join(json.dumps(d, ensure_ascii=False) + "\n" for d in (
        {"action": "merge", "question": "你好", "into": "中国的首都是哪里"},
        {"action": "split", "question": "hello", "from": "What is the capital of France?"})), encoding="utf-8")
    out = _learn(base, review, tmp_path / "w2", holdout=0.0, data=tmp_path / "no-shared-data")
    assert out["heads"]["paraphrase"]["left_as_packaged"][0].startswith("zh: no LCQMC and BQ dev pairs")
    assert "warning: paraphrase's zh: no LCQMC" in tfr.render(out)

