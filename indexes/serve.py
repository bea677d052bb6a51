"""HTTP service over a published base (FastAPI).

    python -m indexes.serve --base DIR [--host 127.0.0.1] [--port 8000] [--mode hybrid|dense|bm25]

    GET /questions?q=...&k=5   -> {"version", "query", "hits": [{"question", "qid", "score"}]}
    GET /answer?q=...          -> {"version", "query", "found", "answer", "viewpoints", "qid", "message",
                                   "time_sensitive", "logs_period", "withheld", "reliability",
                                   "reliability_parts", "agreeing_answers", "contradicted", ...}
    GET /health                -> {"status": "ok" | "degraded", "version", "questions"[, "problem"]}

Each request checks where ``DIR/latest`` points; when a new version has been
published, it is loaded (and verified) before answering, so a rebuild goes live
without a restart, and a version that fails verification is refused while the
previous one keeps serving (as it does when ``latest`` dangles or its manifest is gone: /health then says
"degraded" and why, until ``latest`` is sound again). ``q`` must be 1 to 2,000 characters of valid UTF-8
with a character other than white space, and ``k`` 1 to 100, else 422 (echoing at most 100 characters).
"""

from __future__ import annotations

import argparse
import sys
import threading
from pathlib import Path

from fastapi import Request  # at module level: FastAPI resolves the endpoints' (string) annotations here

from indexes.query import MAX_K, MAX_QUERY_CHARS


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
        self.last_error = ""
        self.current()

    def current(self):
        """The tools of the version to serve. A new version that fails verification is refused, and a
        ``latest`` that cannot be resolved (dangling, its manifest gone) is reported: either way the version
        already verified and in memory keeps serving; the report clears once ``latest`` is sound again."""
        from schemas.layout import resolve_version

        try:
            path = resolve_version(self.base_dir)
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

    def _load(self, path: Path) -> None:
        from indexes.retrievers import AnswerRetriever, QuestionRetriever

        try:
            qr = QuestionRetriever(path, mode=self.mode)
            ar = AnswerRetriever(path, threshold=self.threshold)
        except Exception as exc:  # a broken new version: keep serving the old one, and don't retry it
            self.last_error = f"newer version refused ({type(exc).__name__}: {exc})"
            self._refused = path
            if self._tools is None:
                raise
            return
        self._tools = (qr, ar, qr.base.version)
        self._path = path
        self.last_error = ""


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


def create_app(base_dir: str | Path, mode: str = "hybrid", threshold: float = 0.9):
    from fastapi import FastAPI, Query
    from fastapi.exceptions import RequestValidationError
    from fastapi.responses import JSONResponse

    live = LiveBase(base_dir, mode, threshold)
    app = FastAPI(title="qabase", description="QuestionRetriever and AnswerRetriever over a published QA base")

    @app.exception_handler(RequestValidationError)
    def invalid_request(_request, exc: RequestValidationError):
        detail = [{k: (_short(v) if k == "input" else v) for k, v in e.items() if k != "ctx"} for e in exc.errors()]
        return JSONResponse(status_code=422, content={"detail": detail})

    @app.get("/health")
    def health():
        qr, _, version = live.current()
        out = {"status": "degraded" if live.last_error else "ok", "version": version,
               "questions": len(qr.base.questions), "mode": mode}
        if live.last_error:
            out["problem"] = live.last_error
        return out

    @app.get("/questions")
    def questions(request: Request, q: str = Query(..., min_length=1, max_length=MAX_QUERY_CHARS),
                  k: int = Query(5, ge=1, le=MAX_K)):
        q = query_text(request, q)
        qr, _, version = live.current()
        return {"version": version, "query": q, "hits": [h._asdict() for h in qr.search(q, k)]}

    @app.get("/answer")
    def answer(request: Request, q: str = Query(..., min_length=1, max_length=MAX_QUERY_CHARS)):
        q = query_text(request, q)
        _, ar, version = live.current()
        return {"version": version, "query": q, **ar.get(q)._asdict()}

    return app


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m indexes.serve", description=__doc__.split("\n\n")[0])
    ap.add_argument("--base", required=True)
    ap.add_argument("--host", default="127.0.0.1")
    ap.add_argument("--port", type=int, default=8000)
    ap.add_argument("--mode", choices=("dense", "bm25", "hybrid"), default="hybrid")
    ap.add_argument("--threshold", type=float, default=0.9)
    args = ap.parse_args(argv)
    from schemas.errors import QabaseError
    from schemas.logs import setup_logging

    setup_logging(quiet=True)
    try:
        app = create_app(args.base, args.mode, args.threshold)
    except QabaseError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    import uvicorn

    uvicorn.run(app, host=args.host, port=args.port, log_level="warning")
    return 0


if __name__ == "__main__":
    sys.exit(main())
