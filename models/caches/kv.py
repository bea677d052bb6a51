"""A key -> value table in one SQLite file: the storage under every build cache.

Safe for the DirectRunner's worker processes on one machine (SQLite locks, 30 s busy
timeout; one connection per thread). On a cluster each worker sees its own local file
unless the cache lives on a shared mount: results stay correct, only the hit rate changes.
"""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path


class SqliteKV:
    def __init__(self, path: str | Path, table: str, value_column: str = "value", value_type: str = "BLOB"):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._table, self._column = table, value_column
        self._local = threading.local()
        with self._conn() as conn:
            conn.execute(f"CREATE TABLE IF NOT EXISTS {table} (key TEXT PRIMARY KEY, {value_column} {value_type} "
                         "NOT NULL)")

    def _conn(self) -> sqlite3.Connection:
        conn = getattr(self._local, "conn", None)
        if conn is None:
            conn = sqlite3.connect(str(self.path), timeout=30.0)
            self._local.conn = conn
        return conn

    def get_many(self, keys: list[str]) -> dict:
        out = {}
        conn = self._conn()
        for start in range(0, len(keys), 500):
            chunk = keys[start:start + 500]
            marks = ",".join("?" * len(chunk))
            out.update(conn.execute(f"SELECT key, {self._column} FROM {self._table} WHERE key IN ({marks})", chunk))
        return out

    def put_many(self, items: dict) -> None:
        if not items:
            return
        with self._conn() as conn:
            conn.executemany(f"INSERT OR REPLACE INTO {self._table} (key, {self._column}) VALUES (?, ?)",
                             list(items.items()))


def read_through(kv: SqliteKV, keys: list[str], compute, dump, load) -> tuple[list, int, int]:
    """The values of ``keys`` in order: those ``kv`` holds, ``load``-ed; the others computed once per distinct key
    (``compute`` gets the positions in ``keys`` to compute, the first of each distinct key's) and stored
    ``dump``-ed. Returns (values, distinct keys computed, positions filled by computing)."""
    found = kv.get_many(sorted(set(keys)))
    todo: dict[str, list[int]] = {}
    for i, k in enumerate(keys):
        if k not in found:
            todo.setdefault(k, []).append(i)
    out: list = [None] * len(keys)
    if todo:
        fresh = compute([idx[0] for idx in todo.values()])
        for idx, value in zip(todo.values(), fresh):
            for i in idx:
                out[i] = value
        kv.put_many({k: dump(value) for k, value in zip(todo, fresh)})
    for i, k in enumerate(keys):
        if k in found:
            out[i] = load(found[k])
    return out, len(todo), sum(len(idx) for idx in todo.values())
