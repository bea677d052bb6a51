"""The MCP server (indexes/mcp_server.py) through the MCP SDK's own client: over stdio (the server a subprocess, as
an agent starts it), over streamable HTTP on 127.0.0.1, live reload of a newly published version, bad arguments
as tool errors, and the OpenAI function-calling schemas from the same tool definitions.

One base per module, built with the fake models (tests/fakes/models.py): English and Chinese questions.
Its embedder is the fake one, which the model registry cannot load by name, so the server subprocesses run
``indexes.mcp_server.main`` after putting the fake in ``models.registry.load_embedder``'s place (LAUNCH below),
and the in-process tests do the same with monkeypatch.
"""

import json
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import NamedTuple

import anyio
import jsonschema
import pytest
from fakes.models import FakeModels, HashEmbedder

from indexes import mcp_server
from indexes.agent_tools import TOOLS, RetrieverTools, ToolArgumentError, checked_query, openai_tools, sdk_tools
from indexes.query import MAX_K, MAX_QUERY_CHARS, MAX_QUERY_TOKENS
from indexes.retrievers import Answer
from models.config_check import load_config
from pipelines.build import gate_version, publish_version, run_build, stage_version

ROOT = Path(__file__).resolve().parents[2]
FAST = {"aggregation.cache": False, "models.cache": False, "quality.data_docs": False}
LOGS = [("What is the capital of France?", "Paris is the capital of France.")] * 2 + [
    ("what is the capital of france", "The capital of France is Paris."),
    ("How do I reset my password?", "Click Forgot password on the sign-in page."),
    ("How do I reset my password?", "Click Forgot password on the sign-in page."),
    ("Which is better, tea or coffee?", "Tea is calmer and healthier."),
    ("怎么重置密码？", "在登录页点击忘记密码。"),
    ("怎么重置密码？", "在登录页点击忘记密码。"),
    ("中国的首都是什么城市？", "北京是中国的首都。"),
    ("中国的首都是什么城市？", "北京是中国的首都。")]
NEWER_LOGS = [("What is the boiling point of water?", "Water boils at 100 degrees Celsius at sea level.")] * 2
NEPTUNE = "How many moons does Neptune have?"
NEPTUNE_ZH = "海王星有几颗卫星？"
# the server as `python -m indexes.mcp_server ARGS`, over the fake embedder
LAUNCH = ("import sys; sys.path[:0] = [{root!r}, {tests!r}]; import models.registry as r; "
          "from fakes.models import HashEmbedder; r.load_embedder = lambda spec, **kw: HashEmbedder(); "
          "from indexes.mcp_server import main; sys.exit(main(sys.argv[1:]))").format(
    root=str(ROOT), tests=str(ROOT / "tests"))
ENV = {"OMP_WAIT_POLICY": "PASSIVE", "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1",
       "TOKENIZERS_PARALLELISM": "false", "PYTHONPATH": str(ROOT)}


def _logs(path: Path, pairs) -> Path:
    path.write_text("".join(json.dumps({"question": q, "answer": a}, ensure_ascii=False) + "\n" for q, a in pairs),
                    encoding="utf-8")
    return path


def _build(logs: Path, base: Path, **kw):
    return run_build([str(logs)], base, load_config(None, FAST), factory=FakeModels(), **kw)


@pytest.fixture(scope="module")
def base(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("mcp")
    _build(_logs(folder / "logs.jsonl", LOGS), folder / "base", gate=False, report=False)
    return folder / "base"


@pytest.fixture
def live_copy(base, tmp_path) -> Path:
    """A copy of the base a test may publish into or break."""
    shutil.copytree(base, tmp_path / "live", symlinks=True)
    return tmp_path / "live"


@pytest.fixture
def fake_registry(monkeypatch):
    import models.registry

    monkeypatch.setattr(models.registry, "load_embedder", lambda spec, **kw: HashEmbedder())


def _stdio(base: Path):
    from mcp import Client, StdioServerParameters

    return Client(StdioServerParameters(command=sys.executable, args=["-c", LAUNCH, "--base", str(base)], env=ENV,
                                        cwd=str(ROOT)), read_timeout_seconds=60)


def _text(result) -> str:
    return " ".join(c.text for c in result.content if c.type == "text")


async def _check_answers(client, version: str) -> None:
    """Both tools answer right, in structured content and its text copy, in English and Chinese."""
    hits = await client.call_tool("question_retriever", {"query": "what's the capital city of France", "k": 2})
    assert not hits.is_error and hits.structured_content["version"] == version
    assert hits.structured_content["hits"][0]["question"] == "What is the capital of France?"
    assert len(hits.structured_content["hits"]) == 2 and json.loads(_text(hits)) == hits.structured_content
    zh = await client.call_tool("question_retriever", {"query": "怎么重置密码"})
    assert zh.structured_content["hits"][0]["question"] == "怎么重置密码？"
    got = (await client.call_tool("answer_retriever", {"query": "what is the capital of france？"})).structured_content
    assert got["found"] and got["answer"] == "Paris is the capital of France." and got["score"] == 1.0
    assert got["matched_question"] == "What is the capital of France?" and got["message"] == ""
    zh = (await client.call_tool("answer_retriever", {"query": "中国的首都是什么城市？"})).structured_content
    assert zh["found"] and zh["answer"] == "北京是中国的首都。"
    for query, message in ((NEPTUNE, f"AnswerRetriever found no valid information for {NEPTUNE}"),
                           (NEPTUNE_ZH, f"调用AnswerRetriever查询{NEPTUNE_ZH}没有有效信息")):
        miss = await client.call_tool("answer_retriever", {"query": query})
        assert not miss.is_error and miss.structured_content["found"] is False
        assert miss.structured_content["message"] == message and miss.structured_content["answer"] == ""


async def _check_refusals(client) -> None:
    """Arguments out of bounds are tool errors that say what was wrong; the server answers on."""
    cases = [("question_retriever", {"query": "capital", "k": 0}, "greater than or equal to 1"),
             ("question_retriever", {"query": "capital", "k": MAX_K + 1}, f"less than or equal to {MAX_K}"),
             ("question_retriever", {"query": "capital", "k": "many"}, "valid integer"),
             ("answer_retriever", {"query": "x" * (MAX_QUERY_CHARS + 1)}, f"at most {MAX_QUERY_CHARS} characters"),
             ("answer_retriever", {"query": ""}, "at least 1 character"),
             ("answer_retriever", {"query": " \t\n"}, "query: empty"),
             ("answer_retriever", {}, "Field required"),
             ("answer_retriever", {"query": 42}, "valid string"),
             ("answer_retriever", {"query": "caf\ufffd"}, "not valid UTF-8")]
    for tool, args, says in cases:
        result = await client.call_tool(tool, args)
        assert result.is_error and says in _text(result), (tool, args, _text(result))
        assert len(_text(result)) < 1_000  # a long query is not echoed back whole
    # within MAX_QUERY_CHARS but costing more than MAX_QUERY_TOKENS to embed (the fake embedder: 4 bytes a token)
    long = await client.call_tool("answer_retriever", {"query": "x" * MAX_QUERY_CHARS})
    assert long.is_error and f"more than {MAX_QUERY_TOKENS}" in _text(long)
    assert not (await client.call_tool("answer_retriever", {"query": "x" * 4 * (MAX_QUERY_TOKENS - 1)})).is_error


@pytest.mark.slow  # a server subprocess
def test_stdio_session_lists_answers_and_refuses(base):
    version = os.readlink(base / "latest").rsplit("/", 1)[-1]

    async def session():
        async with _stdio(base) as client:
            tools = {t.name: t for t in (await client.list_tools()).tools}
            assert set(tools) == set(TOOLS)
            for t, spec in zip(sdk_tools(RetrieverTools(None)), openai_tools()):
                assert tools[t.name].input_schema == spec["function"]["parameters"]  # OpenAI's = MCP's
                assert tools[t.name].description == spec["function"]["description"] == TOOLS[t.name].description
            assert tools["question_retriever"].input_schema["properties"]["k"]["maximum"] == MAX_K
            assert tools["answer_retriever"].input_schema["properties"]["query"]["maxLength"] == MAX_QUERY_CHARS
            assert tools["answer_retriever"].output_schema["properties"]["found"]["type"] == "boolean"
            assert tools["question_retriever"].annotations.read_only_hint is True
            await _check_answers(client, version)
            await _check_refusals(client)

    anyio.run(session)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Served(NamedTuple):
    url: str  # the MCP endpoint
    health: str
    base: Path
    proc: subprocess.Popen
    log: Path  # its stderr (a pipe nobody reads could fill and stall it)


def _wait_healthy(server: Served, limit_s: float = 60.0) -> dict:
    """/health's JSON once the server answers it; fails (with the server's stderr) if it exits or takes too long."""
    deadline = time.monotonic() + limit_s
    while time.monotonic() < deadline:
        if server.proc.poll() is not None:
            pytest.fail(f"the server exited with {server.proc.returncode}: {server.log.read_text()[-2000:]}")
        try:
            with urllib.request.urlopen(server.health, timeout=2) as r:
                return json.loads(r.read())
        except (urllib.error.URLError, ConnectionError, TimeoutError):
            time.sleep(0.2)
    pytest.fail(f"no answer from {server.health} within {limit_s:.0f} s")


@pytest.fixture
def http_server(live_copy, tmp_path):
    """The server on streamable HTTP at 127.0.0.1 (a free port) over a copy of the base, stopped at the end."""
    port = _free_port()
    log = tmp_path / "server.log"
    with log.open("wb") as err:
        proc = subprocess.Popen([sys.executable, "-c", LAUNCH, "--base", str(live_copy), "--transport", "http",
                                 "--port", str(port)], cwd=ROOT, env={**os.environ, **ENV},
                                stdout=subprocess.DEVNULL, stderr=err)
    try:
        yield Served(f"http://127.0.0.1:{port}/mcp", f"http://127.0.0.1:{port}/health", live_copy, proc, log)
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


@pytest.mark.slow  # a server subprocess
def test_streamable_http_answers_and_reloads_a_newly_published_version(http_server, tmp_path):
    from mcp import Client

    # the new version is built and gated while the server starts, not yet published (the daily DAG's steps)
    staged = stage_version([str(_logs(tmp_path / "newer.jsonl", NEWER_LOGS))], http_server.base,
                           load_config(None, FAST), full_rebuild=True, factory=FakeModels())
    gate_version(http_server.base, staged.version)
    health = _wait_healthy(http_server)
    assert health["status"] == "ok" and health["questions"] == 5 and health["mode"] == "hybrid"
    assert staged.version != health["version"]

    async def before():
        async with Client(http_server.url) as client:
            await _check_answers(client, health["version"])
            old = await client.call_tool("answer_retriever", {"query": NEWER_LOGS[0][0]})
            assert old.structured_content["found"] is False
            bad = await client.call_tool("question_retriever", {"query": "capital", "k": 0})
            assert bad.is_error

    anyio.run(before)
    # published: it goes live on the next call, without a restart
    publish_version(http_server.base, staged.version)

    async def after():  # as a client of the handshake-era protocol (initialize first) sees it
        async with Client(http_server.url, mode="legacy") as client:
            assert client.protocol_version < "2026"
            got = (await client.call_tool("answer_retriever", {"query": NEWER_LOGS[0][0]})).structured_content
            assert got["version"] == staged.version and got["found"] and got["answer"] == NEWER_LOGS[0][1]
            gone = (await client.call_tool("answer_retriever", {"query": "What is the capital of France?"}))
            assert gone.structured_content["found"] is False and gone.structured_content["version"] == staged.version

    anyio.run(after)
    assert _wait_healthy(http_server)["version"] == staged.version


def test_a_broken_new_version_is_refused_and_the_verified_one_answers_on(live_copy, fake_registry):
    """In process (the SDK's in-memory client): latest re-pointed at a version that fails verification."""
    from mcp import Client

    server = mcp_server.create_server(live_copy)
    served = os.readlink(live_copy / "latest")
    bad = live_copy / "versions" / "bad"
    shutil.copytree(live_copy / served, bad)
    (bad / "index.faiss").write_bytes(b"not an index")

    async def session():
        async with Client(server) as client:
            first = (await client.call_tool("answer_retriever", {"query": "How do I reset my password?"}))
            (live_copy / "latest").unlink()
            (live_copy / "latest").symlink_to("versions/bad")
            again = (await client.call_tool("answer_retriever", {"query": "How do I reset my password?"}))
            assert not again.is_error and again.structured_content == first.structured_content
            # a lone surrogate (JSON's "\ud800"; no UTF-8 encodes it) is refused by the schema's string type
            lone = await client.call_tool("answer_retriever", {"query": "caf\ud800"})
            assert lone.is_error and "unable to parse raw data as a unicode string" in _text(lone)

    anyio.run(session)


def test_function_calls_are_validated_as_the_mcp_server_validates_them(base, fake_registry):
    """RetrieverTools.call: what runs an OpenAI-style function call (arguments as the model sent them)."""
    from indexes.serve import LiveBase

    tools = RetrieverTools(LiveBase(base))
    hits = tools.call("question_retriever", '{"query": "how do I reset my password", "k": 1}')
    assert [h["question"] for h in hits["hits"]] == ["How do I reset my password?"]
    miss = tools.call("answer_retriever", {"query": NEPTUNE_ZH})
    assert miss["found"] is False and miss["message"] == f"调用AnswerRetriever查询{NEPTUNE_ZH}没有有效信息"
    for name, args, says in (("question_retriever", {"query": "q", "k": 0}, "greater than or equal to 1"),
                             ("answer_retriever", "{not json", "arguments: not JSON"),
                             ("answer_retriever", "[1]", "a JSON object expected, got list"),
                             ("answer_retriever", {"query": "  "}, "query: empty"),
                             ("search_web", {"query": "q"}, "unknown tool 'search_web'")):
        with pytest.raises(ToolArgumentError, match=says):
            tools.call(name, args)


def test_checked_query_keeps_the_bounds_of_the_query_cli():
    assert checked_query("  capital of France ") == "  capital of France "
    for bad, says in ((" ", "query: empty"), ("x" * (MAX_QUERY_CHARS + 1), "longer than 2000"),
                      ("\ud83d", "lone surrogate at character 0"), ("a\ufffdb", r"U\+FFFD at character 1")):
        with pytest.raises(ToolArgumentError, match=says):
            checked_query(bad)


def test_results_are_the_http_service_bodies():
    """The output schemas are the HTTP service's response models (indexes/responses.py), which carry every
    field of the retrievers' Hit and Answer."""
    from indexes.responses import AnswerResponse, QuestionsResponse

    tools = {t.name: t for t in sdk_tools(RetrieverTools(None))}
    assert tools["answer_retriever"].output_schema["properties"].keys() == AnswerResponse.model_fields.keys()
    assert list(AnswerResponse.model_fields) == ["version", "query", *Answer._fields]
    assert tools["question_retriever"].output_schema["properties"].keys() == QuestionsResponse.model_fields.keys()


def test_openai_schemas_are_valid_and_carry_the_bounds(capsys):
    tools = openai_tools()
    assert [t["function"]["name"] for t in tools] == list(TOOLS) and all(t["type"] == "function" for t in tools)
    for t in tools:
        jsonschema.Draft202012Validator.check_schema(t["function"]["parameters"])
        assert t["function"]["description"] == TOOLS[t["function"]["name"]].description
    questions = jsonschema.Draft202012Validator(tools[0]["function"]["parameters"])
    assert questions.is_valid({"query": "capital of France", "k": MAX_K}) and questions.is_valid({"query": "q"})
    for bad in ({"query": "q", "k": 0}, {"query": "q", "k": MAX_K + 1}, {"query": ""},
                {"query": "x" * (MAX_QUERY_CHARS + 1)}, {"k": 3}, {"query": "q", "k": 2.5}):
        assert not questions.is_valid(bad), bad
    answer = jsonschema.Draft202012Validator(tools[1]["function"]["parameters"])
    assert answer.is_valid({"query": "q"}) and not answer.is_valid({})
    # printed by the command, as `qabase mcp --print-openai-tools`
    from pipelines.cli import main as qabase

    assert qabase(["mcp", "--print-openai-tools"]) == 0
    assert json.loads(capsys.readouterr().out) == tools


def test_a_base_that_cannot_be_served_is_one_error_line_and_exit_2(tmp_path, capsys):
    assert mcp_server.main(["--base", str(tmp_path / "none")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("error: ") and "no published version" in err[0]
    (tmp_path / "dangling").mkdir()
    (tmp_path / "dangling" / "latest").symlink_to("versions/20200101T000000000Z")
    assert mcp_server.main(["--base", str(tmp_path / "dangling"), "--transport", "http"]) == 2
    assert "which is missing" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exc:
        mcp_server.main([])
    assert exc.value.code == 2 and "--base is required" in capsys.readouterr().err
