"""Access reviews (authorization.k8s.io/v1) and SelfSubjectReview (authentication.k8s.io/v1).

They answer from the server's own authorizers, as upstream's review storage does: a
SubjectAccessReview (and a LocalSubjectAccessReview, about its own namespace) asks whether the
user, groups, uid and extra of its spec may do what its resource or non-resource attributes say;
a SelfSubjectAccessReview (``kubectl auth can-i``) asks it for the requester; a
SelfSubjectRulesReview (``kubectl auth can-i --list``) lists the requester's rules in a namespace;
a SelfSubjectReview (``kubectl auth whoami``) tells the requester who the server took it for,
impersonation applied. The answer carries ``allowed``, ``denied`` when an authorizer denied
outright, the authorizers' ``reason`` (``RBAC: allowed by ClusterRoleBinding ...``) and an
``evaluationError`` when they met one.

With authorization off (no ``--authorization-mode``) the server answers as kube-apiserver with
anonymous requests and ``AlwaysAllow`` would: every review allowed, every rule listed, the
requester ``system:anonymous`` in ``system:unauthenticated``. A trusted in-process client (one
without an identity while authorization is on) is the server's own loopback user,
``system:apiserver`` in ``system:masters``. The requests are validated with upstream's rules and
messages first.
"""

from __future__ import annotations

from typing import Any, ClassVar

from fakeapi import errors
from fakeapi.auth.attributes import Attributes
from fakeapi.auth.authorizer import AlwaysAllow, Answer, Decision, Rules, aggregate
from fakeapi.auth.user import (
    ALL_AUTHENTICATED,
    ALL_UNAUTHENTICATED,
    ANONYMOUS,
    ANONYMOUS_USER,
    PRIVILEGED_GROUP,
    UserInfo,
)
from fakeapi.objects import as_dict, as_list, text
from fakeapi.registry.strategy import Obj, Strategy, WriteContext
from fakeapi.selectors import SelectorError, parse_field_selector
from fakeapi.validation.field import FieldError, Path, invalid

__all__ = [
    "ANONYMOUS",
    "ANONYMOUS_GROUPS",
    "LOOPBACK_USER",
    "LocalSubjectAccessReviewStrategy",
    "SelfSubjectAccessReviewStrategy",
    "SelfSubjectReviewStrategy",
    "SelfSubjectRulesReviewStrategy",
    "SubjectAccessReviewStrategy",
]

#: who an unauthenticated request is, for an API server with anonymous requests enabled
ANONYMOUS_GROUPS = (ALL_UNAUTHENTICATED,)
#: the API server's own loopback client (upstream's ``system:apiserver``), which is what a
#: trusted in-process client without an identity is while authorization is on
LOOPBACK_USER = UserInfo("system:apiserver", groups=(PRIVILEGED_GROUP, ALL_AUTHENTICATED))
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


def _requester(ctx: WriteContext) -> UserInfo:
    """Who asks: the authenticated user, the loopback user, or anonymous with auth off."""
    if ctx.user is not None:
        return ctx.user
    return LOOPBACK_USER if ctx.authorizer is not None else ANONYMOUS_USER


def _field_selector(attributes: Obj) -> tuple[tuple[str, str, str], ...]:
    """The field selector of resource attributes (its raw form, or ``In`` requirements of one
    value, as equality terms); one that does not parse is left out."""
    selector = as_dict(attributes.get("fieldSelector"))
    raw = text(selector.get("rawSelector"))
    if raw:
        try:
            return parse_field_selector(raw).requirements
        except (SelectorError, ValueError):
            return ()
    terms = []
    for requirement in as_list(selector.get("requirements")):
        requirement = as_dict(requirement)
        values = as_list(requirement.get("values"))
        if requirement.get("operator") == "In" and len(values) == 1:
            terms.append((text(requirement.get("key")), "=", text(values[0])))
    return tuple(terms)


def _attributes(user: UserInfo, spec: Obj) -> Attributes:
    """Upstream's ``ResourceAttributesFrom`` / ``NonResourceAttributesFrom``."""
    resource = spec.get("resourceAttributes")
    if resource is not None:
        resource = as_dict(resource)
        return Attributes(
            user=user,
            verb=text(resource.get("verb")),
            api_group=text(resource.get("group")),
            api_version=text(resource.get("version")) or "*",
            resource=text(resource.get("resource")),
            subresource=text(resource.get("subresource")),
            namespace=text(resource.get("namespace")),
            name=text(resource.get("name")),
            field_selector=_field_selector(resource),
            label_selector=text(as_dict(resource.get("labelSelector")).get("rawSelector")),
        )
    path = as_dict(spec.get("nonResourceAttributes"))
    return Attributes(user=user, verb=text(path.get("verb")), resource_request=False,
                      path=text(path.get("path")))


def _status(answer: Answer) -> dict[str, Any]:
    status: dict[str, Any] = {"allowed": answer.decision is Decision.ALLOW}
    if answer.decision is Decision.DENY:
        status["denied"] = True
    if answer.reason:
        status["reason"] = answer.reason
    if answer.error:
        status["evaluationError"] = answer.error
    return status


def _answer(obj: Obj, ctx: WriteContext, user: UserInfo) -> Obj:
    if ctx.authorizer is None:
        return {**obj, "status": {"allowed": True}}
    attrs = _attributes(user, as_dict(obj.get("spec")))
    return {**obj, "status": _status(ctx.authorizer.authorize(attrs))}


def _subject(spec: Obj) -> UserInfo:
    """The user a SubjectAccessReview asks about, as its spec gives it (groups as they are)."""
    extra = {str(k): tuple(str(v) for v in as_list(values))
             for k, values in as_dict(spec.get("extra")).items()}
    return UserInfo(text(spec.get("user")), text(spec.get("uid")),
                    tuple(text(g) for g in as_list(spec.get("groups"))), extra)


class _Review(Strategy):
    create_only: ClassVar[bool] = True


class SubjectAccessReviewStrategy(_Review):
    """Can this user do that?"""

    def validate(self, obj: Obj, ctx: WriteContext) -> list[FieldError]:
        spec = as_dict(obj.get("spec"))
        return _union_errors(spec) + _subject_errors(spec)

    def answer(self, obj: Obj, ctx: WriteContext) -> Obj:
        return _answer(obj, ctx, _subject(as_dict(obj.get("spec"))))


class LocalSubjectAccessReviewStrategy(SubjectAccessReviewStrategy):
    """Can this user do that in this namespace? (A question about the review's namespace.)"""

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
    """Can I do that? (``kubectl auth can-i``)"""

    def validate(self, obj: Obj, ctx: WriteContext) -> list[FieldError]:
        return _union_errors(as_dict(obj.get("spec")))

    def answer(self, obj: Obj, ctx: WriteContext) -> Obj:
        return _answer(obj, ctx, _requester(ctx))


class SelfSubjectRulesReviewStrategy(_Review):
    """What can I do in a namespace? (``kubectl auth can-i --list``)"""

    def answer(self, obj: Obj, ctx: WriteContext) -> Obj:
        namespace = text(as_dict(obj.get("spec")).get("namespace"))
        if not namespace:
            raise errors.bad_request("no namespace on request")
        if ctx.authorizer is None:
            rules = AlwaysAllow().rules_for(ANONYMOUS_USER, namespace)
        else:
            rules = ctx.authorizer.rules_for(_requester(ctx), namespace)
        return {**obj, "status": _rules_status(rules)}


def _rules_status(rules: Rules) -> dict[str, Any]:
    status: dict[str, Any] = {
        "resourceRules": rules.resource_rules,
        "nonResourceRules": rules.non_resource_rules,
        "incomplete": rules.incomplete,
    }
    if rules.errors:
        status["evaluationError"] = aggregate(rules.errors)
    return status


class SelfSubjectReviewStrategy(_Review):
    """Who am I? (``kubectl auth whoami``)"""

    def answer(self, obj: Obj, ctx: WriteContext) -> Obj:
        user = _requester(ctx)
        info: dict[str, Any] = {"username": user.name}
        if user.uid:
            info["uid"] = user.uid
        if user.groups:
            info["groups"] = list(user.groups)
        if user.extra:
            info["extra"] = user.extra_lists()
        return {**obj, "status": {"userInfo": info}}
