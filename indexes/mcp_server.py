"""MCP server over a published base: QuestionRetriever and AnswerRetriever as tools for agents.

    python -m indexes.mcp_server --base DIR [--transport stdio|http] [--host 127.0.0.1] [--port 8001]
                                 [--mode hybrid|dense|bm25] [--threshold 0.9]
    python -m indexes.mcp_server --print-openai-tools      (the same tools for OpenAI-style function calling)

Tools (:mod:`indexes.agent_tools`, one definition for MCP and OpenAI): ``question_retriever(query, k=5)`` ->
``{"version", "query", "hits": [{"question", "qid", "score"}]}`` and ``answer_retriever(query)`` ->
``{"version", "query", "found", "answer", "viewpoints", "qid", "message", ...}``, the JSON of the HTTP
service's /questions and /answer, sent as structured content under output schemas (and as text). The bounds
are the HTTP service's: ``query`` 1 to 2,000 characters of valid UTF-8 with a character other than white
space, costing at most 128 tokens to embed, ``k`` an integer 1 to 100 (not "5", 5.0 or true); a bad argument is
a tool error (``isError``) that says what was wrong. A request that is not a sound JSON-RPC message (stdio: a line;
http: a POST body) gets a JSON-RPC error reply with its id (indexes.mcp_wire), never silence. When nothing valid
is found, ``message`` is AnswerRetriever's no-information message in the query's language.

Live reload as in the HTTP service (``indexes.serve.LiveBase``): each call checks where ``DIR/latest`` points
and loads (and verifies) a newly published version before answering; a version that fails verification is
refused and the one in memory keeps answering.

Transports: ``stdio`` (default: the agent starts this command and talks over its stdin/stdout; logs go to
stderr) or ``http``: streamable HTTP at ``http://HOST:PORT/mcp``, with ``GET /health`` as the HTTP service's.
A ``--base`` that cannot be served is one ``error:`` line and exit code 2, before any transport starts.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from contextlib import contextmanager
from pathlib import Path

DEFAULT_PORT = 8001  # beside qabase serve's 8000: both can run on one host
MCP_PATH = "/mcp"
INSTRUCTIONS = ("A QA base built from chatbot logs. To answer a user's question from it, call answer_retriever "
                "with the question; if found is false the base has no valid information (message says so): do "
                "not answer from it. A time-sensitive answer was true in the period its as_of names: say so "
                "when you use it. question_retriever lists the base questions related to a query.")


def create_server(base_dir: str | Path, mode: str = "hybrid", threshold: float = 0.9):
    """An ``mcp.server.MCPServer`` with the two tools over ``base_dir`` (loaded and verified now: a base that
    cannot be served raises here, a QabaseError)."""
    from mcp.server import MCPServer

    from indexes.agent_tools import RetrieverTools, sdk_tools
    from indexes.serve import LiveBase

    live = LiveBase(base_dir, mode, threshold)
    server = MCPServer("qabase", title="qabase QA base", instructions=INSTRUCTIONS,
                       tools=sdk_tools(RetrieverTools(live)), log_level="WARNING")
    _add_health_route(server, live)
    server.qabase_live = live  # the ready line names the version it serves
    return server


def _add_health_route(server, live) -> None:
    """``GET /health`` beside ``/mcp`` (the HTTP transport only): a reload happens in it too, so it runs on a
    worker thread, not on the event loop."""
    import anyio
    from starlette.responses import JSONResponse

    @server.custom_route("/health", methods=["GET"])
    async def _health(_request):
        return JSONResponse(await anyio.to_thread.run_sync(live.health))  # the HTTP service's /health


@contextmanager
def _stdout_to_stderr():
    """fd 1 pointed at stderr while the base loads: over stdio, fd 1 is the protocol's wire, and a library that
    prints while loading would corrupt it (the SDK diverts fd 1 the same way once it serves)."""
    sys.stdout.flush()
    saved = os.dup(1)
    os.dup2(2, 1)
    try:
        yield
    finally:
        sys.stdout.flush()
        os.dup2(saved, 1)
        os.close(saved)


def build_parser() -> argparse.ArgumentParser:
    from schemas.commandline import command_parser, summary

    ap = command_parser("mcp", summary(__doc__))
    ap.add_argument("--base", metavar="BASE_DIR",
                    help="a build's output folder (serves its latest version) or a version folder")
    ap.add_argument("--transport", choices=("stdio", "http"), default="stdio",
                    help="stdio, or streamable HTTP at http://HOST:PORT/mcp")
    ap.add_argument("--host", default="127.0.0.1", help="http: the address to listen on")
    ap.add_argument("--port", type=int, default=DEFAULT_PORT, help="http: the port")
    ap.add_argument("--mode", choices=("dense", "bm25", "hybrid"), default="hybrid",
                    help="question_retriever's retrieval (docs/measurements/retrieval.md)")
    ap.add_argument("--threshold", type=float, default=0.9,
                    help="answer_retriever: lowest cosine for a nearest match")
    ap.add_argument("--print-openai-tools", action="store_true",
                    help="print the tools' OpenAI function-calling schemas (JSON) and exit; needs no --base")
    return ap


def main(argv: list[str] | None = None) -> int:
    ap = build_parser()
    args = ap.parse_args(argv)
    if args.print_openai_tools:
        from indexes.agent_tools import openai_tools

        print(json.dumps(openai_tools(), ensure_ascii=False, indent=2))
        return 0
    if not args.base:
        ap.error("--base is required (or --print-openai-tools)")
    from schemas.commandline import check_port, listening_socket
    from schemas.errors import QabaseError
    from schemas.logs import setup_logging

    setup_logging(quiet=True)
    try:
        check_port(args.port)
        # over HTTP: bound before the base is loaded, so a taken port is one error at once
        sock = listening_socket(args.host, args.port) if args.transport != "stdio" else None
        if args.transport == "stdio":
            with _stdout_to_stderr():
                server = create_server(args.base, args.mode, args.threshold)
        else:
            server = create_server(args.base, args.mode, args.threshold)
    except QabaseError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return exc.exit_code
    if args.transport == "stdio":
        import anyio

        from indexes.mcp_wire import run_stdio

        anyio.run(run_stdio, server)  # every request answered, a malformed one with a JSON-RPC error
    else:
        import uvicorn
        from mcp.server.transport_security import DEFAULT_MAX_REQUEST_BODY_SIZE

        from indexes.mcp_wire import screened_http

        # the SDK's streamable-HTTP app (what server.run("streamable-http") serves), behind the JSON-RPC screen
        app = server.streamable_http_app(streamable_http_path=MCP_PATH, host=args.host)
        host = f"[{args.host}]" if ":" in args.host else args.host
        print(f"serving MCP tools over {server.qabase_live.version} of {args.base} ({args.mode}) on "
              f"http://{host}:{args.port}{MCP_PATH}", flush=True)
        uvicorn.Server(uvicorn.Config(screened_http(app, MCP_PATH, DEFAULT_MAX_REQUEST_BODY_SIZE),
                                      log_level="warning")).run(sockets=[sock])
    return 0


if __name__ == "__main__":
    sys.exit(main())
