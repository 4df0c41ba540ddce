"""Manifests whose kind the server does not serve: told, with file and line, not fatal.

A directory of manifests written for a real cluster often holds a kind fakeapi does not serve
(a CRD's objects before the CRD, a kind of another project). ``kubectl apply`` reports each such
object and applies the rest; so do ``fakeapi sandbox --load`` and
:meth:`~fakeapi.cluster.handle.ClusterHandle.apply_yaml`: each object left out is an
:class:`Unserved` naming where it is and kubectl's reason (``no matches for kind "X" in version
"v"``). With ``strict`` (``--strict``, ``apply_yaml(..., strict=True)``) any such object refuses
the whole load, before anything is applied (:class:`UnservedKindsError`); otherwise the rest is
applied and the objects left out are a warning (:class:`UnservedKindWarning`, which pytest shows
in its summary and ``-W error::fakeapi.cluster.UnservedKindWarning`` turns into a failure) or,
for the sandbox, lines on stderr.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from fakeapi.cluster.manifests import Manifest, ManifestError

__all__ = ["Unserved", "UnservedKindWarning", "UnservedKindsError", "describe_unserved"]


@dataclass(frozen=True, slots=True)
class Unserved:
    """An object that was not applied because the server serves no such kind."""

    where: str
    api_version: str
    kind: str
    name: str

    @classmethod
    def of(cls, manifest: Manifest) -> Unserved:
        meta = manifest.obj.get("metadata") or {}
        name = str(meta.get("name") or meta.get("generateName") or "")
        if meta.get("namespace"):
            name = f"{meta['namespace']}/{name}"
        return cls(manifest.where, str(manifest.obj.get("apiVersion")),
                   str(manifest.obj.get("kind")), name)

    def __str__(self) -> str:
        return (f'{self.where}: {self.kind} "{self.name}": no matches for kind "{self.kind}" '
                f'in version "{self.api_version}"')


class UnservedKindWarning(UserWarning):
    """Objects of manifests were left out: the server does not serve their kind."""


class UnservedKindsError(ManifestError):
    """A strict load met objects of a kind the server does not serve; nothing was applied."""


def describe_unserved(unserved: Sequence[Unserved], *, applied: bool) -> str:
    """A header line and one line per object left out."""
    count = len(unserved)
    objects = f"{count} object{'s' if count != 1 else ''}"
    outcome = "the rest was applied" if applied else "nothing was applied (strict)"
    head = f"{objects} not applied, the server does not serve {'their' if count != 1 else 'its'} "
    head += f"kind; {outcome}:"
    return "\n".join([head, *(f"  {entry}" for entry in unserved)])
