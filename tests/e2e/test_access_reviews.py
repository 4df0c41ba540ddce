"""Access reviews against a running ``fakeapi serve``, with real kubectl (``auth can-i``,
``auth whoami``, which send protobuf) and the official Python client.

fakeapi authorizes everything and authenticates nobody, so it answers as an API server with
anonymous requests and the AlwaysAllow authorizer: always allowed, every rule, anonymous.
"""

from __future__ import annotations

import json

import pytest
from kubernetes import client
from kubernetes.client.rest import ApiException

pytestmark = pytest.mark.e2e


def test_kubectl_auth_can_i_answers_yes_for_resources_and_paths(kubectl):
    assert kubectl("auth", "can-i", "create", "pods").strip() == "yes"
    assert kubectl("auth", "can-i", "delete", "resourceclaims.resource.k8s.io",
                   "--all-namespaces", namespaced=False).strip() == "yes"
    assert kubectl("auth", "can-i", "get", "/healthz", namespaced=False).strip() == "yes"


def test_kubectl_auth_can_i_list_shows_every_rule(kubectl):
    rows = [line.split() for line in kubectl("auth", "can-i", "--list").strip().splitlines()]
    assert rows == [
        ["Resources", "Non-Resource", "URLs", "Resource", "Names", "Verbs"],
        ["*.*", "[]", "[]", "[*]"],
        ["[*]", "[]", "[*]"],
    ]


def test_kubectl_auth_whoami_is_anonymous(kubectl):
    rows = [line.split(None, 1) for line in
            kubectl("auth", "whoami", namespaced=False).strip().splitlines()]
    assert rows == [["ATTRIBUTE", "VALUE"], ["Username", "system:anonymous"],
                    ["Groups", "[system:unauthenticated]"]]


def test_reviews_are_answered_not_stored(kubectl):
    listed = kubectl.run("get", "selfsubjectaccessreviews", check=False, namespaced=False)
    assert listed.returncode != 0
    assert "MethodNotAllowed" in listed.stderr


def test_python_client_subject_access_reviews(api_client):
    authz = client.AuthorizationV1Api(api_client)
    review = authz.create_subject_access_review({
        "spec": {"user": "bob", "resourceAttributes": {"verb": "list", "resource": "pods"}}})
    assert review.status.allowed is True
    assert review.spec.user == "bob"
    local = authz.create_namespaced_local_subject_access_review("default", {
        "metadata": {"namespace": "default"},
        "spec": {"groups": ["team"], "resourceAttributes": {
            "namespace": "default", "verb": "get", "group": "resource.k8s.io",
            "resource": "resourceclaims"}}})
    assert local.status.allowed is True


def test_an_invalid_review_gets_upstreams_messages(api_client):
    authz = client.AuthorizationV1Api(api_client)
    with pytest.raises(ApiException) as caught:
        authz.create_subject_access_review({"spec": {}})
    assert caught.value.status == 422
    assert json.loads(caught.value.body)["message"] == (
        'SubjectAccessReview.authorization.k8s.io "" is invalid: ['
        "spec: Invalid value: null: exactly one of nonResourceAttributes or resourceAttributes "
        'must be specified, spec.user: Invalid value: "": at least one of user or group must be '
        "specified]"
    )
    with pytest.raises(ApiException) as caught:
        authz.create_namespaced_local_subject_access_review("default", {
            "metadata": {"namespace": "default"},
            "spec": {"user": "bob", "resourceAttributes": {"namespace": "other", "verb": "get"}}})
    assert caught.value.status == 422
    assert json.loads(caught.value.body)["message"].endswith(
        'spec.resourceAttributes.namespace: Invalid value: "other": must match metadata.namespace')
