"""Names made from a pod template: the ``pod-template-hash`` and controller revision names.

Upstream's ``controller.ComputeHash`` hashes a pod template (FNV-1a, 32 bits; a collision count,
when there is one, is hashed after it) and writes the number through ``rand.SafeEncodeString``,
which maps each digit to a consonant or a digit that cannot spell words (``5d8f7c9b6``). The
Deployment controller names its ReplicaSets ``<deployment>-<hash>`` and labels their pods with
it; StatefulSets and DaemonSets name their ControllerRevisions the same way. Upstream hashes the
Go struct; fakeapi hashes the template's JSON with sorted keys, so the hash is stable across
processes and equal for equal templates, though not the very string upstream would print.

Two templates are the same rollout revision when they are equal but for the
``pod-template-hash`` label (``EqualIgnoreHash``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import orjson

__all__ = ["POD_TEMPLATE_HASH_LABEL", "equal_ignore_hash", "safe_encode", "template_hash"]

POD_TEMPLATE_HASH_LABEL = "pod-template-hash"
_ALPHANUMS = "bcdfghjklmnpqrstvwxz2456789"
_FNV_OFFSET = 0x811C9DC5
_FNV_PRIME = 0x01000193


def _fnv1a(data: bytes, value: int = _FNV_OFFSET) -> int:
    for byte in data:
        value = ((value ^ byte) * _FNV_PRIME) & 0xFFFFFFFF
    return value


def safe_encode(text: str) -> str:
    """``rand.SafeEncodeString``: each byte mapped into an alphabet without vowels."""
    return "".join(_ALPHANUMS[b % len(_ALPHANUMS)] for b in text.encode())


def template_hash(template: Any, collision_count: int | None = None) -> str:
    """``ComputeHash``: the safe-encoded FNV-1a hash of ``template`` (and the collision count)."""
    value = _fnv1a(orjson.dumps(template, option=orjson.OPT_SORT_KEYS))
    if collision_count is not None:
        value = _fnv1a((collision_count & 0xFFFFFFFF).to_bytes(4, "little"), value)
    return safe_encode(str(value))


def _without_hash(template: Mapping[str, Any]) -> dict[str, Any]:
    meta = dict(template.get("metadata") or {})
    labels = {k: v for k, v in (meta.get("labels") or {}).items() if k != POD_TEMPLATE_HASH_LABEL}
    if labels:
        meta["labels"] = labels
    else:
        meta.pop("labels", None)
    out = dict(template)
    if meta:
        out["metadata"] = meta
    else:
        out.pop("metadata", None)
    return out


def equal_ignore_hash(first: Mapping[str, Any], second: Mapping[str, Any]) -> bool:
    """``EqualIgnoreHash``: equal templates but for the ``pod-template-hash`` label."""
    return _without_hash(first) == _without_hash(second)
