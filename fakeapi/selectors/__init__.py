"""Kubernetes label and field selectors: upstream grammar and messages, fast matching.

Selectors arrive as query strings (``labelSelector``, ``fieldSelector``) and as API objects
(``metav1.LabelSelector`` in specs). Both kinds are parsed once per request and then matched
against every object of a list and every event of a watch.

The package splits by concern: :mod:`.errors` (the error type and upstream's error text),
:mod:`.requirements` (compiled label requirements and matching), :mod:`.labels` (the label
grammar and API-object conversion) and :mod:`.fields` (field selectors).
"""

from __future__ import annotations

from fakeapi.selectors.errors import SelectorError, label_key_errors, label_value_errors
from fakeapi.selectors.fields import FieldSelector, escape_field_value, parse_field_selector
from fakeapi.selectors.labels import label_selector_from_api, parse_label_selector
from fakeapi.selectors.requirements import LabelSelector, Requirement

__all__ = [
    "FieldSelector",
    "LabelSelector",
    "Requirement",
    "SelectorError",
    "escape_field_value",
    "label_key_errors",
    "label_selector_from_api",
    "label_value_errors",
    "parse_field_selector",
    "parse_label_selector",
]
