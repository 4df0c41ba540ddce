"""Impersonation headers (``kubectl --as``, ``--as-group``, ``--as-uid``), as upstream's filter.

A request may act as another user: ``Impersonate-User`` names it (a service account as
``system:serviceaccount:<ns>:<name>``), ``Impersonate-Group`` (repeatable) its groups,
``Impersonate-Uid`` its uid and ``Impersonate-Extra-<key>`` its extra values. Each of these is a
request of its own that the requester must be allowed: the verb ``impersonate`` on ``users``,
``groups`` or ``serviceaccounts`` (core group; a service account in its namespace),
``uids``, or ``userextras/<key>`` (``authentication.k8s.io``), named after the value. The
first refusal is the request's 403 (``users "jane" is forbidden: User "bob" cannot impersonate
resource "users" in API group "" at the cluster scope``).

The impersonated user is in the groups asked for; without any, a service account is in its own
groups. ``system:authenticated`` is added unless ``system:unauthenticated`` or it was asked for
(for ``system:anonymous``, ``system:unauthenticated`` instead). Groups, uid or extra without a
user are a bad request (upstream answers that with a 500).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from urllib.parse import unquote

from fakeapi import errors
from fakeapi.auth.attributes import Attributes, forbidden
from fakeapi.auth.user import (
    ALL_AUTHENTICATED,
    ALL_UNAUTHENTICATED,
    ANONYMOUS,
    SERVICE_ACCOUNTS_GROUP,
    UserInfo,
    service_account,
)

__all__ = ["IMPERSONATE_HEADERS", "impersonated"]

USER_HEADER = "impersonate-user"
UID_HEADER = "impersonate-uid"
GROUP_HEADER = "impersonate-group"
EXTRA_PREFIX = "impersonate-extra-"
#: every header that asks for impersonation (lower case)
IMPERSONATE_HEADERS = (USER_HEADER, UID_HEADER, GROUP_HEADER)
_AUTHENTICATION = "authentication.k8s.io"


@dataclass(frozen=True, slots=True)
class _Ask:
    """One thing asked for, and the request that authorizes it."""

    resource: str
    name: str
    group: str = ""
    namespace: str = ""
    subresource: str = ""


def impersonated(
    requester: UserInfo,
    headers: Iterable[tuple[str, str]],
    *,
    allowed: Callable[[Attributes], tuple[bool, str]],
) -> UserInfo | None:
    """The user ``requester`` acts as (None: no impersonation asked). ``headers`` are the
    request's (name, value) pairs; ``allowed`` answers an impersonation request with (allowed,
    the authorizers' reason). Raises the 403 of the first refusal, or 400 for groups, uid or
    extra without a user."""
    user_name: str | None = None
    uid: str | None = None
    groups: list[str] = []
    extra: dict[str, list[str]] = {}
    for name, value in headers:
        lower = name.lower()
        if lower == USER_HEADER:
            user_name = value
        elif lower == UID_HEADER:
            uid = value
        elif lower == GROUP_HEADER:
            groups.append(value)
        elif lower.startswith(EXTRA_PREFIX):
            extra.setdefault(unquote(lower[len(EXTRA_PREFIX):]), []).append(value)
    if user_name is None:
        if groups or extra or uid is not None:
            asked = [*(f"group {g}" for g in groups), *(f"extra {k}" for k in extra),
                     *(["uid"] if uid is not None else [])]
            raise errors.bad_request(
                f"requested [{', '.join(asked)}] without impersonating a user"
            )
        return None
    asks: list[_Ask] = []
    account = service_account(user_name)
    impersonated_groups = list(groups)
    if account is not None:
        asks.append(_Ask("serviceaccounts", account[1], namespace=account[0]))
        if not groups:
            impersonated_groups = [SERVICE_ACCOUNTS_GROUP, f"{SERVICE_ACCOUNTS_GROUP}:{account[0]}"]
    else:
        asks.append(_Ask("users", user_name))
    asks += [_Ask("groups", group) for group in groups]
    for key, values in extra.items():
        asks += [_Ask("userextras", value, group=_AUTHENTICATION, subresource=key)
                 for value in values]
    if uid is not None:
        asks.append(_Ask("uids", uid, group=_AUTHENTICATION))
    for ask in asks:
        attrs = Attributes(
            user=requester, verb="impersonate", api_group=ask.group, resource=ask.resource,
            subresource=ask.subresource, namespace=ask.namespace, name=ask.name,
        )
        ok, reason = allowed(attrs)
        if not ok:
            raise forbidden(attrs, reason)
    if user_name != ANONYMOUS:
        if not {ALL_AUTHENTICATED, ALL_UNAUTHENTICATED} & set(impersonated_groups):
            impersonated_groups.append(ALL_AUTHENTICATED)
    elif ALL_UNAUTHENTICATED not in impersonated_groups:
        impersonated_groups.append(ALL_UNAUTHENTICATED)
    return UserInfo(
        user_name, uid or "", tuple(impersonated_groups),
        {key: tuple(values) for key, values in extra.items()},
    )
