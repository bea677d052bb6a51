"""QuestionRetriever / AnswerRetriever over a real published base, the query CLI, and integrity checks."""

import json
import shutil

import pytest

from indexes.loading import load_base
from indexes.query import main as query_main
from indexes.retrievers import AnswerRetriever, QuestionRetriever, no_info_message
from models.config_check import load_config
from pipelines.build import run_build
from schemas.errors import BaseIntegrityError



@pytest.fixture(scope="module")
def base(tmp_path_factory, fixtures_dir):
    out = tmp_path_factory.mktemp("retrieval") / "base"
    run_build([str(fixtures_dir / "tiny.jsonl"), str(fixtures_dir / "chat.jsonl")], out, load_config(None, {}))
    return out


@pytest.fixture(scope="module")
def fixtures_dir():
    from pathlib import Path

    return Path(__file__).resolve().parents[1] / "fixtures"


@pytest.mark.slow  # a real-model base
def test_question_retriever_ranks_the_paraphrase_first(base):
    qr = QuestionRetriever(base)
    hits = qr.search("what's the capital city of France", k=3)
    assert hits[0].question == "What is the capital of France?" and hits[0].qid.startswith("q_")
    assert len(hits) <= 3 and hits == sorted(hits, key=lambda h: -h.score)
    batch = qr.search_batch(["what's the capital city of France", "tea or coffee, which is better"], k=2)
    assert batch[0] == hits[:2] and len(batch) == 2


@pytest.mark.slow  # a real-model base
def test_answer_retriever_exact_then_nearest_then_no_information(base):
    ar = AnswerRetriever(base)
    exact = ar.get("what is the capital of france？")  # same normalised key
    assert exact.found and exact.score == 1.0 and "Paris" in exact.answer and exact.message == ""
    near = AnswerRetriever(base, threshold=0.0).get("capital of France please")
    assert near.found and near.matched_question == "What is the capital of France?"
    miss = ar.get("How many moons does Neptune have?")
    assert not miss.found and miss.message == "AnswerRetriever found no valid information for " \
                                              "How many moons does Neptune have?"
    assert no_info_message("海王星有几颗卫星？") == "调用AnswerRetriever查询海王星有几颗卫星？没有有效信息"
    assert [a.found for a in ar.get_batch(["What is the capital of France?", "zzz qqq"])] == [True, False]


@pytest.mark.slow  # a real-model base
def test_corrupted_or_mismatched_files_are_refused(base, tmp_path):
    version = (base / "latest").resolve()
    broken = tmp_path / "broken" / version.name  # a version folder keeps its version's name
    shutil.copytree(version, broken)
    data = bytearray((broken / "index.faiss").read_bytes())
    data[len(data) // 2] ^= 0xFF
    (broken / "index.faiss").write_bytes(bytes(data))
    with pytest.raises(BaseIntegrityError, match="index.faiss does not match its checksum"):
        load_base(broken)
    swapped = tmp_path / "swapped" / version.name  # a version folder keeps its version's name
    shutil.copytree(version, swapped)
    (swapped / "qa.parquet").unlink()
    with pytest.raises(BaseIntegrityError, match="qa.parquet is missing"):
        load_base(swapped)
    with pytest.raises(BaseIntegrityError, match="no published version"):
        load_base(tmp_path / "nothing")


@pytest.mark.slow  # a real-model base
def test_rows_swapped_in_qa_parquet_with_the_checksum_updated_are_refused(base, tmp_path):
    """The binding of qids (in row order) to index.faiss: the checksum alone can be made to match."""
    import hashlib

    import pyarrow as pa
    import pyarrow.parquet as pq

    version = (base / "latest").resolve()
    swapped = tmp_path / "swapped" / version.name  # a version folder keeps its version's name
    shutil.copytree(version, swapped)
    table = pq.read_table(swapped / "qa.parquet")
    qids = table.column("qid").to_pylist()
    qids[0], qids[1] = qids[1], qids[0]  # rank order stays 1..n: only the binding can tell
    table = table.set_column(table.schema.get_field_index("qid"), "qid", pa.array(qids))
    pq.write_table(table, swapped / "qa.parquet")
    manifest = json.loads((swapped / "manifest.json").read_text())
    manifest["files"]["qa.parquet"] = {"bytes": (swapped / "qa.parquet").stat().st_size,
                                       "sha256": hashlib.sha256((swapped / "qa.parquet").read_bytes()).hexdigest()}
    (swapped / "manifest.json").write_text(json.dumps(manifest))
    with pytest.raises(BaseIntegrityError, match="not the ones its index was built for"):
        load_base(swapped)
    assert load_base(version).qids[:2] == qids[1::-1]  # the untouched version still loads
    (swapped / "manifest.json").write_text("[1, 2]")
    with pytest.raises(BaseIntegrityError, match="is not a JSON object"):
        load_base(swapped)


def test_a_dangling_latest_says_which_version_is_missing(tmp_path):
    (tmp_path / "versions").mkdir()
    (tmp_path / "latest").symlink_to("versions/20260101T000000000Z")
    with pytest.raises(BaseIntegrityError, match="latest points to versions/20260101T000000000Z, which is missing"):
        load_base(tmp_path)


@pytest.mark.slow  # a real-model base
def test_query_cli_single_and_batch(base, tmp_path, capsys):
    assert query_main(["--base", str(base), "questions", "capital of France", "-k", "2"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["query"] == "capital of France" and len(out["hits"]) == 2
    assert query_main(["--base", str(base), "answer", "How many moons does Neptune have?"]) == 0
    assert json.loads(capsys.readouterr().out)["found"] is False
    queries = tmp_path / "q.txt"
    queries.write_text("What is the capital of France?\n\nWhich is better, tea or coffee?\n", encoding="utf-8")
    res = tmp_path / "r.jsonl"
    assert query_main(["--base", str(base), "answer", "--input", str(queries), "--output", str(res)]) == 0
    lines = [json.loads(x) for x in res.read_text().splitlines()]
    assert [x["query"] for x in lines] == ["What is the capital of France?", "Which is better, tea or coffee?"]
    assert all(x["found"] for x in lines)
    capsys.readouterr()
    assert query_main(["--base", str(base), "questions", "x", "-k", "0"]) == 2
    assert "-k must be between 1 and 100" in capsys.readouterr().err
    assert query_main(["--base", str(tmp_path / "none"), "answer", "x"]) == 2
    assert "no published version" in capsys.readouterr().err


@pytest.mark.slow  # a real-model base
def test_hybrid_and_bm25_modes(base):
    for mode in ("bm25", "hybrid"):
        hits = QuestionRetriever(base, mode=mode).search("capital of France", k=3)
        assert hits[0].question == "What is the capital of France?", mode
    with pytest.raises(Exception, match="retrieval mode must be one of dense, bm25, hybrid"):
        QuestionRetriever(base, mode="magic")


@pytest.mark.slow  # a real-model base
def test_http_service_bounds_and_live_reload(base, tmp_path, fixtures_dir):
    from fastapi.testclient import TestClient

    from indexes.serve import create_app

    live_dir = tmp_path / "live"
    shutil.copytree(base, live_dir, symlinks=True)
    client = TestClient(create_app(live_dir))
    health = client.get("/health").json()
    assert health["status"] == "ok" and health["questions"] > 0
    r = client.get("/questions", params={"q": "capital of France", "k": 2}).json()
    assert len(r["hits"]) == 2 and r["version"] == health["version"]
    a = client.get("/answer", params={"q": "What is the capital of France?"}).json()
    assert a["found"] and "Paris" in a["answer"]
    assert client.get("/questions", params={"q": "x", "k": 0}).status_code == 422
    assert client.get("/questions", params={"q": "x" * 2001}).status_code == 422
    assert client.get("/answer").status_code == 422
    # a new build into the same folder goes live without a restart
    newer = run_build([str(fixtures_dir / "tiny.jsonl")], live_dir, load_config(None, {}), full_rebuild=True)
    assert client.get("/health").json()["version"] == newer.version != health["version"]


@pytest.mark.slow  # a real-model base
def test_http_service_keeps_serving_its_verified_version_and_refuses_bad_queries(base, tmp_path):
    import os

    from fastapi.testclient import TestClient

    from indexes.serve import create_app

    live_dir = tmp_path / "live"
    shutil.copytree(base, live_dir, symlinks=True)
    client = TestClient(create_app(live_dir))
    served = client.get("/health").json()["version"]
    target = os.readlink(live_dir / "latest")
    # latest dangles: the verified version in memory keeps answering, /health says why it is degraded
    (live_dir / "latest").unlink()
    (live_dir / "latest").symlink_to("versions/20200101T000000000Z")
    assert client.get("/answer", params={"q": "What is the capital of France?"}).json()["found"]
    health = client.get("/health").json()
    assert health["status"] == "degraded" and "which is missing" in health["problem"] and health["version"] == served
    # latest points at a version that fails verification: refused, the served one stays, then all clears
    bad = live_dir / "versions" / "bad"
    shutil.copytree(live_dir / target, bad)
    (bad / "index.faiss").write_bytes(b"not an index")
    (live_dir / "latest").unlink()
    (live_dir / "latest").symlink_to("versions/bad")
    assert client.get("/questions", params={"q": "capital of France"}).status_code == 200
    assert "newer version refused" in client.get("/health").json()["problem"]
    (live_dir / "latest").unlink()
    (live_dir / "latest").symlink_to(target)
    assert client.get("/health").json() == {"status": "ok", "version": served,
                                            "questions": health["questions"], "mode": "hybrid"}
    # queries: white space only, invalid UTF-8 and an oversized input are 422, echoing little
    assert client.get("/questions", params={"q": "   "}).status_code == 422
    assert client.get("/answer?q=%FF%FEcapital").status_code == 422
    assert "not valid UTF-8" in client.get("/answer?q=caf%C3").json()["detail"]
    assert client.get("/answer?q=caf%C3%A9").status_code == 200
    big = client.get("/questions", params={"q": "x" * 60_000})
    assert big.status_code == 422 and len(big.content) < 1_000
