"""Evaluation-set builders: corruptions change the text in the intended way; shared data when present."""

import random

import pytest

from models.tools.eval_sets import KINDS, corrupt, english_gec_pairs, mucgec_pairs


def test_each_corruption_changes_the_text_in_its_own_way():
    text = "how does my card work when it is abroad"
    rng = random.Random(1)
    outs = {k: corrupt(text, k, rng) for k in KINDS}
    assert all(o and o != text for o in outs.values())
    assert len(outs["drop_word"].split()) == len(text.split()) - 1
    assert len(outs["double_word"].split()) == len(text.split()) + 1
    assert sorted(outs["swap_words"].split()) == sorted(text.split())
    assert outs["agreement"] != text and len(outs["agreement"].split()) == len(text.split())
    assert corrupt("hi you ok", "typo", rng) is None  # no word long enough


def test_sets_from_shared_data(shared_data):
    rows = list(mucgec_pairs(shared_data))
    assert len(rows) == 2 * 1137 and {r["label"] for r in rows} == {0, 1}
    en = list(english_gec_pairs(n=50, seed=0, data=shared_data))
    assert len(en) == 100
    assert all(a["pair"] == b["pair"] and a["label"] == 1 and b["label"] == 0 for a, b in zip(en[::2], en[1::2]))
    assert {r["kind"] for r in en[1::2]} == set(KINDS)


@pytest.mark.parametrize("kind", KINDS)
def test_corruptions_are_deterministic(kind):
    t = "what is the balance on my savings account"
    assert corrupt(t, kind, random.Random(5)) == corrupt(t, kind, random.Random(5))


def test_intent_eval_turns_are_not_prototypes():

    import yaml

    import models.tools.eval_sets
    from models.prototypes import load_prototypes
    from schemas.text import normalize_key

    spec_path = models.tools.eval_sets.INTENT_EVAL
    spec = yaml.safe_load(spec_path.read_text(encoding="utf-8"))
    protos = load_prototypes()["intent"]
    proto_keys = {normalize_key(t) for side in protos.values() for texts in side.values() for t in texts}
    ours = [t for lang in spec["unclear"].values() for texts in lang.values() for t in texts] + spec["clear"]["zh"]
    assert len(ours) > 200
    assert not proto_keys & {normalize_key(str(t)) for t in ours}


def test_intent_and_clinc_sets_from_shared_data(shared_data):
    from models.tools.eval_sets import clinc_oos_sets, intent_eval_rows

    rows = intent_eval_rows("all", 100, 0, shared_data)
    assert {r["lang"] for r in rows} == {"en", "zh"}
    assert sum(r["label"] for r in rows if r["lang"] == "en") == 100
    assert {r["kind"] for r in rows if r["label"] == 0} >= {"greeting", "followup", "gibberish", "long_chitchat"}
    assert rows == intent_eval_rows("all", 100, 0, shared_data)  # seeded
    train, val = clinc_oos_sets(shared_data)
    assert len(train) == 15100 and sum(r["label"] == "oos" for r in train) == 100
    assert len(val) == 3100 and sum(r["label"] for r in val) == 3000
