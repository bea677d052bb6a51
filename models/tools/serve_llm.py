"""A small OpenAI-compatible completions server for a local Hugging Face causal LM directory.

    python -m models.tools.serve_llm --model DIR [--host 127.0.0.1] [--port 8000] [--max-new-tokens 256]

Endpoints: ``POST /v1/completions`` (``{"prompt": str | [str], "max_tokens": int}``; greedy
decoding, one batch per request), ``GET /v1/models``, ``GET /health``. It prints
``listening on http://HOST:PORT`` once ready (``--port 0`` picks a free port). It is
meant for tests and small deployments; serve a 13B model with vLLM or TGI, which
speak the same protocol, and point ``aggregation.backend`` at them.
"""

from __future__ import annotations

import argparse
import json
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


def make_handler(generator, lock: threading.Lock, default_max: int):
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, fmt, *args):  # quiet
            pass

        def _send(self, code: int, payload: dict) -> None:
            body = json.dumps(payload, ensure_ascii=False).encode("utf-8")
            self.send_response(code)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def do_GET(self):
            if self.path == "/health":
                self._send(200, {"status": "ok"})
            elif self.path == "/v1/models":
                self._send(200, {"object": "list", "data": [{"id": generator.model_id, "object": "model"}]})
            else:
                self._send(404, {"error": {"message": f"no route {self.path}"}})

        def do_POST(self):
            if self.path != "/v1/completions":
                self._send(404, {"error": {"message": f"no route {self.path}"}})
                return
            try:
                length = int(self.headers.get("Content-Length", "0"))
                req = json.loads(self.rfile.read(length).decode("utf-8"))
                prompts = req["prompt"]
                prompts = [prompts] if isinstance(prompts, str) else list(prompts)
                if not all(isinstance(p, str) for p in prompts):
                    raise ValueError("prompt must be a string or a list of strings")
                max_tokens = int(req.get("max_tokens") or default_max)
            except (ValueError, KeyError, TypeError, json.JSONDecodeError) as exc:
                self._send(400, {"error": {"message": f"bad request: {exc}"}})
                return
            with lock:  # one generation at a time: the model is not thread-safe
                generator._max_new = max_tokens
                texts = generator.generate(prompts)
            self._send(200, {"object": "text_completion", "model": generator.model_id,
                             "choices": [{"index": i, "text": t, "finish_reason": "length"}
                                         for i, t in enumerate(texts)]})

    return Handler


def build_parser() -> argparse.ArgumentParser:
    from schemas.commandline import command_parser, summary

    ap = command_parser("serve-llm", summary(__doc__))
    ap.add_argument("--model", required=True, metavar="DIR", help="a local Hugging Face causal LM directory")
    ap.add_argument("--host", default="127.0.0.1", help="the address to listen on")
    ap.add_argument("--port", type=int, default=8000, help="the port to listen on (0: a free one)")
    ap.add_argument("--max-new-tokens", type=int, default=256,
                    help="tokens generated per prompt when a request gives no max_tokens")
    ap.add_argument("--batch-size", type=int, default=8, help="prompts generated together")
    ap.add_argument("--device", choices=("auto", "cpu", "cuda"), default="auto",
                    help="where the model runs (auto: a CUDA GPU when torch sees one)")
    return ap


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    from models.aggregators.llm import HfGenerator
    from schemas.errors import QabaseError
    from schemas.logs import setup_logging

    setup_logging(quiet=True)
    try:
        generator = HfGenerator(args.model, max_new_tokens=args.max_new_tokens, batch_size=args.batch_size,
                                device=args.device)
    except QabaseError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    server = ThreadingHTTPServer((args.host, args.port), make_handler(generator, threading.Lock(),
                                                                      args.max_new_tokens))
    host, port = server.server_address[:2]
    print(f"listening on http://{host}:{port}", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
