"""Access reviews (authorization.k8s.io/v1) and SelfSubjectReview (authentication.k8s.io/v1).

fakeapi authenticates nobody and authorizes everything (see docs/api.md): it answers as an API
server run with anonymous requests enabled and the ``AlwaysAllow`` authorizer would. Every
access review is allowed; the rules review lists ``*`` for every verb, group and resource and
every non-resource URL; the requester is ``system:anonymous`` in ``system:unauthenticated``.
The requests are validated with upstream's rules and messages first.
"""

from __future__ import annotations

from typing import Any, ClassVar

from fakeapi.objects import as_dict
from fakeapi.registry.strategy import Obj, Strategy, WriteContext
from fakeapi.validation.field import FieldError, Path, invalid

__all__ = [
    "ANONYMOUS",
    "ANONYMOUS_GROUPS",
    "LocalSubjectAccessReviewStrategy",
    "SelfSubjectAccessReviewStrategy",
    "SelfSubjectReviewStrategy",
    "SelfSubjectRulesReviewStrategy",
    "SubjectAccessReviewStrategy",
]

#: who an unauthenticated request is, for an API server with anonymous requests enabled
ANONYMOUS = "system:anonymous"
ANONYMOUS_GROUPS = ("system:unauthenticated",)
_ONE_OF = "exactly one of nonResourceAttributes or resourceAttributes must be specified"
_SPEC = Path("spec")


def _union_errors(spec: Obj) -> list[FieldError]:
    """Upstream's union rule of an access review's attributes."""
    resource, non_resource = spec.get("resourceAttributes"), spec.get("nonResourceAttributes")
    if (resource is None) == (non_resource is None):
        return [invalid(_SPEC, non_resource, _ONE_OF)]
    return []


def _subject_errors(spec: Obj) -> list[FieldError]:
    if not spec.get("user") and not spec.get("groups"):
        return [invalid(_SPEC.child("user"), spec.get("user") or "",
                        "at least one of user or group must be specified")]
    return []


def _allowed(obj: Obj) -> Obj:
    return {**obj, "status": {"allowed": True}}


class _Review(Strategy):
    create_only: ClassVar[bool] = True


class SubjectAccessReviewStrategy(_Review):
    """Can this user do that? Always yes."""

    def validate(self, obj: Obj, ctx: WriteContext) -> list[FieldError]:
        spec = as_dict(obj.get("spec"))
        return _union_errors(spec) + _subject_errors(spec)

    def answer(self, obj: Obj, ctx: WriteContext) -> Obj:
        return _allowed(obj)


class LocalSubjectAccessReviewStrategy(SubjectAccessReviewStrategy):
    """Can this user do that in this namespace? Always yes, for a question about it."""

    def validate(self, obj: Obj, ctx: WriteContext) -> list[FieldError]:
        errors = super().validate(obj, ctx)
        spec = as_dict(obj.get("spec"))
        namespace = as_dict(obj.get("metadata")).get("namespace") or ""
        resource = spec.get("resourceAttributes")
        if resource is not None and (as_dict(resource).get("namespace") or "") != namespace:
            errors.append(invalid(Path("spec.resourceAttributes.namespace"),
                                  as_dict(resource).get("namespace") or "",
                                  "must match metadata.namespace"))
        if spec.get("nonResourceAttributes") is not None:
            errors.append(invalid(Path("spec.nonResourceAttributes"),
                                  spec["nonResourceAttributes"],
                                  "disallowed on this kind of request"))
        return errors


class SelfSubjectAccessReviewStrategy(_Review):
    """Can I do that? (``kubectl auth can-i``) Always yes."""

    def validate(self, obj: Obj, ctx: WriteContext) -> list[FieldError]:
        return _union_errors(as_dict(obj.get("spec")))

    def answer(self, obj: Obj, ctx: WriteContext) -> Obj:
        return _allowed(obj)


class SelfSubjectRulesReviewStrategy(_Review):
    """What can I do? (``kubectl auth can-i --list``) Everything."""

    def answer(self, obj: Obj, ctx: WriteContext) -> Obj:
        status: dict[str, Any] = {
            "resourceRules": [{"verbs": ["*"], "apiGroups": ["*"], "resources": ["*"]}],
            "nonResourceRules": [{"verbs": ["*"], "nonResourceURLs": ["*"]}],
            "incomplete": False,
        }
        return {**obj, "status": status}


class SelfSubjectReviewStrategy(_Review):
    """Who am I? (``kubectl auth whoami``) Anonymous."""

    def answer(self, obj: Obj, ctx: WriteContext) -> Obj:
        return {**obj, "status": {"userInfo": {"username": ANONYMOUS,
                                               "groups": list(ANONYMOUS_GROUPS)}}}
