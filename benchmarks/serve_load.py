"""Load test of the HTTP service (indexes/serve.py): latency and throughput under many concurrent clients.

    python benchmarks/serve_load.py --base DIR [--clients 200] [--requests 2000] [--warmup 100]
                                    [--serve-arg=--max-batch=64 ...] [--json out.json]
    python benchmarks/serve_load.py --base DIR --url http://127.0.0.1:8000 [--server-pid PID]  # already running

Starts ``python -m indexes.serve --base DIR`` on 127.0.0.1 (a free port; ``--serve-arg`` passes options
on), waits for /health, then ``--clients`` keep-alive connections send ``--requests`` GET requests in all,
each client its next request as soon as its last one is answered (closed loop), alternating /questions
(k=5) and /answer, each query a base question with the request's number ("... (17)"; ``--repeated``: the
base questions as they are), for /answer reworded ("... please" / "请问...") so that no exact key matches
and each one is embedded. It stops by itself after the last request, and
the server it started with it. Reports, per endpoint and overall: requests, non-200 replies, latency p50 /
p95 / p99 / mean (seconds, from sending the request to the whole body) and throughput (requests / wall
seconds), and the server's CPU time per request (``--server-pid`` with ``--url``): on a machine shared with
other work, wall-clock figures move with their load, CPU time much less. Only 127.0.0.1 / localhost is
ever contacted.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from urllib.parse import quote, urlsplit

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))
LOCAL = ("127.0.0.1", "localhost")


def base_questions(base: str) -> list[str]:
    import pyarrow.parquet as pq

    from schemas.layout import QA_FILE, resolve_version

    return pq.read_table(resolve_version(base) / QA_FILE, columns=["question"]).column("question").to_pylist()


def request_paths(questions: list[str], n: int, repeated: bool = False, start: int = 0) -> list[tuple[str, str]]:
    """(endpoint, path) for ``n`` requests: /questions and /answer in turn, each query distinct (a base
    question and the request's number) unless ``repeated`` (the base questions as they are, over again)."""
    out = []
    for i in range(start, start + n):
        q = questions[(i // 2) % len(questions)]
        if not repeated:
            q = f"{q} ({i})" if q.isascii() else f"{q}（{i}）"
        if i % 2 == 0:
            out.append(("/questions", f"/questions?q={quote(q)}&k=5"))
        else:
            reworded = f"{q.rstrip('?？')} please" if q.isascii() else f"请问{q}"
            out.append(("/answer", f"/answer?q={quote(reworded)}"))
    return out


async def _client(host: str, port: int, paths: list, cursor: list, out: list) -> None:
    reader = writer = None
    try:
        while True:
            i = cursor[0]
            if i >= len(paths):
                return
            cursor[0] += 1
            endpoint, path = paths[i]
            if writer is None:
                reader, writer = await asyncio.open_connection(host, port)
            t0 = time.perf_counter()
            writer.write(f"GET {path} HTTP/1.1\r\nHost: {host}:{port}\r\n\r\n".encode("ascii"))
            await writer.drain()
            status = int((await reader.readline()).split()[1])
            length, close = 0, False
            while (line := await reader.readline()) not in (b"\r\n", b""):
                name, _, value = line.decode("latin-1").partition(":")
                if name.lower() == "content-length":
                    length = int(value)
                elif name.lower() == "connection" and "close" in value.lower():
                    close = True
            await reader.readexactly(length)
            out.append((endpoint, status, time.perf_counter() - t0))
            if close:
                writer.close()
                reader = writer = None
    finally:
        if writer is not None:
            writer.close()


async def _run(host: str, port: int, paths: list, clients: int) -> tuple[list, float]:
    out: list = []
    cursor = [0]
    t0 = time.perf_counter()
    await asyncio.gather(*(_client(host, port, paths, cursor, out) for _ in range(clients)))
    return out, time.perf_counter() - t0


def percentile(values: list[float], p: float) -> float:
    v = sorted(values)
    return v[min(len(v) - 1, max(0, round(p / 100 * len(v) + 0.5) - 1))] if v else float("nan")


def summary(results: list, wall: float) -> dict:
    out = {}
    for name in ("/questions", "/answer", "all"):
        rows = [r for r in results if name in ("all", r[0])]
        lat = [r[2] for r in rows]
        out[name] = {"requests": len(rows), "non_200": sum(r[1] != 200 for r in rows),
                     "p50_s": round(percentile(lat, 50), 4), "p95_s": round(percentile(lat, 95), 4),
                     "p99_s": round(percentile(lat, 99), 4), "mean_s": round(sum(lat) / max(len(lat), 1), 4),
                     "throughput_rps": round(len(rows) / wall, 1)}
    return out


def cpu_seconds(pid: int | None) -> float | None:
    """CPU time (user + system, all threads) process ``pid`` has used so far; None where unknown (not Linux)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, TypeError):
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_healthy(url: str, proc: subprocess.Popen | None, timeout: float = 600) -> dict:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc is not None and proc.poll() is not None:
            raise SystemExit(f"error: the server exited with code {proc.returncode}")
        try:
            with urllib.request.urlopen(url + "/health", timeout=5) as r:  # noqa: S310 - 127.0.0.1 only
                return json.loads(r.read())
        except OSError:
            time.sleep(0.5)
    raise SystemExit(f"error: {url}/health did not answer in {timeout:.0f} s")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--base", required=True, help="the published base to serve and to take queries from")
    ap.add_argument("--url", help="a server already running on 127.0.0.1 (default: start one)")
    ap.add_argument("--clients", type=int, default=200)
    ap.add_argument("--requests", type=int, default=2000)
    ap.add_argument("--warmup", type=int, default=100, help="requests sent first and not counted")
    ap.add_argument("--repeated", action="store_true",
                    help="ask the base questions over again (default: every query distinct)")
    ap.add_argument("--serve-arg", action="append", default=[], help="an option for indexes.serve (repeat)")
    ap.add_argument("--server-pid", type=int, help="with --url: the server's process id, to report its CPU time")
    ap.add_argument("--json", type=Path, help="also write the results here")
    args = ap.parse_args(argv)
    proc = None
    if args.url:
        url = args.url.rstrip("/")
        parts = urlsplit(url)
        if parts.scheme != "http" or parts.hostname not in LOCAL:
            raise SystemExit("error: --url must be http://127.0.0.1:PORT (this load test stays on this machine)")
        host, port = "127.0.0.1", parts.port or 80
    else:
        host, port = "127.0.0.1", free_port()
        url = f"http://{host}:{port}"
        env = {**os.environ, "OMP_WAIT_POLICY": os.environ.get("OMP_WAIT_POLICY", "PASSIVE")}
        proc = subprocess.Popen([sys.executable, "-m", "indexes.serve", "--base", args.base, "--host", host,
                                 "--port", str(port), *args.serve_arg], cwd=ROOT, env=env)
    try:
        health = wait_healthy(url, proc)
        questions = base_questions(args.base)
        if args.warmup:
            asyncio.run(_run(host, port, request_paths(questions, args.warmup, args.repeated, args.requests),
                             min(args.clients, args.warmup)))
        paths = request_paths(questions, args.requests, args.repeated)
        pid = proc.pid if proc is not None else args.server_pid
        cpu0 = cpu_seconds(pid)
        results, wall = asyncio.run(_run(host, port, paths, args.clients))
        cpu1 = cpu_seconds(pid)
    finally:
        if proc is not None:
            proc.terminate()
            try:
                proc.wait(30)
            except subprocess.TimeoutExpired:
                proc.kill()
    report = {"version": health.get("version"), "clients": args.clients, "requests": args.requests,
              "repeated": args.repeated,
              "wall_s": round(wall, 2), "cpus": os.cpu_count(), "serve_args": args.serve_arg,
              "server_cpu_ms_per_request": None if cpu0 is None or cpu1 is None else
              round(1000 * (cpu1 - cpu0) / args.requests, 1), **summary(results, wall)}
    cpu = report["server_cpu_ms_per_request"]
    print(f"{args.requests} requests, {args.clients} clients, {wall:.1f} s wall ({os.cpu_count()} CPUs)"
          + ("" if cpu is None else f"; server CPU {cpu} ms per request"))
    print(f"{'endpoint':<12}{'requests':>9}{'non-200':>9}{'p50 s':>9}{'p95 s':>9}{'p99 s':>9}{'req/s':>9}")
    for name in ("/questions", "/answer", "all"):
        r = report[name]
        print(f"{name:<12}{r['requests']:>9}{r['non_200']:>9}{r['p50_s']:>9.3f}{r['p95_s']:>9.3f}"
              f"{r['p99_s']:>9.3f}{r['throughput_rps']:>9.1f}")
    if args.json:
        args.json.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    return 0 if report["all"]["non_200"] == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
