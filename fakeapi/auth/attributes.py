"""What an authorizer is asked: a user, a verb, and a resource or a path.

Upstream's ``authorizer.Attributes``: a resource request names a verb (``get``, ``list``,
``watch``, ``create``, ``update``, ``patch``, ``delete``, ``deletecollection``, or one of the
special verbs ``impersonate``, ``escalate``, ``bind``, ``associated-node:update``...), an API group
and version, a resource with an optional subresource, a namespace and a name; a non-resource
request a verb (the HTTP method in lower case) and a path. A list, watch or deletecollection also
carries its field and label selectors (KEP-4601), which the node authorizer reads.

:func:`forbidden` is the 403 kube-apiserver writes when the authorizers say no, with upstream's
message (``pods is forbidden: User "jane" cannot list resource "pods" in API group "" in the
namespace "kube-system"``) followed by the authorizers' reasons, and its details.
"""

from __future__ import annotations

from dataclasses import dataclass

from fakeapi import errors
from fakeapi.auth.user import UserInfo

__all__ = [
    "Attributes", "FieldRequirement", "forbidden", "forbidden_error", "forbidden_message",
]

#: one term of a field selector: (field, operator, value), the operator ``=`` or ``!=``
FieldRequirement = tuple[str, str, str]


@dataclass(frozen=True, slots=True)
class Attributes:
    """One request as the authorizers see it."""

    user: UserInfo
    verb: str
    #: a request for an API resource (else a non-resource path, :attr:`path`)
    resource_request: bool = True
    api_group: str = ""
    api_version: str = ""
    resource: str = ""
    subresource: str = ""
    namespace: str = ""
    name: str = ""
    path: str = ""
    #: the field selector's terms of a list, watch or deletecollection
    field_selector: tuple[FieldRequirement, ...] = ()
    #: the raw label selector of a list, watch or deletecollection ("" for none)
    label_selector: str = ""

    def field_equals(self, field: str, value: str) -> bool:
        """Whether the field selector pins ``field`` to ``value``."""
        return any(f == field and op == "=" and v == value for f, op, v in self.field_selector)


def forbidden_message(attrs: Attributes) -> str:
    """Upstream's ``forbiddenMessage``: who may not do what, where."""
    user = attrs.user.name
    if not attrs.resource_request:
        return f'User "{user}" cannot {attrs.verb} path "{attrs.path}"'
    resource = attrs.resource
    if attrs.subresource:
        resource = f"{resource}/{attrs.subresource}"
    if attrs.namespace:
        return (
            f'User "{user}" cannot {attrs.verb} resource "{resource}" in API group '
            f'"{attrs.api_group}" in the namespace "{attrs.namespace}"'
        )
    return (
        f'User "{user}" cannot {attrs.verb} resource "{resource}" in API group '
        f'"{attrs.api_group}" at the cluster scope'
    )


def forbidden(attrs: Attributes, reason: str = "") -> errors.StatusError:
    """The 403 of a request the authorizers refused (upstream's ``ForbiddenStatusError``): the
    forbidden message, then ``: <reason>`` when the authorizers gave one."""
    message = forbidden_message(attrs)
    if reason:
        message = f"{message}: {reason}"
    return forbidden_error(
        resource=attrs.resource if attrs.resource_request else "",
        group=attrs.api_group if attrs.resource_request else "",
        name=attrs.name if attrs.resource_request else "",
        message=message,
    )


def forbidden_error(*, resource: str, group: str, name: str, message: str) -> errors.StatusError:
    """Upstream's ``NewForbidden``: ``<resource>.<group> "<name>" is forbidden: <message>``,
    without the name when there is none and as ``forbidden: <message>`` without a resource."""
    if not resource:
        prefix = "forbidden"
    else:
        qualified = f"{resource}.{group}" if group else resource
        prefix = f'{qualified} "{name}" is forbidden' if name else f"{qualified} is forbidden"
    details: dict[str, str] = {}
    if name:
        details["name"] = name
    if group:
        details["group"] = group
    if resource:
        details["kind"] = resource
    return errors.StatusError(403, "Forbidden", f"{prefix}: {message}", details)
