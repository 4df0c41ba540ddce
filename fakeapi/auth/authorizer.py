"""The authorizer chain of ``--authorization-mode``, evaluated in order as kube-apiserver does.

Each authorizer answers a request with a :class:`Decision` — allow, deny, or no opinion — a
reason and possibly an evaluation error. The chain (:class:`AuthorizerChain`, upstream's union
authorizer) asks them in order: the first allow or deny ends it; when all have no opinion the
request is refused, and the reasons they gave are joined with newlines. kube-apiserver always puts
one authorizer before the configured modes: members of ``system:masters`` may do anything
(:class:`PrivilegedGroups`).

The same chain answers rules reviews (``kubectl auth can-i --list``): every authorizer that can
list a user's rules adds them (:meth:`AuthorizerChain.rules_for`, upstream's union rule
resolver); one that cannot says the list is incomplete.

The modes are ``AlwaysAllow`` (:class:`AlwaysAllow`), ``RBAC`` (:mod:`fakeapi.auth.rbac`) and
``Node`` (:mod:`fakeapi.auth.node`); :func:`parse_modes` checks a ``--authorization-mode``
value with upstream's messages.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from fakeapi.auth.attributes import Attributes
from fakeapi.auth.user import PRIVILEGED_GROUP, UserInfo

__all__ = [
    "ALWAYS_ALLOW",
    "AlwaysAllow",
    "Answer",
    "Authorizer",
    "AuthorizerChain",
    "Decision",
    "MODES",
    "NODE",
    "PrivilegedGroups",
    "RBAC",
    "Rules",
    "aggregate",
    "parse_modes",
]

ALWAYS_ALLOW = "AlwaysAllow"
RBAC = "RBAC"
NODE = "Node"
#: the modes fakeapi serves (upstream also has AlwaysDeny, ABAC and Webhook)
MODES = (ALWAYS_ALLOW, RBAC, NODE)


class Decision(enum.Enum):
    DENY = "Deny"
    ALLOW = "Allow"
    NO_OPINION = "NoOpinion"


@dataclass(frozen=True, slots=True)
class Answer:
    """An authorizer's decision, why (possibly ""), and an evaluation error ("" for none)."""

    decision: Decision
    reason: str = ""
    error: str = ""

    @property
    def allowed(self) -> bool:
        return self.decision is Decision.ALLOW


NO_OPINION = Answer(Decision.NO_OPINION)
ALLOWED = Answer(Decision.ALLOW)


@dataclass(slots=True)
class Rules:
    """What a user may do in a namespace (a rules review's status): resource rules and
    non-resource rules as the API writes them, whether the list is incomplete, and errors."""

    resource_rules: list[dict[str, Any]] = field(default_factory=list)
    non_resource_rules: list[dict[str, Any]] = field(default_factory=list)
    incomplete: bool = False
    errors: list[str] = field(default_factory=list)


class Authorizer(Protocol):
    """One authorization mode."""

    def authorize(self, attrs: Attributes) -> Answer: ...

    def rules_for(self, user: UserInfo, namespace: str) -> Rules: ...


def aggregate(messages: Sequence[str]) -> str:
    """Errors joined as upstream's ``utilerrors.NewAggregate(...).Error()``: one as it is,
    several (duplicates once) as ``[a, b]``."""
    unique = list(dict.fromkeys(m for m in messages if m))
    if len(unique) <= 1:
        return unique[0] if unique else ""
    return "[" + ", ".join(unique) + "]"


class AlwaysAllow:
    """``--authorization-mode=AlwaysAllow``: everything, for everyone."""

    def authorize(self, attrs: Attributes) -> Answer:
        return ALLOWED

    def rules_for(self, user: UserInfo, namespace: str) -> Rules:
        return Rules(
            resource_rules=[{"verbs": ["*"], "apiGroups": ["*"], "resources": ["*"]}],
            non_resource_rules=[{"verbs": ["*"], "nonResourceURLs": ["*"]}],
        )


class PrivilegedGroups:
    """Members of ``system:masters`` may do anything (kube-apiserver's first authorizer). It lists
    no rules: ``cluster-admin``'s binding to the group shows them through RBAC."""

    def __init__(self, groups: Iterable[str] = (PRIVILEGED_GROUP,)) -> None:
        self.groups = frozenset(groups)

    def authorize(self, attrs: Attributes) -> Answer:
        if self.groups.intersection(attrs.user.groups):
            return ALLOWED
        return NO_OPINION

    def rules_for(self, user: UserInfo, namespace: str) -> Rules:
        return Rules()


class AuthorizerChain:
    """The privileged groups, then the configured modes in order (upstream's union)."""

    def __init__(self, modes: Sequence[tuple[str, Authorizer]]) -> None:
        #: the configured modes by name, in order
        self.modes = tuple(name for name, _ in modes)
        self._authorizers: tuple[Authorizer, ...] = (
            PrivilegedGroups(), *(authorizer for _, authorizer in modes)
        )
        self._resolvers: tuple[Authorizer, ...] = tuple(authorizer for _, authorizer in modes)

    def authorize(self, attrs: Attributes) -> Answer:
        reasons: list[str] = []
        errors: list[str] = []
        for authorizer in self._authorizers:
            answer = authorizer.authorize(attrs)
            if answer.decision is not Decision.NO_OPINION:
                return answer
            if answer.reason:
                reasons.append(answer.reason)
            if answer.error:
                errors.append(answer.error)
        return Answer(Decision.NO_OPINION, "\n".join(reasons), aggregate(errors))

    def allows(self, attrs: Attributes) -> bool:
        return self.authorize(attrs).decision is Decision.ALLOW

    def rules_for(self, user: UserInfo, namespace: str) -> Rules:
        merged = Rules()
        for resolver in self._resolvers:
            rules = resolver.rules_for(user, namespace)
            merged.resource_rules += rules.resource_rules
            merged.non_resource_rules += rules.non_resource_rules
            merged.incomplete = merged.incomplete or rules.incomplete
            merged.errors += rules.errors
        return merged


def parse_modes(value: str | Sequence[str]) -> tuple[str, ...]:
    """The modes of ``--authorization-mode`` (comma-separated, or a list), checked with
    upstream's messages: each must be known and given once (ValueError otherwise)."""
    items = [m.strip() for m in value.split(",")] if isinstance(value, str) else list(value)
    items = [m for m in items if m]
    if not items:
        raise ValueError("at least one authorization-mode must be passed")
    for mode in items:
        if mode not in MODES:
            raise ValueError(
                f'authorization-mode "{mode}" is not a valid mode (fakeapi serves '
                f"{', '.join(MODES)})"
            )
    if len(set(items)) != len(items):
        quoted = " ".join(f'"{mode}"' for mode in items)
        raise ValueError(f"authorization-mode [{quoted}] has mode specified more than once")
    return tuple(items)
