"""Evaluation-set builders: corruptions change the text in the intended way; shared data when present."""

import random

import pytest

from models.eval_sets import KINDS, corrupt, english_gec_pairs, mucgec_pairs


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
