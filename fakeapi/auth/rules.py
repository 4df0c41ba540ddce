"""RBAC policy rules and what they allow, as upstream's ``RuleAllows`` decides it.

A rule of a Role or ClusterRole allows a resource request when its verbs, API groups, resources
and resource names all match, and a non-resource request when its verbs and non-resource URLs
match:

- a verb, group or resource ``*`` matches anything; otherwise the value must be listed;
- resources are matched on ``resource/subresource`` (``pods/status``), and ``*/status`` matches
  that subresource of every resource;
- an empty ``resourceNames`` allows every name, otherwise the request's name must be listed (a
  list, which names none, is not allowed by a rule with names);
- a URL ending in ``*`` matches every path it is a prefix of, ``*`` alone every path.

Rules are compiled once per stored role (:class:`Rule`): sets instead of lists, and the ``*``
cases as flags, so a check is a few set lookups.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from fakeapi.auth.attributes import Attributes

__all__ = ["Rule", "compile_rules", "rules_allow"]

_ALL = "*"


def _strings(value: Any) -> tuple[str, ...]:
    return tuple(str(v) for v in value) if isinstance(value, list) else ()


@dataclass(frozen=True, slots=True)
class Rule:
    """One compiled PolicyRule; :attr:`source` is the rule as stored (for rules reviews)."""

    source: Mapping[str, Any]
    verbs: frozenset[str]
    all_verbs: bool
    groups: frozenset[str]
    all_groups: bool
    resources: frozenset[str]
    all_resources: bool
    #: the subresources ``*/<sub>`` entries allow for every resource
    any_resource_subresources: frozenset[str]
    names: frozenset[str]
    urls: frozenset[str]
    url_prefixes: tuple[str, ...]
    all_urls: bool

    @classmethod
    def of(cls, rule: Mapping[str, Any]) -> Rule:
        verbs = frozenset(_strings(rule.get("verbs")))
        groups = frozenset(_strings(rule.get("apiGroups")))
        resources = frozenset(_strings(rule.get("resources")))
        urls = _strings(rule.get("nonResourceURLs"))
        return cls(
            source=rule,
            verbs=verbs,
            all_verbs=_ALL in verbs,
            groups=groups,
            all_groups=_ALL in groups,
            resources=resources,
            all_resources=_ALL in resources,
            any_resource_subresources=frozenset(
                r[2:] for r in resources if r.startswith("*/") and len(r) > 2
            ),
            names=frozenset(_strings(rule.get("resourceNames"))),
            urls=frozenset(urls),
            url_prefixes=tuple(u.rstrip(_ALL) for u in urls if u.endswith(_ALL)),
            all_urls=_ALL in urls,
        )

    def allows(self, attrs: Attributes) -> bool:
        """Upstream's ``RuleAllows``."""
        if not (self.all_verbs or attrs.verb in self.verbs):
            return False
        if not attrs.resource_request:
            path = attrs.path
            return (
                self.all_urls
                or path in self.urls
                or any(path.startswith(prefix) for prefix in self.url_prefixes)
            )
        if not (self.all_groups or attrs.api_group in self.groups):
            return False
        sub = attrs.subresource
        combined = f"{attrs.resource}/{sub}" if sub else attrs.resource
        if not (
            self.all_resources
            or combined in self.resources
            or (sub and sub in self.any_resource_subresources)
        ):
            return False
        return not self.names or attrs.name in self.names


def compile_rules(rules: Iterable[Any]) -> tuple[Rule, ...]:
    """The compiled rules of a role's ``rules`` (entries that are not objects are skipped)."""
    return tuple(Rule.of(rule) for rule in rules if isinstance(rule, Mapping))


def rules_allow(attrs: Attributes, rules: Iterable[Rule]) -> bool:
    """Whether any of ``rules`` allows the request (upstream's ``RulesAllow``)."""
    return any(rule.allows(attrs) for rule in rules)
