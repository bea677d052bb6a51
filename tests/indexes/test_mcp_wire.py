"""The MCP server's stdio wire (indexes/mcp_wire.py): every malformed JSON-RPC line gets a JSON-RPC error reply
(with the request's id when it can be read) and the server serves on; ``k`` is an integer, strictly."""

import json
import os
import select
import subprocess
import sys

import pytest
from fakes.models import HashEmbedder

from indexes.agent_tools import RetrieverTools, ToolArgumentError
from indexes.mcp_wire import INVALID_PARAMS, INVALID_REQUEST, MAX_DEPTH, PARSE_ERROR, screen

CALL = '{"jsonrpc":"2.0","id":%s,"method":"tools/call","params":%s}'
HOSTILE = [  # (line, the code of the reply, its id)
    ("not json", PARSE_ERROR, None),
    ('{"jsonrpc":"2.0","id":2,"method":"tools/call","params":"x"}', INVALID_REQUEST, 2),
    ('{"id":3,"method":"tools/list"}', INVALID_REQUEST, 3),
    (CALL % (4, "[" * 100_000 + "]" * 100_000), INVALID_PARAMS, 4),
    (CALL % ('"d"', '{"a":' * 40 + "1" + "}" * 40), INVALID_PARAMS, "d"),
    (CALL % (5, '{"name":"question_retriever","arguments":{"query":"capital","k":%s}}' % ("9" * 5000)),
     INVALID_PARAMS, 5),
    ('[1, 2]', INVALID_REQUEST, None),
    ('{"jsonrpc":"2.0","id":[1],"method":"tools/list"}', INVALID_REQUEST, None),
    ('{"jsonrpc":"2.0","id":6,"method":7}', INVALID_REQUEST, 6),
]


@pytest.mark.parametrize("line, code, id_", HOSTILE)
def test_a_malformed_line_is_answered_with_its_jsonrpc_error(line, code, id_):
    message, reply = screen(line)
    assert message is None and reply["error"]["code"] == code and reply["id"] == id_, reply
    assert len(reply["error"]["message"]) < 300


def test_a_sound_line_is_served_and_a_lone_surrogate_reaches_the_tool():
    message, reply = screen(CALL % (1, '{"name":"answer_retriever","arguments":{"query":"caf\\ud800"}}'))
    assert reply is None and message["params"]["arguments"]["query"] == "caf\ud800"
    assert screen(CALL % (1, '{"a":' * (MAX_DEPTH - 3) + "1" + "}" * (MAX_DEPTH - 3)))[1] is None
    assert screen("  \n") == (None, None)


@pytest.mark.parametrize("k", ["5", 5.0, True, 10**40])
def test_k_is_strictly_an_integer_in_range(k):
    with pytest.raises(ToolArgumentError):
        RetrieverTools(None).call("question_retriever", {"query": "capital", "k": k})


@pytest.mark.slow  # a server subprocess
def test_the_stdio_server_answers_every_hostile_line_and_serves_on(shared_fake_base):
    from test_mcp_server import ENV, LAUNCH, ROOT

    proc = subprocess.Popen([sys.executable, "-c", LAUNCH, "--base", str(shared_fake_base[0])], cwd=ROOT,
                            env={**os.environ, **ENV}, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL)

    def ask(line: str, timeout: float = 60) -> dict:
        proc.stdin.write(line.encode("utf-8", "surrogatepass") + b"\n")
        proc.stdin.flush()
        ready, _, _ = select.select([proc.stdout], [], [], timeout)
        assert ready, f"no reply to {line[:80]!r}"
        return json.loads(proc.stdout.readline())

    try:
        init = {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}
        assert "result" in ask(json.dumps({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": init}))
        proc.stdin.write(b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n')
        for line, code, id_ in HOSTILE:
            got = ask(line, 20)
            assert got["error"]["code"] == code and got["id"] == id_, got
        surrogate = ask(CALL % (7, '{"name":"answer_retriever","arguments":{"query":"caf\\ud800"}}'))
        assert surrogate["id"] == 7 and surrogate["result"]["isError"] is True
        for k in ('"5"', "5.0", "true"):
            got = ask(CALL % (8, '{"name":"question_retriever","arguments":{"query":"capital","k":%s}}' % k))
            assert got["result"]["isError"] is True, got
        ok = ask(CALL % (9, '{"name":"question_retriever","arguments":{"query":"capital","k":2}}'))
        assert ok["id"] == 9 and not ok["result"].get("isError") and ok["result"]["structuredContent"]["hits"]
    finally:
        proc.stdin.close()
        proc.terminate()
        proc.wait(timeout=15)


def test_streamable_http_answers_hostile_bodies_with_their_id_and_passes_sound_ones():
    from starlette.testclient import TestClient

    from indexes.mcp_wire import screened_http

    seen = []

    async def sdk_app(scope, receive, send):  # stands for the SDK's app: echoes the body it received
        body, more = b"", True
        while more:
            event = await receive()
            body += event.get("body", b"")
            more = event.get("more_body", False)
        seen.append(body)
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": body})

    client = TestClient(screened_http(sdk_app, "/mcp", 1 << 20))
    for line, code, id_ in HOSTILE:
        r = client.post("/mcp", content=line.encode("utf-8"))
        assert r.status_code == 400 and r.json()["error"]["code"] == code and r.json()["id"] == id_, r.text
    surrogate = CALL % (7, '{"name":"answer_retriever","arguments":{"query":"caf\\ud800"}}')
    r = client.post("/mcp", content=surrogate.encode("utf-8"))
    assert r.status_code == 400 and r.json()["id"] == 7 and "lone surrogate" in r.json()["error"]["message"]
    assert not seen
    sound = (CALL % (9, '{"name":"question_retriever","arguments":{"query":"capital","k":2}}')).encode("utf-8")
    assert client.post("/mcp", content=sound).content == sound and seen == [sound]
    big = b'{"jsonrpc":"2.0","id":1,"method":"x","params":{"a":"' + b"x" * (2 << 20) + b'"}}'
    assert client.post("/mcp", content=big).content == big  # over the limit: the SDK's to refuse, body whole
    assert client.get("/health").status_code == 200 and client.post("/other", content=b"zz").content == b"zz"
