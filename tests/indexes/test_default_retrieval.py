"""The default QuestionRetriever (issue 15): fusion, per-language routing, alias search, language indexes
published and verified, and bases without them (before issue 15) still answered."""

import json
import shutil

import numpy as np
import pytest
from fakes.models import FakeModels, HashEmbedder

from indexes.fusion import best_per_row, score_fusion, weighted_rrf
from indexes.loading import load_base, memory_base
from indexes.retrievers import DEFAULT_MODE, FUSION, AnswerRetriever, Fusion, QuestionRetriever, query_space
from models.config_check import load_config
from pipelines.build import run_build
from schemas.errors import BaseIntegrityError
from schemas.layout import MANIFEST


class SpyEmbedder(HashEmbedder):
    """The hash embedder under another id, recording what it embedded."""

    def __init__(self, model_id: str):
        self.model_id = model_id
        self.seen: list[str] = []

    def embed(self, texts):
        self.seen.extend(texts)
        return super().embed(texts)


class OneHotEmbedder:
    """Knows a fixed list of texts (one dimension each; ``same`` maps texts onto one dimension): a dense
    space where exactly the listed paraphrases meet, and any other text is far from all."""

    model_id = "one-hot-test"

    def __init__(self, groups: list[list[str]]):
        self.dim = len(groups) + 1
        self.of = {t: i for i, g in enumerate(groups) for t in g}

    def embed(self, texts):
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for r, t in enumerate(texts):
            out[r, self.of.get(t, self.dim - 1)] = 1.0
        return out


# ---- fusion ---------------------------------------------------------------------------------------------

def test_best_per_row_keeps_each_entrys_best_form():
    rows, scores = best_per_row(np.array([4, 1, 3, -1, 0]), np.array([0.9, 0.8, 0.7, 0.0, 0.6]),
                                np.array([0, 0, 1, 1, 2]), depth=5)
    assert rows.tolist() == [2, 0, 1] and scores.tolist() == [0.9, 0.8, 0.7]
    rows, _ = best_per_row(np.array([4, 1, 3]), np.array([0.9, 0.8, 0.7]), np.array([0, 0, 1, 1, 2]), depth=1)
    assert rows.tolist() == [2]


def test_score_fusion_lets_strong_lexical_evidence_reorder_close_cosines_only():
    dense = (np.array([0, 1, 2]), np.array([0.80, 0.79, 0.60]))
    lexical = (np.array([1, 3]), np.array([10.0, 5.0]))
    fused = score_fusion(dense, lexical, alpha=0.1, k=4)
    assert [r for r, _ in fused] == [1, 0, 3, 2]  # 0.89, 0.80, 0.60 + 0.05 (floor for a row outside dense)
    assert fused[0][1] == pytest.approx(0.89)
    # a large cosine gap is not overturned by BM25
    assert score_fusion((np.array([0, 1]), np.array([0.9, 0.6])), lexical, 0.1, 2)[0][0] == 0
    # no lexical match at all: the dense order
    assert [r for r, _ in score_fusion(dense, (np.array([], int), np.array([])), 0.1, 3)] == [0, 1, 2]


def test_weighted_rrf_weights_the_lists():
    dense = (np.array([0, 1]), np.array([0.9, 0.8]))
    lexical = (np.array([1, 0]), np.array([3.0, 1.0]))
    assert [r for r, _ in weighted_rrf([dense, lexical], [1.0, 1.0], 2, 60)] == [0, 1]  # a tie: lower row
    assert [r for r, _ in weighted_rrf([dense, lexical], [1.0, 0.3], 2, 60)] == [0, 1]
    assert [r for r, _ in weighted_rrf([dense, lexical], [0.3, 1.0], 2, 60)] == [1, 0]


def test_the_default_is_the_tuned_hybrid():
    assert DEFAULT_MODE == "hybrid" and set(FUSION) == {"en", "zh"}
    assert QuestionRetriever(memory_base(["a question"], HashEmbedder())).mode == "hybrid"
    assert query_space("how do I reset my password") == "en" and query_space("怎么重置密码") == "zh"
    assert query_space("WiFi密码忘了怎么办") == "zh" and query_space("123") == "en"


# ---- routing, aliases, normalisation -------------------------------------------------------------------

def test_queries_are_routed_to_their_languages_index():
    en, zh, main = SpyEmbedder("spy-en"), SpyEmbedder("spy-zh"), SpyEmbedder("spy-main")
    base = memory_base(["how do I reset my password", "what is the capital of france", "怎么重置密码", "法国的首都是哪里"],
                       main, space_embedders={"en": en, "zh": zh})
    assert base.spaces["en"].rows.tolist() == [0, 1] and base.spaces["zh"].rows.tolist() == [2, 3]
    en.seen.clear(), zh.seen.clear(), main.seen.clear()
    hits = QuestionRetriever(base).search_batch(["reset password how", "密码怎么重置"], k=1)
    assert en.seen == ["reset password how"] and zh.seen == ["密码怎么重置"] and main.seen == []
    assert hits[0][0].question == "how do I reset my password" and hits[1][0].question == "怎么重置密码"
    # a language the base has no index for goes to index.faiss (every row, the base's embedder)
    only_en = memory_base(["how do I reset my password"], main, space_embedders={"en": en})
    main.seen.clear()
    assert QuestionRetriever(only_en, mode="dense").search("怎么重置密码", 1)[0].question == "how do I reset my password"
    assert main.seen == ["怎么重置密码"]


def test_an_entry_is_found_by_its_aliases_too():
    # the query is a paraphrase of an alias, in a space where it is far from the representative
    emb = OneHotEmbedder([["how can I change my PIN", "changing the PIN of my card"],
                          ["how do I reset my password"]])
    base = memory_base(["how can I change my card's personal number", "how do I reset my password"], emb,
                       space_embedders={"en": emb}, aliases=[["how can I change my PIN"], []])
    for mode in ("dense", "hybrid"):
        top = QuestionRetriever(base, mode=mode).search("changing the PIN of my card", k=1)[0]
        assert top.question == "how can I change my card's personal number", mode
    # without the aliases the same query finds nothing better than chance
    bare = memory_base(["how can I change my card's personal number", "how do I reset my password"], emb,
                       space_embedders={"en": emb})
    assert QuestionRetriever(bare, mode="dense").search("changing the PIN of my card", k=2)[0].score == 0.0


def test_an_exact_key_match_of_any_form_comes_first_and_queries_are_normalised():
    emb = OneHotEmbedder([])  # every text alike: only the key and BM25 can tell
    base = memory_base(["長城有多長", "how do I reset my password"], emb, space_embedders={"en": emb, "zh": emb},
                       aliases=[[], ["password reset"]])
    qr = QuestionRetriever(base)
    assert qr.search("长城有多长？", 1)[0].question == "長城有多長"  # traditional = simplified key
    assert qr.search("PASSWORD RESET!", 1)[0].question == "how do I reset my password"  # an alias's key
    # BM25 sees queries and forms normalised: simplified characters meet traditional ones
    assert QuestionRetriever(base, mode="bm25").search("长城多长", 1)[0].question == "長城有多長"
    assert QuestionRetriever(base, mode="dense", exact_first=False).search("长城有多长？", 2)[0].score == 1.0


def test_fusion_override_and_modes_keep_working():
    base = memory_base(["how do I reset my password", "what is the capital of france"], HashEmbedder(),
                       space_embedders={"en": HashEmbedder()})
    for mode in ("dense", "bm25", "hybrid"):
        assert QuestionRetriever(base, mode=mode).search("capital of france", 1)[0].question.startswith("what"), mode
    rrf = QuestionRetriever(base, fusion=Fusion("rrf", 0.5, 10)).search("capital of france", 2)
    assert rrf[0].question == "what is the capital of france" and rrf[0].score == pytest.approx(1 / 11 + 0.5 / 11,
                                                                                              abs=1e-6)


# ---- published bases ----------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def fake_base(tmp_path_factory):
    from pathlib import Path

    fixtures = Path(__file__).resolve().parents[1] / "fixtures"
    folder = tmp_path_factory.mktemp("default-retrieval")
    rows = ([("how do I reset reset my password?", "Use the reset link.")] * 5  # merged as aliases (fake judge)
            + [("How do I reset my password?", "Use the reset link.")] * 3
            + [("How to reset my password?", "Click 'Forgot password'.")] * 2
            + [("法国的首都是哪里？", "巴黎。")] * 3 + [("怎么重置密码？", "点击忘记密码。")] * 2)
    logs = folder / "logs.jsonl"
    logs.write_text("".join(json.dumps({"question": q, "answer": a}, ensure_ascii=False) + "\n" for q, a in rows),
                    encoding="utf-8")
    out = folder / "base"
    cfg = load_config(None, {"aggregation.cache": False, "models.cache": False, "quality.data_docs": False})
    run_build([str(fixtures / "tiny.jsonl"), str(logs)], out, cfg, factory=FakeModels(), gate=False, report=False)
    return (out / "latest").resolve()


def test_a_build_publishes_verified_language_indexes_of_every_form(fake_base):
    manifest = json.loads((fake_base / MANIFEST).read_text())
    spaces = manifest["index"]["spaces"]
    assert set(spaces) == {"en", "zh"} and spaces["en"]["embedder"] == HashEmbedder.model_id
    for sp, facts in spaces.items():
        assert facts["file"] in manifest["files"] and facts["rows_file"] in manifest["files"]
    base = load_base(fake_base, HashEmbedder())
    assert set(base.spaces) == {"en", "zh"}
    n_forms = sum(len(base.spaces[sp].rows) for sp in base.spaces)
    assert n_forms == len(base.questions) + sum(len(a) for a in base.aliases) > len(base.questions)
    # every entry sits in its language's index (its representative's form first)
    for sp, si in base.spaces.items():
        first = {int(r) for r in si.rows}
        assert all(query_space(base.questions[r]) == sp for r in first)
    hits = QuestionRetriever(base).search("What is the capital of France", 1)
    assert hits[0].question == "What is the capital of France?"
    assert QuestionRetriever(base).search("法国首都是哪里", 1)[0].question == "法国的首都是哪里？"
    # an alias that failed the filters (a doubled word) is a form of its entry: searched, found first
    assert any("reset reset" in a for a in base.aliases[base.questions.index("How do I reset my password?")])
    assert QuestionRetriever(base).search("how do I reset reset my password", 1)[0].question == \
        "How do I reset my password?"


def test_a_base_without_language_indexes_still_loads_and_answers(fake_base, tmp_path):
    old = tmp_path / "old" / fake_base.resolve().name  # a version folder keeps its version's name
    shutil.copytree(fake_base, old)
    manifest = json.loads((old / MANIFEST).read_text())
    for sp, facts in manifest["index"].pop("spaces").items():
        for name in (facts["file"], facts["rows_file"]):
            (old / name).unlink()
            del manifest["files"][name]
    (old / MANIFEST).write_text(json.dumps(manifest))
    base = load_base(old, HashEmbedder())
    assert base.spaces == {}
    for mode in ("hybrid", "dense", "bm25"):
        assert QuestionRetriever(base, mode=mode).search("capital of France?", 1)[0].question == \
            "What is the capital of France?", mode
    assert AnswerRetriever(old, embedder=HashEmbedder()).get("What is the capital of France").found


def test_language_indexes_are_verified(fake_base, tmp_path):
    broken = tmp_path / "broken" / fake_base.resolve().name  # a version folder keeps its version's name
    shutil.copytree(fake_base, broken)
    data = bytearray((broken / "index_en.faiss").read_bytes())
    data[-5] ^= 0xFF
    (broken / "index_en.faiss").write_bytes(bytes(data))
    with pytest.raises(BaseIntegrityError, match="index_en.faiss does not match its checksum"):
        load_base(broken, HashEmbedder())
    gone = tmp_path / "gone" / fake_base.resolve().name  # a version folder keeps its version's name
    shutil.copytree(fake_base, gone)
    (gone / "index_zh_rows.npy").unlink()
    with pytest.raises(BaseIntegrityError, match="index_zh_rows.npy is missing"):
        load_base(gone, HashEmbedder())
    other = tmp_path / "other" / fake_base.resolve().name  # a version folder keeps its version's name
    shutil.copytree(fake_base, other)
    manifest = json.loads((other / MANIFEST).read_text())
    manifest["index"]["spaces"]["en"]["embedder"] = "some-other-embedder"
    (other / MANIFEST).write_text(json.dumps(manifest))
    # the registry's embedder for the space loads on the first dense search, and is refused then, before it embeds
    base = load_base(other, HashEmbedder())
    with pytest.raises(BaseIntegrityError, match="index_en.faiss was built with embedder some-other-embedder"):
        base.embed(["how do I reset my password?"], "en")


def test_language_indexes_can_be_turned_off(tmp_path):
    from pathlib import Path

    fixtures = Path(__file__).resolve().parents[1] / "fixtures"
    cfg = load_config(None, {"aggregation.cache": False, "models.cache": False, "quality.data_docs": False,
                             "index.language_indexes": False})
    res = run_build([str(fixtures / "tiny.jsonl")], tmp_path / "b", cfg, factory=FakeModels(), gate=False, report=False)
    assert "spaces" not in res.manifest["index"] and not list(res.path.glob("index_*.faiss"))
    assert load_base(res.path, HashEmbedder()).spaces == {}
