"""HTTP service over a published base (FastAPI).

    python -m indexes.serve --base DIR [--host 127.0.0.1] [--port 8000] [--mode hybrid|dense|bm25]

    GET /questions?q=...&k=5   -> {"version", "query", "hits": [{"question", "qid", "score"}]}
    GET /answer?q=...          -> {"version", "query", "found", "answer", "viewpoints", "qid", "message",
                                   "time_sensitive", "logs_period", "withheld", "reliability",
                                   "reliability_parts", "agreeing_answers", "contradicted", ...}
    GET /health                -> {"status": "ok", "version", "questions"}

Each request checks where ``DIR/latest`` points; when a new version has been
published, it is loaded (and verified) before answering, so a rebuild goes live
without a restart, and a version that fails verification is refused while the
previous one keeps serving. ``q`` must be 1 to 2,000 characters and ``k`` 1 to 100,
else 422.
"""

from __future__ import annotations

import argparse
import sys
import threading
from pathlib import Path

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
        self.last_error = ""
        self.current()

    def current(self):
        from indexes.retrievers import AnswerRetriever, QuestionRetriever
        from schemas.layout import resolve_version

        path = resolve_version(self.base_dir)
        if path == self._path:
            return self._tools
        with self._lock:
            if path != self._path:
                try:
                    qr = QuestionRetriever(path, mode=self.mode)
                    ar = AnswerRetriever(path, threshold=self.threshold)
                except Exception as exc:  # a broken new version: keep serving the old one
                    self.last_error = f"{type(exc).__name__}: {exc}"
                    if self._tools is None:
                        raise
                    return self._tools
                self._tools = (qr, ar, qr.base.version)
                self._path = path
                self.last_error = ""
        return self._tools


def create_app(base_dir: str | Path, mode: str = "hybrid", threshold: float = 0.9):
    from fastapi import FastAPI, Query

    live = LiveBase(base_dir, mode, threshold)
    app = FastAPI(title="qabase", description="QuestionRetriever and AnswerRetriever over a published QA base")

    @app.get("/health")
    def health():
        qr, _, version = live.current()
        out = {"status": "ok", "version": version, "questions": len(qr.base.questions), "mode": mode}
        if live.last_error:
            out["newer_version_refused"] = live.last_error
        return out

    @app.get("/questions")
    def questions(q: str = Query(..., min_length=1, max_length=MAX_QUERY_CHARS),
                  k: int = Query(5, ge=1, le=MAX_K)):
        qr, _, version = live.current()
        return {"version": version, "query": q, "hits": [h._asdict() for h in qr.search(q, k)]}

    @app.get("/answer")
    def answer(q: str = Query(..., min_length=1, max_length=MAX_QUERY_CHARS)):
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
