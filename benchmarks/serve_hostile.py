"""What one request may cost the HTTP service (indexes/serve.py), and whether long queries starve typical ones.

    python benchmarks/serve_hostile.py --base DIR [--flood 20] [--code CHECKOUT] [--json out.json]

Starts ``python -m indexes.serve --base DIR`` on 127.0.0.1 (a free port; serve_load.py's helpers), then:

1. one request at a time, each three times (the median reported): /questions with a typical question, with
   2,000 characters of English (a sentence repeated), with 2,000 emoji, and with a question of about 100
   tokens (under indexes.query.MAX_QUERY_TOKENS): status and seconds;
2. starvation: ``--flood`` long queries in flight at once (each client sends its next as soon as the last is
   answered), first the 2,000-emoji ones, then the 100-token ones, while one client asks typical questions one
   after another: the typical questions' latency (median, max) under each flood.

Only 127.0.0.1 is contacted.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import quote

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from serve_load import ROOT, free_port, wait_healthy  # noqa: E402

TYPICAL = ["What is the capital of France?", "How do I reset my password?", "which is better tea or coffee",
           "How many moons does Neptune have?"]
LONG_TEXT = ("What is the capital of France and why " * 60)[:2000]
EMOJI = "\U0001F600" * 2000
AT_CAP = "please tell me in detail " + "what is the capital city of France and its history " * 9  # ~100 tokens


async def get(host: str, port: int, q: str) -> tuple[int, float]:
    reader, writer = await asyncio.open_connection(host, port)
    t0 = time.perf_counter()
    writer.write(f"GET /questions?q={quote(q)}&k=5 HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n"
                 .encode("ascii"))
    await writer.drain()
    status = int((await reader.readline()).split()[1])
    await reader.read()
    writer.close()
    return status, time.perf_counter() - t0


async def single(host: str, port: int) -> dict:
    out = {}
    for name, q in (("typical", TYPICAL[0]), ("english_2000_chars", LONG_TEXT), ("emoji_2000", EMOJI),
                    ("about_100_tokens", AT_CAP)):
        runs = [await get(host, port, q) for _ in range(3)]
        out[name] = {"status": runs[-1][0], "median_s": round(statistics.median(r[1] for r in runs), 3)}
    return out


async def flood(host: str, port: int, long_q: str, n: int, typical_n: int = 8) -> dict:
    done = asyncio.Event()
    statuses: list[int] = []

    async def flooder():
        while not done.is_set():
            statuses.append((await get(host, port, long_q))[0])

    tasks = [asyncio.create_task(flooder()) for _ in range(n)]
    await asyncio.sleep(1.0)  # the flood in flight first
    lat = []
    for i in range(typical_n):
        status, s = await get(host, port, TYPICAL[i % len(TYPICAL)] + f" ({i})")
        assert status == 200, status
        lat.append(s)
    done.set()
    await asyncio.gather(*tasks)
    return {"flood": n, "long_status": sorted(set(statuses)), "typical_median_s": round(statistics.median(lat), 3),
            "typical_max_s": round(max(lat), 3)}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--base", required=True)
    ap.add_argument("--flood", type=int, default=20, help="long queries in flight at once")
    ap.add_argument("--json", type=Path)
    ap.add_argument("--code", type=Path, default=ROOT,
                    help="the checkout whose indexes.serve runs (another commit's, to compare before and after)")
    args = ap.parse_args(argv)
    host, port = "127.0.0.1", free_port()
    env = {**os.environ, "OMP_WAIT_POLICY": os.environ.get("OMP_WAIT_POLICY", "PASSIVE"),
           "PYTHONPATH": str(args.code.resolve())}
    proc = subprocess.Popen([sys.executable, "-m", "indexes.serve", "--base", args.base, "--host", host,
                             "--port", str(port)], cwd=args.code, env=env)
    try:
        wait_healthy(f"http://{host}:{port}", proc)
        asyncio.run(get(host, port, TYPICAL[1]))  # warm up
        report = {"single": asyncio.run(single(host, port)),
                  "flood_emoji_2000": asyncio.run(flood(host, port, EMOJI, args.flood)),
                  "flood_about_100_tokens": asyncio.run(flood(host, port, AT_CAP, args.flood)),
                  "cpus": os.cpu_count()}
    finally:
        proc.terminate()
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            proc.kill()
    print(json.dumps(report, indent=2))
    if args.json:
        args.json.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
