"""HTTP service over a published base (FastAPI).

    python -m indexes.serve --base DIR [--host 127.0.0.1] [--port 8000] [--mode hybrid|dense|bm25]
                            [--max-batch 64] [--batch-wait-ms 2]

    GET /questions?q=...&k=5   -> {"version", "query", "hits": [{"question", "qid", "score"}]}
    GET /answer?q=...          -> {"version", "query", "found", "answer", "viewpoints", "qid", "message",
                                   "time_sensitive", "logs_period", "as_of", "withheld", "reliability",
                                   "reliability_parts", "agreeing_answers", "contradicted", ...}
    GET /health                -> {"status": "ok" | "degraded", "version", "questions"[, "problem"]}

Each request checks where ``DIR/latest`` points; when a new version has been
published, it is loaded (and verified) before answering, so a rebuild goes live
without a restart, and a version that fails verification is refused while the
previous one keeps serving (as it does when ``latest`` dangles or its manifest is gone: /health then says
"degraded" and why, until ``latest`` is sound again). ``q`` must be 1 to 2,000 characters of valid UTF-8
with a character other than white space that cost at most 128 tokens to embed (indexes.query.MAX_QUERY_TOKENS),
and ``k`` 1 to 100 written in digits, else 422 (echoing at most 100 characters).

Every body is a pydantic model (:mod:`indexes.responses`), so /openapi.json describes each field; /docs
(Swagger UI) and /redoc load their scripts from this server (the fastapi-offline package's files, under
/docs-assets), never from a CDN. Concurrent queries are answered in micro-batches (:mod:`indexes.batching`):
requests that arrive while a batch is being embedded join the next one, at most ``--max-batch`` per call;
queries of more than 32 tokens go to a lane of their own, two at a time, so that typical questions never wait
for a flood of long ones (docs/reference/http-mcp.md, "Bounds").
"""

from __future__ import annotations

import argparse
import sys
import threading
from pathlib import Path
from typing import Annotated

from fastapi import Query, Request  # at module level: FastAPI resolves the endpoints' (string) annotations here
from pydantic import BeforeValidator

from indexes.query import MAX_K, MAX_QUERY_CHARS, check_query_tokens


def _lease_for(version_dir: Path):
    """The reader lease of a version folder that sits in a base's ``versions/`` (a local base, or a store's local
    mirror: schemas.leases), so retention keeps it while it is served; None for a folder outside any base."""
    from schemas.layout import VERSIONS_DIR
    from schemas.leases import take_reader_lease

    if version_dir.parent.name != VERSIONS_DIR:
        return None
    return take_reader_lease(version_dir.parent.parent, version_dir.name)


class LiveBase:
    """The retrievers of the version ``latest`` points at, reloaded when it moves."""

    def __init__(self, base_dir: str | Path, mode: str = "hybrid", threshold: float = 0.9):
        self.base_dir = str(base_dir)  # a folder or a URL (resolve_version handles both)
        self.mode = mode
        self.threshold = threshold
        self._lock = threading.Lock()
        self._path: Path | None = None
        self._tools = None
        self._refused: Path | None = None  # a version that failed verification (versions never change)
        self._lease = None  # the reader lease of the version served
        self.last_error = ""
        self.current()

    @property
    def version(self) -> str:
        """The id of the version served (its folder's name)."""
        return self._path.name if self._path is not None else ""

    def current(self):
        """The tools of the version to serve. A new version that fails verification is refused, and a
        ``latest`` that cannot be resolved (dangling, its manifest gone) is reported: either way the version
        already verified and in memory keeps serving; the report clears once ``latest`` is sound again."""
        from schemas.layout import resolve_version

        try:
            # the real folder: a --base given as BASE/latest must follow latest, and the lease names the version
            path = resolve_version(self.base_dir).resolve()
        except Exception as exc:  # noqa: BLE001 - any failure to resolve: keep the verified version
            if self._tools is None:
                raise
            self.last_error = f"latest unusable ({type(exc).__name__}: {exc})"
            return self._tools
        if path == self._path:
            self.last_error = ""  # latest points at the served version again
            return self._tools
        if path == self._refused:
            return self._tools
        with self._lock:
            if path != self._path:
                self._load(path)
        return self._tools

    def health(self) -> dict:
        """What ``GET /health`` answers (the HTTP service and the MCP server): the version served, and why it
        is degraded."""
        qr, _, version = self.current()
        out = {"status": "degraded" if self.last_error else "ok", "version": version,
               "questions": len(qr.base.questions), "mode": self.mode}
        if self.last_error:
            out["problem"] = self.last_error
        return out

    def _load(self, path: Path) -> None:
        """Load and verify a version under its reader lease (schemas.leases: retention never deletes a version
        a service serves); the lease of the version served before is given back once the new one serves."""
        from indexes.loading import forget
        from indexes.retrievers import AnswerRetriever, QuestionRetriever
        lease = None
        try:
            lease = _lease_for(path)
            qr = QuestionRetriever(path, mode=self.mode)
            ar = AnswerRetriever(path, threshold=self.threshold)
        except Exception as exc:  # a broken new version: keep serving the old one, and don't retry it
            if lease is not None:
                lease.release()
            self.last_error = f"newer version refused ({type(exc).__name__}: {exc})"
            self._refused = path
            if self._tools is None:
                raise
            return
        previous, self._lease = self._lease, lease
        served_before, self._path = self._path, path
        self._tools = (qr, ar, qr.base.version)
        self.last_error = ""
        if previous is not None:
            previous.release()
        if served_before is not None:
            forget(served_before)  # its indexes and tables go once no request holds them


def _digits(value):
    """``k`` as the query string writes an integer: digits only ("5.0", "true", "+5" are refused, not coerced;
    at most 4 digits, so a 5,000-digit k is not parsed)."""
    if isinstance(value, str) and not (value.isascii() and value.isdigit() and len(value) <= 4):
        raise ValueError(f"k must be an integer of 1 to {MAX_K} written in digits")
    return value


# at module level: FastAPI resolves the endpoints' (string) annotations in this module's namespace
TopK = Annotated[int, BeforeValidator(_digits), Query(ge=1, le=MAX_K, description="How many base questions, 1 to 100.")]

ECHO_CHARS = 100  # a 422 names what was wrong, and echoes at most this much of the input


def query_text(request, q: str) -> str:
    """``q`` as sent: valid UTF-8 (a percent-encoded byte sequence that is not would reach us as U+FFFD)
    with a character other than white space. 422 otherwise."""
    from urllib.parse import unquote_to_bytes

    from fastapi import HTTPException

    for pair in request.scope.get("query_string", b"").split(b"&"):
        name, _, raw = pair.partition(b"=")
        if name == b"q":
            try:
                unquote_to_bytes(raw.replace(b"+", b" ")).decode("utf-8")
            except UnicodeDecodeError as exc:
                raise HTTPException(422, f"q is not valid UTF-8 (byte {exc.start} of the decoded query)") from None
    if not q.strip():
        raise HTTPException(422, "q must contain a character other than white space")
    return q


def _short(value):
    text = value if isinstance(value, str) else repr(value)
    return text if len(text) <= ECHO_CHARS else text[:ECHO_CHARS] + f"... ({len(text):,} characters)"


DOCS_ASSETS = "/docs-assets"  # Swagger UI and ReDoc, served from the fastapi-offline package: no CDN


def docs_assets_dir() -> Path:
    """The folder of Swagger UI's and ReDoc's files (swagger-ui-bundle.js, swagger-ui.css,
    redoc.standalone.js, favicon.png), shipped by the fastapi-offline package."""
    import fastapi_offline

    return Path(fastapi_offline.__file__).resolve().parent / "static"


def add_offline_docs(app) -> None:
    """/docs (Swagger UI) and /redoc from local files: both work without network access."""
    from fastapi.openapi.docs import get_redoc_html, get_swagger_ui_html, get_swagger_ui_oauth2_redirect_html
    from fastapi.staticfiles import StaticFiles

    app.mount(DOCS_ASSETS, StaticFiles(directory=docs_assets_dir()), name="docs-assets")

    @app.get("/docs", include_in_schema=False)
    def swagger_ui(request: Request):
        root = request.scope.get("root_path", "")
        return get_swagger_ui_html(
            openapi_url=root + app.openapi_url, title=app.title + " - Swagger UI",
            oauth2_redirect_url=root + app.swagger_ui_oauth2_redirect_url,
            swagger_js_url=f"{root}{DOCS_ASSETS}/swagger-ui-bundle.js",
            swagger_css_url=f"{root}{DOCS_ASSETS}/swagger-ui.css",
            swagger_favicon_url=f"{root}{DOCS_ASSETS}/favicon.png",
            swagger_ui_parameters={"validatorUrl": None})  # no badge fetched from validator.swagger.io

    @app.get(app.swagger_ui_oauth2_redirect_url, include_in_schema=False)
    def swagger_ui_redirect():
        return get_swagger_ui_oauth2_redirect_html()

    @app.get("/redoc", include_in_schema=False)
    def redoc(request: Request):
        root = request.scope.get("root_path", "")
        return get_redoc_html(openapi_url=root + app.openapi_url, title=app.title + " - ReDoc",
                              redoc_js_url=f"{root}{DOCS_ASSETS}/redoc.standalone.js",
                              redoc_favicon_url=f"{root}{DOCS_ASSETS}/favicon.png", with_google_fonts=False)


def create_app(base_dir: str | Path, mode: str = "hybrid", threshold: float = 0.9,
               max_batch: int | None = None, batch_wait_s: float | None = None):
    """The FastAPI app. Concurrent /questions and /answer requests are answered in micro-batches
    (:mod:`indexes.batching`: at most ``max_batch`` queries per retriever call, a lone request waiting at
    most ``batch_wait_s`` for companions)."""
    import asyncio

    from fastapi import FastAPI, Query
    from fastapi.exceptions import RequestValidationError
    from fastapi.responses import JSONResponse

    from indexes import batching
    from indexes.responses import AnswerResponse, ErrorResponse, HealthResponse, QuestionsResponse

    live = LiveBase(base_dir, mode, threshold)
    batched = batching.BatchedRetrieval(live.current,
                                        batching.MAX_BATCH if max_batch is None else max_batch,
                                        batching.MAX_WAIT_S if batch_wait_s is None else batch_wait_s)
    app = FastAPI(title="qabase", description="QuestionRetriever and AnswerRetriever over a published QA base",
                  docs_url=None, redoc_url=None)
    app.state.live = live
    app.state.batched = batched
    add_offline_docs(app)
    bad_query = {422: {"model": ErrorResponse, "description": "A parameter out of bounds or malformed (the "
                                                              "input echoed at most 100 characters)"}}

    async def query_tokens(q: str) -> int:
        """What embedding ``q`` costs in the served base (on a worker thread: it may load a new version);
        422 beyond MAX_QUERY_TOKENS."""
        from fastapi import HTTPException

        from schemas.errors import QabaseError

        try:
            return await asyncio.to_thread(lambda: check_query_tokens(live.current()[0].base, q))
        except QabaseError as exc:
            raise HTTPException(422, str(exc)) from None

    @app.exception_handler(RequestValidationError)
    def invalid_request(_request, exc: RequestValidationError):
        detail = [{k: (_short(v) if k == "input" else v) for k, v in e.items() if k != "ctx"} for e in exc.errors()]
        return JSONResponse(status_code=422, content={"detail": detail})

    @app.get("/health", response_model=HealthResponse, response_model_exclude_none=True)
    def health():
        """The version being served; "degraded" (with the problem) while ``latest`` cannot be used."""
        return live.health()

    @app.get("/questions", response_model=QuestionsResponse, responses=bad_query)
    async def questions(request: Request,
                        q: str = Query(..., min_length=1, max_length=MAX_QUERY_CHARS,
                                       description="The query: 1 to 2,000 characters, not only white space."),
                        k: TopK = 5):
        """The top-k base questions related to ``q`` (QuestionRetriever.search)."""
        q = query_text(request, q)
        tokens = await query_tokens(q)
        version, hits = await asyncio.wrap_future(batched.questions(q, k, tokens))
        return {"version": version, "query": q, "hits": [h._asdict() for h in hits]}

    @app.get("/answer", response_model=AnswerResponse, responses=bad_query)
    async def answer(request: Request,
                     q: str = Query(..., min_length=1, max_length=MAX_QUERY_CHARS,
                                    description="The question: 1 to 2,000 characters, not only white space.")):
        """The base's answer to ``q`` (AnswerRetriever.get), or found false and the no-information message."""
        q = query_text(request, q)
        tokens = await query_tokens(q)
        version, ans = await asyncio.wrap_future(batched.answer(q, tokens))
        return {"version": version, "query": q, **ans._asdict()}

    return app


def build_parser() -> argparse.ArgumentParser:
    from schemas.commandline import command_parser, summary

    ap = command_parser("serve", summary(__doc__))
    ap.add_argument("--base", required=True, metavar="BASE_DIR",
                    help="a build's output folder (serves its latest version, and the next once published) "
                         "or a version folder")
    ap.add_argument("--host", default="127.0.0.1", help="the address to listen on (0.0.0.0: every interface)")
    ap.add_argument("--port", type=int, default=8000, help="the port to listen on")
    ap.add_argument("--mode", choices=("dense", "bm25", "hybrid"), default="hybrid",
                    help="/questions: dense and BM25 fused, or either alone (docs/measurements/retrieval.md)")
    ap.add_argument("--threshold", type=float, default=0.9, help="/answer: lowest cosine for a nearest match")
    ap.add_argument("--max-batch", type=int, default=None, metavar="N",
                    help="most concurrent queries embedded in one call (default 64)")
    ap.add_argument("--batch-wait-ms", type=float, default=None, metavar="MS",
                    help="how long a lone query waits for others to batch with (default 2)")
    return ap


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    from schemas.commandline import check_port, listening_socket
    from schemas.errors import QabaseError
    from schemas.logs import setup_logging

    setup_logging(quiet=True)
    try:
        check_port(args.port)
        sock = listening_socket(args.host, args.port)  # a taken port fails now, not after loading the base
        app = create_app(args.base, args.mode, args.threshold, args.max_batch,
                         None if args.batch_wait_ms is None else args.batch_wait_ms / 1000)
    except QabaseError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return exc.exit_code
    import uvicorn

    host = f"[{args.host}]" if ":" in args.host else args.host
    print(f"serving {app.state.live.version} of {args.base} ({args.mode}) on http://{host}:{args.port} "
          f"(/questions, /answer, /health; docs at /docs)", flush=True)
    uvicorn.Server(uvicorn.Config(app, log_level="warning")).run(sockets=[sock])
    return 0


if __name__ == "__main__":
    sys.exit(main())
