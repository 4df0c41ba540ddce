"""What a write or a deletion through the generic store answers.

The types live apart from :mod:`fakeapi.registry.store` because a kind's subresource action (an
eviction, a binding) returns them too: the store calls those actions, and imports the kinds
through admission, so the kinds may not import the store back.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from fakeapi.registry.strategy import Obj

__all__ = ["DeleteResult", "WriteResult"]


@dataclass(slots=True)
class WriteResult:
    obj: Obj
    raw: bytes
    warnings: list[str] = field(default_factory=list)
    created: bool = False


@dataclass(slots=True)
class DeleteResult:
    obj: Obj
    raw: bytes
    #: the object is gone (False: deletion is pending on finalizers or a grace period)
    deleted: bool
