"""benchmarks/paraphrase_heldout.py: the held-out hard pairs it measures, and the tuning halves it adds."""

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks"))

import paraphrase_heldout  # noqa: E402


def test_held_out_sets_are_read_without_the_shared_data(tmp_path):
    sets = paraphrase_heldout.sets(tmp_path, "heldout")  # the held-out pairs live in the repository
    assert [(name, lang, len(pairs)) for name, lang, pairs in sets] == [
        ("zh hard (held out)", "zh", 158), ("en hard (held out)", "en", 158)]
    assert all(sum(y for _, _, y in pairs) == 79 for _, _, pairs in sets)


def test_medical_triplets_give_a_paraphrase_and_a_negative_each():
    pairs = paraphrase_heldout.triplets(ROOT / "benchmarks" / "paraphrase_en_medical.tsv")
    assert len(pairs) == 440 and [y for _, _, y in pairs[:2]] == [1, 0] and pairs[0][0] == pairs[1][0]
