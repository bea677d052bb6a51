"""Tamper evidence for a published version: an HMAC-SHA256 of its manifest, keyed from the environment.

A manifest's sha256 per file catches accidents (a truncated copy, a flipped bit, a file from another version):
anyone who can write the files can also recompute the checksums. With ``QABASE_MANIFEST_KEY`` set, a publish
signs the manifest (``"signature": {"algorithm": "hmac-sha256", "value": hex}``, over the manifest's canonical
JSON without that field) and loading refuses a manifest that is unsigned or whose signature does not match.
Since the manifest holds every file's sha256, the signature vouches for every file the readers open. What it
stops: someone who can write the base's files but cannot read the key. What it does not: someone who holds the
key, or who can run code where the key is (docs/reference/outputs.md, "Tamper evidence").
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os

from schemas.errors import BaseIntegrityError, ConfigError

KEY_ENV = "QABASE_MANIFEST_KEY"
SIGNATURE = "signature"  # the manifest's field holding the signature
ALGORITHM = "hmac-sha256"
MIN_KEY_BYTES = 16  # a shorter key is guessable; refused rather than giving a false sense of safety


def manifest_key() -> bytes | None:
    """The signing key from ``$QABASE_MANIFEST_KEY`` (its UTF-8 bytes), or None when unset or empty."""
    value = os.environ.get(KEY_ENV, "")
    if not value:
        return None
    key = value.encode("utf-8", "surrogateescape")
    if len(key) < MIN_KEY_BYTES:
        raise ConfigError(f"{KEY_ENV}: the key is {len(key)} bytes; use at least {MIN_KEY_BYTES} "
                          "(e.g. `openssl rand -hex 32`)")
    return key


def canonical(manifest: dict) -> bytes:
    """The bytes signed: the manifest without its signature, keys sorted, ASCII only, no spaces (the same
    bytes whatever indentation or key order the file was written with)."""
    body = {k: v for k, v in manifest.items() if k != SIGNATURE}
    return json.dumps(body, sort_keys=True, ensure_ascii=True, separators=(",", ":")).encode("ascii")


def _digest(manifest: dict, key: bytes) -> str:
    return hmac.new(key, canonical(manifest), hashlib.sha256).hexdigest()


def sign(manifest: dict, key: bytes | None = None) -> dict:
    """``manifest`` with its signature when a key is set (given, or from the environment); unchanged else."""
    key = key if key is not None else manifest_key()
    if key is None:
        return manifest
    return {**{k: v for k, v in manifest.items() if k != SIGNATURE},
            SIGNATURE: {"algorithm": ALGORITHM, "value": _digest(manifest, key)}}


def check(manifest: dict, where: str, key: bytes | None = None) -> None:
    """Refuse (BaseIntegrityError) a manifest that is unsigned or wrongly signed while a key is set (given, or
    from the environment); nothing to check without a key."""
    key = key if key is not None else manifest_key()
    if key is None:
        return
    sig = manifest.get(SIGNATURE)
    if not isinstance(sig, dict) or sig.get("algorithm") != ALGORITHM or not isinstance(sig.get("value"), str):
        raise BaseIntegrityError(f"base: {where} is not signed, but {KEY_ENV} is set: refusing to serve it "
                                 "(publish it again with the key set, or unset the key)")
    if not hmac.compare_digest(sig["value"], _digest(manifest, key)):
        raise BaseIntegrityError(f"base: the signature of {where} does not match {KEY_ENV} (the manifest was "
                                 "changed after it was signed, or signed with another key): refusing to serve it")
