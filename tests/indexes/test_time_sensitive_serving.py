"""A time-sensitive entry's answer says when it was true wherever it is served: AnswerRetriever and so
``qabase query answer``, the HTTP service's /answer, the MCP tool (its structured content and the text an agent
reads) and the function-calling schema, and the browse page's data. One base built with the fake models (the real
cue rules judge time-sensitivity) from dated logs."""

import json

import anyio
import pytest
from fakes.models import FakeModels, HashEmbedder

from indexes.agent_tools import RetrieverTools, openai_tools
from models.config_check import load_config
from pipelines.build import run_build
from schemas.dates import as_of_note

MILK = "How much is a gallon of milk right now?"
SPAIN = "What is the capital of Spain?"
AS_OF = "time-sensitive: as of logs from 2026-10-01 to 2026-11-20"


def _row(question, answer, day):
    return {"question": question, "answer": answer, "timestamp": f"2026-{day}T09:00:00Z"}


@pytest.fixture(scope="module")
def base(tmp_path_factory):
    work = tmp_path_factory.mktemp("asof")
    rows = ([_row(MILK, "About $4.20 a gallon.", d) for d in ("10-01", "10-15", "11-20")]
            + [_row(SPAIN, "Madrid is the capital of Spain.", d) for d in ("10-02", "10-03")])
    logs = work / "logs.jsonl"
    logs.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    cfg = load_config(None, {"aggregation.cache": False, "models.cache": False, "quality.data_docs": False})
    run_build([str(logs)], work / "base", cfg, factory=FakeModels(), gate=False)
    return work / "base"


@pytest.fixture
def fake_registry(monkeypatch):
    import models.registry

    monkeypatch.setattr(models.registry, "load_embedder", lambda spec, **kw: HashEmbedder())


def test_the_note_names_the_logs_period():
    assert as_of_note(False, {"first": "2026-10-01", "last": "2026-11-20"}) == ""
    assert as_of_note(True, {"first": "2026-10-01", "last": "2026-11-20"}) == AS_OF
    assert as_of_note(True, {"first": "2026-10-01", "last": "2026-10-01"}) == "time-sensitive: as of logs of 2026-10-01"
    assert as_of_note(True, None) == "time-sensitive: may be out of date (the logs carry no dates)"


def test_answer_retriever_and_the_query_command(base, fake_registry, capsys):
    from indexes.query import main as query
    from indexes.retrievers import AnswerRetriever

    ar = AnswerRetriever(base, embedder=HashEmbedder())
    milk, spain = ar.get(MILK), ar.get(SPAIN)
    assert milk.time_sensitive and milk.logs_period == {"first": "2026-10-01", "last": "2026-11-20"}
    assert milk.as_of == AS_OF and spain.found and not spain.time_sensitive and spain.as_of == ""
    assert ar.get("How many moons does Neptune have?").as_of == ""  # not found
    assert query(["--base", str(base), "answer", MILK]) == 0
    assert json.loads(capsys.readouterr().out)["as_of"] == AS_OF


def test_http_answer(base, fake_registry):
    from fastapi.testclient import TestClient

    from indexes.serve import create_app

    client = TestClient(create_app(base))
    assert client.get("/answer", params={"q": MILK}).json()["as_of"] == AS_OF
    assert client.get("/answer", params={"q": SPAIN}).json()["as_of"] == ""
    described = client.get("/openapi.json").json()["components"]["schemas"]["AnswerResponse"]["properties"]
    assert "time-sensitive: as of logs from" in described["as_of"]["description"]


def test_mcp_result_text_and_the_function_schema(base, fake_registry):
    from mcp import Client

    from indexes import mcp_server
    from indexes.serve import LiveBase

    assert RetrieverTools(LiveBase(base)).call("answer_retriever", {"query": MILK})["as_of"] == AS_OF

    async def session():
        async with Client(mcp_server.create_server(base)) as client:
            result = await client.call_tool("answer_retriever", {"query": MILK})
            assert result.structured_content["as_of"] == AS_OF
            assert AS_OF in " ".join(c.text for c in result.content if c.type == "text")  # what an agent reads

    anyio.run(session)
    answer_tool = [t for t in openai_tools() if t["function"]["name"] == "answer_retriever"][0]
    assert "as_of" in answer_tool["function"]["description"] and "as_of" in mcp_server.INSTRUCTIONS


def test_browse_page_data(base):
    from pipelines.release import browse
    from schemas.layout import MANIFEST

    version = base / "latest"
    page = browse.collect(version, json.loads((version / MANIFEST).read_text(encoding="utf-8")))
    rows = [dict(zip(page["entries"]["fields"], r)) for r in page["entries"]["rows"]]
    by_question = {r["question"]: r for r in rows}
    assert by_question[MILK]["as_of"] == AS_OF and by_question[SPAIN]["as_of"] == ""
