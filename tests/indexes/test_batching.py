"""MicroBatcher (indexes/batching.py): concurrent items run as batches, results back to their callers."""

import threading
import time

import pytest

from indexes.batching import MicroBatcher


def test_items_from_many_threads_come_back_to_their_callers_in_bounded_batches():
    sizes = []

    def double(items):
        sizes.append(len(items))
        time.sleep(0.01)  # while a batch runs, the others queue up and join the next one
        return [2 * x for x in items]

    b = MicroBatcher(double, max_batch=8, max_wait_s=0.001)
    results = {}

    def call(x):
        results[x] = b(x, timeout=30)

    threads = [threading.Thread(target=call, args=(x,)) for x in range(60)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results == {x: 2 * x for x in range(60)}
    assert sum(sizes) == 60 and max(sizes) <= 8 and len(sizes) < 60  # batched, never past max_batch
    assert (b.batches, b.items) == (len(sizes), 60)


def test_a_lone_item_waits_for_companions_then_runs_alone():
    sizes = []
    b = MicroBatcher(lambda items: sizes.append(len(items)) or items, max_batch=4, max_wait_s=0.5)
    f1, f2 = b.submit("a"), b.submit("b")  # the second arrives within the first one's wait
    assert (f1.result(5), f2.result(5)) == ("a", "b") and sizes == [2]
    b = MicroBatcher(lambda items: items, max_wait_s=0)
    assert b("x", timeout=5) == "x" and b.batches == 1


def test_a_failing_item_fails_only_its_caller():
    gate, started = threading.Event(), threading.Event()

    def fn(items):
        if "wait" in items:
            started.set()
            gate.wait(5)
        if "bad" in items:
            raise ValueError("bad item")
        return [x.upper() for x in items]

    b = MicroBatcher(fn, max_batch=16)
    first = b.submit("wait")
    assert started.wait(5)
    futs = [b.submit(x) for x in ("a", "bad", "c")]  # queued behind the first: one batch
    gate.set()
    assert first.result(5) == "WAIT"
    assert futs[0].result(5) == "A" and futs[2].result(5) == "C"
    with pytest.raises(ValueError, match="bad item"):
        futs[1].result(5)


def test_a_cancelled_item_is_not_run_and_the_worker_exits_when_idle_then_restarts():
    gate, started, ran = threading.Event(), threading.Event(), []

    def fn(items):
        ran.extend(items)
        if "wait" in items:
            started.set()
            gate.wait(5)
        return items

    b = MicroBatcher(fn, idle_exit_s=0.05)
    first = b.submit("wait")
    assert started.wait(5)
    gone = b.submit("gone")
    assert gone.cancel()  # its caller left (a closed connection) before its batch ran
    kept = b.submit("kept")
    gate.set()
    assert first.result(5) == "wait" and kept.result(5) == "kept" and "gone" not in ran
    deadline = time.monotonic() + 5
    while b._thread is not None and time.monotonic() < deadline:
        time.sleep(0.01)
    assert b._thread is None  # no thread lingers without work
    assert b("again", timeout=5) == "again"


def test_bounds_are_checked():
    with pytest.raises(ValueError):
        MicroBatcher(lambda items: items, max_batch=0)
    with pytest.raises(ValueError):
        MicroBatcher(lambda items: items, max_wait_s=-1)
