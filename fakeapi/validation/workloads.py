"""Rules the workload kinds share: label selectors, pod templates, counts and int-or-percent.

Upstream spreads these over apimachinery (``ValidateLabelSelector``), core validation
(``ValidatePodTemplateSpec``, ``ValidateNonnegativeField``) and apps validation
(``ValidatePositiveIntOrPercent``, ``IsNotMoreThan100Percent``); Deployments, ReplicaSets,
StatefulSets, DaemonSets, Jobs, ReplicationControllers and PodDisruptionBudgets all call them, so
they live here once with upstream's messages and field paths.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from fakeapi.name_syntax import is_qualified_name, is_valid_label_value
from fakeapi.objects import as_dict, as_list, text
from fakeapi.rules.intstr import percent_value
from fakeapi.selectors import SelectorError, label_selector_from_api
from fakeapi.validation.field import (
    FieldError,
    Path,
    forbidden,
    invalid,
    not_supported,
    required,
)
from fakeapi.validation.meta import validate_annotations, validate_labels
from fakeapi.validation.pod import validate_pod_spec
from fakeapi.validation.remembered import ValidByContent

__all__ = [
    "NONNEGATIVE",
    "selector_matches_template",
    "validate_int_or_percent",
    "validate_label_selector",
    "validate_nonnegative",
    "validate_not_more_than_100_percent",
    "validate_pod_template",
    "validate_restart_policy_always",
    "validate_selected_template",
]

NONNEGATIVE = "must be greater than or equal to 0"
_PERCENT_MSG = (
    "a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or "
    "'93%', regex used for validation is '[0-9]+%')"
)


def validate_nonnegative(value: Any, path: Path) -> list[FieldError]:
    """``ValidateNonnegativeField``: an integer below 0 is invalid (absent values pass)."""
    if isinstance(value, int) and not isinstance(value, bool) and value < 0:
        return [invalid(path, value, NONNEGATIVE)]
    return []


def validate_label_selector(selector: Any, path: Path) -> list[FieldError]:
    """apimachinery's ``ValidateLabelSelector`` (strict label values, as the workload kinds
    ask): matchLabels are valid labels, each expression a valid key with an operator and values
    that agree."""
    selector = as_dict(selector)
    errors = validate_labels(as_dict(selector.get("matchLabels")), path=path.child("matchLabels"))
    for i, expression in enumerate(as_list(selector.get("matchExpressions"))):
        at = path.child("matchExpressions").index(i)
        expression = as_dict(expression)
        operator = text(expression.get("operator"))
        values = as_list(expression.get("values"))
        if operator in ("In", "NotIn"):
            if not values:
                errors.append(
                    required(at.child("values"), "must be specified when `operator` is 'In' or "
                             "'NotIn'")
                )
        elif operator in ("Exists", "DoesNotExist"):
            if values:
                errors.append(
                    forbidden(at.child("values"), "may not be specified when `operator` is "
                              "'Exists' or 'DoesNotExist'")
                )
        else:
            errors.append(
                invalid(at.child("operator"), operator, "not a valid selector operator")
            )
        key = text(expression.get("key"))
        errors.extend(invalid(at.child("key"), key, msg) for msg in is_qualified_name(key))
        for j, value in enumerate(values):
            errors.extend(
                invalid(at.child("values").index(j), value, msg)
                for msg in is_valid_label_value(text(value))
            )
    return errors


def selector_matches_template(selector: Any, template_labels: Mapping[str, Any]) -> bool | None:
    """Whether a ``metav1.LabelSelector`` selects the template's labels; None when the selector
    does not parse (its own errors are reported where it is validated)."""
    try:
        parsed = label_selector_from_api(as_dict(selector))
    except (SelectorError, ValueError):
        return None
    return parsed.matches({k: text(v) for k, v in template_labels.items()})


def validate_selected_template(
    selector: Any, template: Any, path: Path, *, selector_path: Path | None = None
) -> list[FieldError]:
    """The template's labels must be selected by a non-empty ``selector``: ``\\`selector\\` does
    not match template \\`labels\\``` at ``<path>.metadata.labels``."""
    selector = as_dict(selector)
    if not as_dict(selector.get("matchLabels")) and not as_list(selector.get("matchExpressions")):
        return []
    labels = as_dict(as_dict(as_dict(template).get("metadata")).get("labels"))
    if selector_matches_template(selector, labels) is False:
        return [
            invalid(
                path.child("metadata", "labels"), labels, "`selector` does not match template "
                "`labels`"
            )
        ]
    return []


#: templates that passed the template rules (only a passing template is remembered, so errors
#: always carry the caller's path): every write of a workload repeats its template
_valid_templates = ValidByContent(512)


def validate_pod_template(template: Any, path: Path) -> list[FieldError]:
    """core's ``ValidatePodTemplateSpec``: the template's labels and annotations, its pod spec
    as for a new pod, and no ephemeral containers."""
    if not isinstance(template, dict):
        return [required(path)]

    def check(tmpl: dict[str, Any]) -> list[FieldError]:
        meta = as_dict(tmpl.get("metadata"))
        errors = validate_labels(as_dict(meta.get("labels")), path=path.child("labels"))
        errors += validate_annotations(
            as_dict(meta.get("annotations")), path=path.child("annotations")
        )
        spec = as_dict(tmpl.get("spec"))
        if as_list(spec.get("ephemeralContainers")):
            errors.append(
                forbidden(path.child("spec", "ephemeralContainers"),
                          "ephemeral containers not allowed in pod template")
            )
            spec = {k: v for k, v in spec.items() if k != "ephemeralContainers"}
        errors += validate_pod_spec(spec, path=path.child("spec"), creating=True)
        return errors

    return _valid_templates.errors(template, check)


def validate_restart_policy_always(template: Any, path: Path, kind: str) -> list[FieldError]:
    """A pod template of a long-running workload: ``restartPolicy`` Always and no
    ``activeDeadlineSeconds`` (``... in <kind> is not Supported``)."""
    spec = as_dict(as_dict(template).get("spec"))
    errors: list[FieldError] = []
    policy = spec.get("restartPolicy")
    if policy != "Always":
        errors.append(not_supported(path.child("spec", "restartPolicy"), policy or "", ["Always"]))
    if spec.get("activeDeadlineSeconds") is not None:
        errors.append(
            forbidden(path.child("spec", "activeDeadlineSeconds"),
                      f"activeDeadlineSeconds in {kind} is not Supported")
        )
    return errors


# --- int or percent ------------------------------------------------------------------------------


def validate_int_or_percent(value: Any, path: Path) -> list[FieldError]:
    """``ValidatePositiveIntOrPercent``: a non-negative integer or a ``<digits>%`` string."""
    if value is None:
        return []
    if isinstance(value, str):
        return [] if percent_value(value) is not None else [invalid(path, value, _PERCENT_MSG)]
    if isinstance(value, int) and not isinstance(value, bool):
        return validate_nonnegative(value, path)
    return [invalid(path, value, "must be an integer or percentage (e.g '5%')")]


def validate_not_more_than_100_percent(value: Any, path: Path) -> list[FieldError]:
    """``IsNotMoreThan100Percent``: a percentage above 100% is invalid."""
    found = percent_value(value)
    if found is not None and found > 100:
        return [invalid(path, value, "must not be greater than 100%")]
    return []
