"""The frontier's tiers (pipelines.stages.frontier): sized from the pass rate seen so far, none once enough
entries passed, everything left in the last tier or under filter.score_all."""

from pipelines.stages.frontier import in_window, tier_window
from pipelines.stages.paraphrase import make_entry
from pipelines.stages.score import unscored
from pipelines.stages.select import rank_order
from schemas.records import QuestionStats

ORDER = list(range(1000))  # stands in for 1,000 sorted order keys


def test_the_first_tier_assumes_everything_passes_and_later_tiers_follow_the_pass_rate():
    assert tier_window((0, 0, 0), ORDER, need=100, last=False, score_all=False) == (0, 120)
    # 120 scored, 60 passed: 40 still needed at a rate of 1/2 -> 80, plus 20%
    assert tier_window((120, 120, 60), ORDER, need=100, last=False, score_all=False) == (120, 216)
    # one more needed at 99/216: ceil(2.6)
    assert tier_window((216, 216, 99), ORDER, need=100, last=False, score_all=False) == (216, 219)
    # a tiny shortfall at a high rate still takes 2% of what is needed (here 10 of 500)
    assert tier_window((490, 490, 499), list(range(5000)), need=500, last=False, score_all=False) == (490, 500)


def test_no_tier_once_enough_passed_the_last_takes_the_rest_and_score_all_takes_everything():
    assert tier_window((120, 120, 100), ORDER, need=100, last=False, score_all=False) == (120, 120)
    assert tier_window((120, 120, 10), ORDER, need=100, last=True, score_all=False) == (120, 1000)
    assert tier_window((0, 0, 0), ORDER, need=100, last=False, score_all=True) == (0, 1000)
    assert tier_window((1000, 1000, 10), ORDER, need=100, last=False, score_all=True) == (1000, 1000)
    # nothing passes at all: sized as if 1 in 50 did, never a division by zero
    assert tier_window((120, 120, 0), ORDER, need=100, last=False, score_all=False) == (120, 1000)


def _entry(*forms):
    return make_entry([unscored(QuestionStats(k, k, f, "en", 1)) for k, f in forms], {})


def test_entries_are_ordered_before_scoring_most_asked_first_then_by_their_smallest_member_key():
    a, b, c = _entry(("b", 3), ("z", 2)), _entry(("c", 5)), _entry(("a", 5))
    assert a.representative is None and a.asks == 5 and a.order_key == "b"
    order = sorted(rank_order(e) for e in (a, b, c))
    assert order == [(-5, "a"), (-5, "b"), (-5, "c")]
    assert [in_window(e, (1, 2), order) for e in (a, b, c)] == [True, False, False]
