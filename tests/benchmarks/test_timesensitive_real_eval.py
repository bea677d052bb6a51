"""benchmarks/timesensitive_real_eval.py's tables (no models) and the tune set's form (issue 31)."""

import importlib.util
from pathlib import Path

BENCH = Path(__file__).resolve().parents[2] / "benchmarks"


def _load_eval():
    spec = importlib.util.spec_from_file_location("timesensitive_real_eval", BENCH / "timesensitive_real_eval.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_precision_recall_and_f1_per_language_kind_and_reason():
    ev = _load_eval()
    rows = [{"lang": "zh", "label": "1", "kind": "weather", "question": "a"},
            {"lang": "zh", "label": "1", "kind": "age", "question": "b"},
            {"lang": "zh", "label": "0", "kind": "history", "question": "c"},
            {"lang": "en", "label": "1", "kind": "code", "question": "d"},
            {"lang": "en", "label": "0", "kind": "definition", "question": "e"}]
    t = ev.tables(rows, {"default": ["weather", "", "price", "code", ""]})
    zh, en, both = (t["by_lang"]["default"][k] for k in ("zh", "en", "all"))
    assert (zh["p"], zh["r"], zh["f1"]) == (0.5, 0.5, 0.5) and (zh["tp"], zh["flagged"], zh["pos"]) == (1, 2, 2)
    assert (en["p"], en["r"], en["f1"]) == (1.0, 1.0, 1.0)
    assert (both["p"], both["r"]) == (0.667, 0.667)
    assert t["by_kind"]["default"]["zh\t0\thistory"] == [1, 1] and t["by_kind"]["default"]["zh\t1\tage"] == [1, 0]
    assert t["by_reason"]["default"] == {"code": {"flags": 1, "p": 1.0}, "price": {"flags": 1, "p": 0.0},
                                         "weather": {"flags": 1, "p": 1.0}}
    assert ev.prf([False, False], [1, 0]) == {"n": 2, "pos": 1, "flagged": 0, "tp": 0, "p": 1.0, "r": 0.0, "f1": 0.0}


def test_the_tune_set_is_realistic_in_form_and_apart_from_the_old_sets():
    ev = _load_eval()
    tune = ev.read_rows(BENCH / "timesensitive_real_tune.tsv")
    old = {r["question"] for name in ("timesensitive_dev.tsv", "timesensitive_eval.tsv")
           for r in ev.read_rows(BENCH / name)}
    assert len(tune) >= 300 and sum(r["lang"] == "zh" for r in tune) * 2 >= len(tune)
    assert len({r["question"] for r in tune}) == len(tune) and not {r["question"] for r in tune} & old
    kinds = {r["kind"] for r in tune}
    assert {"weather", "price", "rate", "age", "officeholder", "live_status", "code", "years_since", "gossip",
            "this_year", "history", "founded_year", "birth_date", "past_officeholder", "definition",
            "fixed_fact"} <= kinds
