"""The one-slot pairs written for the pair model's training (models.tools.one_slot_pairs): one term changed, the
label its group says, the same pairs whatever order the questions come in."""

import random

from models.tools.one_slot_pairs import (SWAPS, SYNONYMS, _SWAP_PARTNERS, _SYNONYM_PARTNERS, one_slot_negatives,
                                         one_slot_paraphrases, swapped, terms_in)

QUESTIONS = ["男孩子几岁开始长胡子", "怎么开通花呗", "明年春节是几号", "花呗如何还款", "长城有多长", "小学生几点睡觉好",
             "我的信用卡怎么还款", "为什么借呗不能用了", "哪里可以买到便宜的机票"]


def test_one_term_is_swapped_for_another_of_its_group():
    for q in QUESTIONS:
        got = swapped(q)
        if got is None:
            assert not terms_in(q, _SWAP_PARTNERS)
            continue
        new, term = got
        assert term in q and new != q
        assert any(new == q.replace(term, other, 1) for other in _SWAP_PARTNERS[term])
    assert swapped("长城有多长") is None


def test_the_longest_term_wins_where_two_overlap():
    assert [t for _, t in terms_in("小学生几点睡觉好", _SWAP_PARTNERS)] == ["小学生", "睡觉"]


def test_negatives_are_labelled_two_questions_and_paraphrases_one():
    negatives, paraphrases = one_slot_negatives(QUESTIONS, 100), one_slot_paraphrases(QUESTIONS, 100)
    assert negatives and all(y == 0 and a != b and a in QUESTIONS for a, b, y in negatives)
    assert paraphrases and all(y == 1 and a != b and a in QUESTIONS for a, b, y in paraphrases)


def test_the_same_pairs_whatever_the_order_and_capped_per_term():
    shuffled = QUESTIONS[:]
    random.Random(3).shuffle(shuffled)
    assert one_slot_negatives(QUESTIONS, 100, seed=5) == one_slot_negatives(shuffled, 100, seed=5)
    many = [f"第{i}个问题：怎么开通花呗" for i in range(50)]
    assert len(one_slot_negatives(many, 100, per_term=7)) == 14  # 开通 and 花呗, 7 each
    assert len(one_slot_negatives(many, 3)) == 3


def test_no_term_is_both_a_swap_and_a_synonym_of_another():
    for term, partners in _SYNONYM_PARTNERS.items():
        assert not set(partners) & set(_SWAP_PARTNERS.get(term, ())), term
    assert all(len(g) == len(set(g)) >= 2 for g in SWAPS + SYNONYMS)
