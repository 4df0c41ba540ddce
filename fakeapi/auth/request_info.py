"""What an HTTP request asks, as the authorizers see it (upstream's ``RequestInfoFactory``).

A path under ``/api/v1/`` or ``/apis/<group>/<version>/`` with a resource in it is a resource
request: the method gives the verb (``POST`` create, ``GET`` get, ``PUT`` update, ``PATCH``
patch, ``DELETE`` delete), a ``/watch/`` segment makes it watch, and a GET without a name is a
list — or a watch with ``?watch=true`` — named after ``metadata.name`` when the field selector
pins it; a DELETE without a name is a deletecollection. ``namespaces/<ns>/<resource>/...`` sets
the namespace (``namespaces/<ns>/status`` and ``/finalize`` are the namespace's own
subresources); the parts after the resource are the name and the subresource. Anything else —
``/healthz``, ``/version``, ``/api``, ``/apis/<group>`` and ``/openapi/...`` — is a non-resource
request whose verb is the method in lower case.

A list, watch or deletecollection carries its field and label selectors (KEP-4601); a selector
that does not parse is left out, as upstream leaves out what it cannot parse.
"""

from __future__ import annotations

from collections.abc import Mapping

from fakeapi.auth.attributes import Attributes, FieldRequirement
from fakeapi.auth.user import UserInfo
from fakeapi.selectors import SelectorError, parse_field_selector

__all__ = ["pinned_name", "request_attributes"]

_VERBS = {"POST": "create", "GET": "get", "HEAD": "get", "PUT": "update", "PATCH": "patch",
          "DELETE": "delete"}
_NAMESPACE_SUBRESOURCES = frozenset({"status", "finalize"})
_API_PREFIXES = frozenset({"api", "apis"})


def _field_terms(query: Mapping[str, str]) -> tuple[FieldRequirement, ...]:
    raw = query.get("fieldSelector", "")
    if not raw:
        return ()
    try:
        return parse_field_selector(raw).requirements
    except (SelectorError, ValueError):
        return ()


def _watch_flag(query: Mapping[str, str]) -> bool:
    value = query.get("watch")
    return value is not None and value.lower() not in ("false", "0")


def request_attributes(
    user: UserInfo, *, method: str, path: str, query: Mapping[str, str]
) -> Attributes:
    """The attributes of a request to ``path`` with ``method`` and ``query``."""
    parts = [p for p in path.strip("/").split("/") if p]
    non_resource = Attributes(user=user, verb=method.lower(), resource_request=False, path=path)
    if len(parts) < 3 or parts[0] not in _API_PREFIXES:
        return non_resource
    group = ""
    rest = parts[1:]
    if parts[0] == "apis":
        if len(rest) < 3:
            return non_resource
        group, rest = rest[0], rest[1:]
    version, rest = rest[0], rest[1:]
    if rest[0] == "watch":
        if len(rest) < 2:
            return non_resource  # upstream refuses "unable to determine kind"; the router 404s
        verb, rest = "watch", rest[1:]
    else:
        verb = _VERBS.get(method.upper(), "")
    namespace = ""
    if rest[0] == "namespaces" and len(rest) > 1:
        namespace = rest[1]
        if len(rest) > 2 and rest[2] not in _NAMESPACE_SUBRESOURCES:
            rest = rest[2:]
    resource = rest[0]
    name = rest[1] if len(rest) > 1 else ""
    subresource = rest[2] if len(rest) > 2 else ""
    terms: tuple[FieldRequirement, ...] = ()
    labels = ""
    if not name and verb == "get":
        verb = "watch" if _watch_flag(query) else "list"
        terms = _field_terms(query)
        name = pinned_name(terms)
    elif not name and verb == "delete":
        verb = "deletecollection"
    if verb in ("list", "watch", "deletecollection"):
        terms = terms or _field_terms(query)
        labels = query.get("labelSelector", "")
    return Attributes(
        user=user,
        verb=verb,
        api_group=group,
        api_version=version,
        resource=resource,
        subresource=subresource,
        namespace=namespace,
        name=name,
        path=path,
        field_selector=terms,
        label_selector=labels,
    )


def pinned_name(terms: tuple[FieldRequirement, ...]) -> str:
    """The name a list's field selector pins with ``metadata.name=``, when it is a valid path
    segment (upstream names the request after it)."""
    for field, op, value in terms:
        if field == "metadata.name" and op == "=":
            if value and "/" not in value and "%" not in value and value not in (".", ".."):
                return value
            return ""
    return ""
