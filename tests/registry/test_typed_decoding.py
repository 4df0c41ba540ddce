"""Bodies are decoded as kube-apiserver decodes them into typed Go structs.

Each test names one decoding behaviour and checks upstream's answer to it: the code, the exact
decoder text, and what is stored (normalised times and quantities, nulls dropped).
"""

from __future__ import annotations

from typing import Any

import pytest

from fakeapi.bootstrap import new_registry
from fakeapi.clock import FakeClock
from fakeapi.errors import StatusError
from fakeapi.registry.options import WriteOptions
from fakeapi.registry.store import GenericStore
from fakeapi.resources import ResourceType, default_resources
from fakeapi.server.patching import apply_patch_request
from fakeapi.server.routing import Target

KINDS = {(rt.api_version, rt.kind): rt for rt in default_resources()}
CLAIM = KINDS[("resource.k8s.io/v1", "ResourceClaim")]
POD = KINDS[("v1", "Pod")]
LEASE = KINDS[("coordination.k8s.io/v1", "Lease")]
NS = "default"
CANNOT = 'ResourceClaim in version "v1" cannot be handled as a ResourceClaim: '


@pytest.fixture
def registry() -> GenericStore:
    return new_registry(clock=FakeClock())


def _opts(**kw: Any) -> WriteOptions:
    return WriteOptions(field_manager="tests", **kw)


def _claim(name: str = "c", **exactly: Any) -> dict[str, Any]:
    request = {"name": "gpu", "exactly": {"deviceClassName": "gpu.example.com", **exactly}}
    return {"metadata": {"name": name}, "spec": {"devices": {"requests": [request]}}}


def _create_error(registry: GenericStore, rt: ResourceType, body: Any) -> StatusError:
    with pytest.raises(StatusError) as caught:
        registry.create(rt, NS, body, _opts())
    return caught.value


def test_a_string_count_is_a_400_with_the_go_decoder_text(registry: GenericStore) -> None:
    err = _create_error(registry, CLAIM, _claim(count="2"))
    assert err.code == 400
    assert err.message == CANNOT + (
        "json: cannot unmarshal string into Go struct field "
        "ExactDeviceRequest.spec.devices.requests.exactly.count of type int64"
    )


def test_a_fractional_count_names_the_number(registry: GenericStore) -> None:
    err = _create_error(registry, CLAIM, _claim(count=1.5))
    assert err.message.endswith(
        "json: cannot unmarshal number 1.5 into Go struct field "
        "ExactDeviceRequest.spec.devices.requests.exactly.count of type int64"
    )


def test_a_non_object_spec_names_the_struct_type(registry: GenericStore) -> None:
    err = _create_error(registry, CLAIM, {"metadata": {"name": "c"}, "spec": "x"})
    assert err.message == CANNOT + (
        "json: cannot unmarshal string into Go struct field ResourceClaim.spec of type "
        "v1.ResourceClaimSpec"
    )


def test_a_list_item_of_the_wrong_type_names_the_item_type(registry: GenericStore) -> None:
    body = {"metadata": {"name": "c"}, "spec": {"devices": {"requests": ["gpu"]}}}
    err = _create_error(registry, CLAIM, body)
    assert err.message == CANNOT + (
        "json: cannot unmarshal string into Go struct field DeviceClaim.spec.devices.requests "
        "of type v1.DeviceRequest"
    )


@pytest.mark.parametrize(
    ("field", "value", "json_type"),
    [("namespace", 5, "number"), ("generateName", 5, "number"), ("name", ["x"], "array")],
)
def test_metadata_strings_of_another_type_are_400(
    registry: GenericStore, field: str, value: Any, json_type: str
) -> None:
    body = _claim()
    body["metadata"][field] = value
    err = _create_error(registry, CLAIM, body)
    assert err.code == 400
    assert err.message == CANNOT + (
        f"json: cannot unmarshal {json_type} into Go struct field ObjectMeta.metadata.{field} "
        "of type string"
    )


def test_a_label_value_of_another_type_names_the_map_value_type(registry: GenericStore) -> None:
    body = _claim()
    body["metadata"]["labels"] = {"a": 1}
    err = _create_error(registry, CLAIM, body)
    assert err.message.endswith(
        "json: cannot unmarshal number into Go struct field ObjectMeta.metadata.labels of type "
        "string"
    )


def test_the_first_type_error_is_reported(registry: GenericStore) -> None:
    body = _claim(count="2", adminAccess="yes")
    err = _create_error(registry, CLAIM, body)
    assert "exactly.count of type int64" in err.message


def test_a_time_error_wins_over_an_earlier_type_error(registry: GenericStore) -> None:
    body = _claim(count="2")
    body["metadata"]["creationTimestamp"] = "yesterday"
    err = _create_error(registry, CLAIM, body)
    assert err.message == CANNOT + (
        'parsing time "yesterday" as "2006-01-02T15:04:05Z07:00": cannot parse "yesterday" as '
        '"2006"'
    )


def _pod_with_condition_time(sent: str) -> dict[str, Any]:
    return {
        "metadata": {"name": "p"},
        "spec": {"containers": [{"name": "a", "image": "i"}]},
        "status": {"conditions": [{"type": "Ready", "status": "True", "lastTransitionTime": sent}]},
    }


@pytest.mark.parametrize(
    ("sent", "message"),
    [
        ("2026-13-01T00:00:00Z", 'parsing time "2026-13-01T00:00:00Z": month out of range'),
        (
            "2026-01-01",
            'parsing time "2026-01-01" as "2006-01-02T15:04:05Z07:00": cannot parse "" as "T"',
        ),
        ("2026-01-01T00:00:00Zx", 'parsing time "2026-01-01T00:00:00Zx": extra text: "x"'),
    ],
)
def test_bad_timestamps_fail_with_go_parse_errors(
    registry: GenericStore, sent: str, message: str
) -> None:
    body = _pod_with_condition_time(sent)
    err = _create_error(registry, POD, body)
    assert err.code == 400
    assert err.message == f'Pod in version "v1" cannot be handled as a Pod: {message}'


def test_a_timestamp_of_another_type_is_a_string_type_error(registry: GenericStore) -> None:
    body = {"metadata": {"name": "l"}, "spec": {"renewTime": 5}}
    err = _create_error(registry, LEASE, body)
    assert err.message.endswith(
        "json: cannot unmarshal number into Go struct field LeaseSpec.spec.renewTime of type string"
    )


def test_times_are_stored_in_utc_to_the_second(registry: GenericStore) -> None:
    update = {"metadata": {"name": "p"}, "spec": {"containers": [{"name": "a", "image": "i"}]}}
    registry.create(POD, NS, update, _opts())
    current = registry.get(POD, NS, "p").obj
    status = {
        **current,
        "status": {
            "conditions": [
                {
                    "type": "Ready",
                    "status": "True",
                    "lastTransitionTime": "2026-01-01T02:00:00.5+02:00",
                }
            ]
        },
    }
    stored = registry.update(POD, NS, "p", status, _opts(), subresource="status").obj
    assert stored["status"]["conditions"][0]["lastTransitionTime"] == "2026-01-01T00:00:00Z"


def test_a_time_shifted_into_year_zero_is_stored_as_go_writes_it(registry: GenericStore) -> None:
    body = {"metadata": {"name": "l"}, "spec": {"renewTime": "0001-01-01T00:00:00.000000+02:00"}}
    stored = registry.create(LEASE, NS, body, _opts()).obj
    assert stored["spec"]["renewTime"] == "0000-12-31T22:00:00.000000Z"


@pytest.mark.parametrize("sent", ["9999-12-31T23:00:00-02:00", "0000-01-01T00:00:00+02:00"])
def test_a_time_shifted_out_of_years_0_to_9999_is_a_bad_request(
    registry: GenericStore, sent: str
) -> None:
    body = _pod_with_condition_time(sent)
    err = _create_error(registry, POD, body)
    assert err.code == 400
    assert err.message.endswith(
        f'parsing time "{sent}": Time.MarshalJSON: year outside of range [0,9999]'
    )
    with pytest.raises(StatusError) as missing:
        registry.get(POD, NS, "p")
    assert missing.value.code == 404


def test_micro_times_keep_six_digits_and_require_them(registry: GenericStore) -> None:
    body = {"metadata": {"name": "l"}, "spec": {"renewTime": "2026-01-01T01:00:00.123456+01:00"}}
    stored = registry.create(LEASE, NS, body, _opts()).obj
    assert stored["spec"]["renewTime"] == "2026-01-01T00:00:00.123456Z"
    err = _create_error(
        registry, LEASE, {"metadata": {"name": "m"}, "spec": {"renewTime": "2026-01-01T00:00:00Z"}}
    )
    assert err.message.endswith(
        'parsing time "2026-01-01T00:00:00Z" as "2006-01-02T15:04:05.000000Z07:00": cannot parse '
        '"Z" as ".000000"'
    )


def test_quantities_are_stored_canonical_and_bad_ones_fail_decoding(registry: GenericStore) -> None:
    container = {
        "name": "a",
        "image": "i",
        "resources": {"requests": {"cpu": "1000m", "memory": 1}},
    }
    body = {"metadata": {"name": "p"}, "spec": {"containers": [container]}}
    stored = registry.create(POD, NS, body, _opts()).obj
    assert stored["spec"]["containers"][0]["resources"]["requests"] == {"cpu": "1", "memory": "1"}
    container["resources"]["requests"]["cpu"] = True
    body["metadata"]["name"] = "q"
    err = _create_error(registry, POD, body)
    assert err.message == (
        'Pod in version "v1" cannot be handled as a Pod: quantities must match the regular '
        "expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"
    )


def test_nulls_leave_fields_unset(registry: GenericStore) -> None:
    body = _claim(count=None)
    body["metadata"]["labels"] = None
    stored = registry.create(CLAIM, NS, body, _opts()).obj
    assert "labels" not in stored["metadata"]
    assert stored["spec"]["devices"]["requests"][0]["exactly"]["count"] == 1  # defaulted


def test_a_merge_patch_that_renames_the_object_is_a_400(registry: GenericStore) -> None:
    registry.create(CLAIM, NS, _claim("c"), _opts())
    with pytest.raises(StatusError) as caught:
        apply_patch_request(
            registry,
            Target(CLAIM, NS, "c", ""),
            content_type="application/merge-patch+json",
            patch={"metadata": {"name": "d"}},
            options=_opts(),
        )
    assert caught.value.code == 400
    assert caught.value.message == (
        "the name of the object (d) does not match the name on the URL (c)"
    )


def test_a_patch_that_breaks_a_type_is_a_422_on_the_patch_field(registry: GenericStore) -> None:
    registry.create(CLAIM, NS, _claim("c"), _opts())
    with pytest.raises(StatusError) as caught:
        apply_patch_request(
            registry,
            Target(CLAIM, NS, "c", ""),
            content_type="application/json-patch+json",
            patch=[{"op": "add", "path": "/spec/devices/requests/0/exactly/count", "value": "2"}],
            options=_opts(),
        )
    err = caught.value
    assert err.code == 422
    assert err.message.startswith(' "" is invalid: patch: Invalid value: "{')
    assert err.message.endswith(
        "json: cannot unmarshal string into Go struct field "
        "ExactDeviceRequest.spec.devices.requests.exactly.count of type int64"
    )
    assert err.details is not None and err.details["causes"][0]["field"] == "patch"


def test_a_strategic_patch_error_shows_the_patch_as_go_prints_it(registry: GenericStore) -> None:
    registry.create(CLAIM, NS, _claim("c"), _opts())
    with pytest.raises(StatusError) as caught:
        apply_patch_request(
            registry,
            Target(CLAIM, NS, "c", ""),
            content_type="application/strategic-merge-patch+json",
            patch={"metadata": {"labels": {"a": 1}}},
            options=_opts(),
        )
    assert caught.value.code == 422
    assert 'patch: Invalid value: "map[metadata:map[labels:map[a:1]]]": json: cannot' in (
        caught.value.message
    )


def test_an_apply_with_a_wrong_type_uses_structured_merge_diff_text_and_paths(
    registry: GenericStore,
) -> None:
    config = {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim", **_claim("c", count="2")}
    config["metadata"]["namespace"] = NS
    with pytest.raises(StatusError) as caught:
        apply_patch_request(
            registry,
            Target(CLAIM, NS, "c", ""),
            content_type="application/apply-patch+yaml",
            patch=config,
            options=_opts(),
        )
    assert caught.value.code == 400
    assert caught.value.message == (
        "failed to create typed patch object (default/c; resource.k8s.io/v1, Kind=ResourceClaim): "
        ".spec.devices.requests[0].exactly.count: expected numeric (int or float), "
        "got string"
    )


def test_an_int32_field_out_of_range_names_the_number_and_int32(registry: GenericStore) -> None:
    classes = KINDS[("scheduling.k8s.io/v1", "PriorityClass")]
    err = _create_error(registry, classes, {"metadata": {"name": "x"}, "value": 3_000_000_000})
    assert err.message == (
        'PriorityClass in version "v1" cannot be handled as a PriorityClass: json: cannot '
        "unmarshal number 3000000000 into Go struct field PriorityClass.value of type int32"
    )


def test_a_strict_patch_with_an_unknown_field_is_a_422_on_the_patch_field(
    registry: GenericStore,
) -> None:
    registry.create(CLAIM, NS, _claim("c"), _opts())
    with pytest.raises(StatusError) as caught:
        apply_patch_request(
            registry,
            Target(CLAIM, NS, "c", ""),
            content_type="application/merge-patch+json",
            patch={"spec": {"bogus": 1}},
            options=_opts(field_validation="Strict"),
        )
    assert caught.value.code == 422
    assert caught.value.message.startswith(' "" is invalid: patch: Invalid value: "{')
    assert caught.value.message.endswith('strict decoding error: unknown field "spec.bogus"')


def test_a_named_go_string_type_is_named_in_the_error(registry: GenericStore) -> None:
    err = _create_error(registry, CLAIM, _claim(allocationMode=1))
    assert err.message == CANNOT + (
        "json: cannot unmarshal number into Go struct field "
        "ExactDeviceRequest.spec.devices.requests.exactly.allocationMode of type "
        "v1.DeviceAllocationMode"
    )


@pytest.mark.parametrize("mode", ["Strict", "Warn", "Ignore"])
def test_an_apply_with_an_unknown_field_is_refused_whatever_field_validation_says(
    registry: GenericStore, mode: str
) -> None:
    config = {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim", **_claim("c")}
    config["metadata"]["namespace"] = NS
    config["spec"]["bogus"] = 1
    with pytest.raises(StatusError) as caught:
        apply_patch_request(
            registry,
            Target(CLAIM, NS, "c", ""),
            content_type="application/apply-patch+yaml",
            patch=config,
            options=_opts(field_validation=mode),
        )
    assert caught.value.code == 400
    assert caught.value.message == (
        "failed to create typed patch object (default/c; resource.k8s.io/v1, Kind=ResourceClaim): "
        ".spec.bogus: field not declared in schema"
    )
