"""Access reviews and SelfSubjectReview: questions a create answers, never stored.

Through the in-process client (the same refusals the HTTP router gives), discovery, OpenAPI and
the protobuf decoder of the bodies ``kubectl auth`` sends.
"""

from __future__ import annotations

import pytest

from fakeapi.bootstrap import new_registry
from fakeapi.client import (
    LOCAL_SUBJECT_ACCESS_REVIEWS,
    SELF_SUBJECT_ACCESS_REVIEWS,
    SELF_SUBJECT_REVIEWS,
    SELF_SUBJECT_RULES_REVIEWS,
    SUBJECT_ACCESS_REVIEWS,
    Client,
    StatusError,
)
from fakeapi.clock import FakeClock
from fakeapi.resources import default_resources
from fakeapi.server import discovery, openapi
from fakeapi.server.inprocess import InProcessTransport
from fakeapi.server.protobuf import decode_kubernetes_protobuf

from ..support.protobuf_wire import envelope, ld


@pytest.fixture
def user() -> Client:
    return Client(InProcessTransport(new_registry(clock=FakeClock())), field_manager="test")


async def test_every_access_review_is_allowed_and_nothing_is_stored(user: Client) -> None:
    registry = user.transport.registry  # type: ignore[attr-defined]
    before = registry.resource_version
    answer = await user.create(SELF_SUBJECT_ACCESS_REVIEWS, body={"spec": {
        "resourceAttributes": {"verb": "delete", "group": "resource.k8s.io",
                               "resource": "resourceclaims", "namespace": "default"}}})
    assert answer["status"] == {"allowed": True}
    assert answer["spec"]["resourceAttributes"]["resource"] == "resourceclaims"
    assert answer["kind"] == "SelfSubjectAccessReview"
    answer = await user.create(SUBJECT_ACCESS_REVIEWS, body={"spec": {
        "user": "bob", "nonResourceAttributes": {"path": "/metrics", "verb": "get"}}})
    assert answer["status"] == {"allowed": True}
    answer = await user.create(LOCAL_SUBJECT_ACCESS_REVIEWS, namespace="default", body={
        "spec": {"groups": ["team"], "resourceAttributes": {"namespace": "default",
                                                            "verb": "get", "resource": "pods"}}})
    assert answer["metadata"]["namespace"] == "default"
    assert answer["status"] == {"allowed": True}
    assert registry.resource_version == before


async def test_the_rules_review_lists_everything_and_the_user_is_anonymous(user: Client) -> None:
    rules = await user.create(SELF_SUBJECT_RULES_REVIEWS, body={"spec": {"namespace": "default"}})
    assert rules["status"] == {
        "resourceRules": [{"verbs": ["*"], "apiGroups": ["*"], "resources": ["*"]}],
        "nonResourceRules": [{"verbs": ["*"], "nonResourceURLs": ["*"]}],
        "incomplete": False,
    }
    me = await user.create(SELF_SUBJECT_REVIEWS, body={})
    assert me["status"] == {"userInfo": {"username": "system:anonymous",
                                         "groups": ["system:unauthenticated"]}}


async def test_reviews_cannot_be_read_listed_watched_or_deleted(user: Client) -> None:
    for call in (
        user.list(SELF_SUBJECT_ACCESS_REVIEWS),
        user.delete_collection(SUBJECT_ACCESS_REVIEWS),
    ):
        with pytest.raises(StatusError) as caught:
            await call
        assert caught.value.code == 405
    with pytest.raises(StatusError) as caught:
        async for _ in user.watch(SELF_SUBJECT_REVIEWS):
            pass
    assert caught.value.code == 405
    with pytest.raises(StatusError) as caught:
        await user.get(SELF_SUBJECT_ACCESS_REVIEWS, name="anything")
    assert caught.value.code == 404


@pytest.mark.parametrize(("body", "message"), [
    ({"spec": {"user": "bob", "resourceAttributes": {"verb": "get"},
               "nonResourceAttributes": {"path": "/x", "verb": "get"}}},
     'spec: Invalid value: {"path":"/x","verb":"get"}: exactly one of nonResourceAttributes or '
     "resourceAttributes must be specified"),
    ({"spec": {"resourceAttributes": {"verb": "get"}}},
     'spec.user: Invalid value: "": at least one of user or group must be specified'),
])
async def test_an_invalid_subject_access_review_is_refused_with_upstreams_words(
    user: Client, body: dict[str, object], message: str
) -> None:
    with pytest.raises(StatusError) as caught:
        await user.create(SUBJECT_ACCESS_REVIEWS, body=body)
    assert caught.value.code == 422
    assert caught.value.message == (
        f'SubjectAccessReview.authorization.k8s.io "" is invalid: {message}')


async def test_a_local_review_must_ask_about_its_own_namespace(user: Client) -> None:
    with pytest.raises(StatusError) as caught:
        await user.create(LOCAL_SUBJECT_ACCESS_REVIEWS, namespace="default", body={"spec": {
            "user": "bob", "nonResourceAttributes": {"path": "/x", "verb": "get"}}})
    assert caught.value.message.endswith(
        'spec.nonResourceAttributes: Invalid value: {"path":"/x","verb":"get"}: '
        "disallowed on this kind of request")


def test_discovery_and_openapi_offer_create_only() -> None:
    table = default_resources()
    doc = discovery.aggregated_discovery(table, core=False)
    [authz] = [g for g in doc["items"] if g["metadata"]["name"] == "authorization.k8s.io"]
    verbs = {r["resource"]: r["verbs"] for r in authz["versions"][0]["resources"]}
    assert verbs == {name: ["create"] for name in (
        "localsubjectaccessreviews", "selfsubjectaccessreviews", "selfsubjectrulesreviews",
        "subjectaccessreviews")}
    paths = openapi.openapi_document(table, "authorization.k8s.io", "v1")
    assert paths is not None
    assert {p: sorted(set(ops) - {"parameters"}) for p, ops in paths["paths"].items()} == {
        "/apis/authorization.k8s.io/v1/namespaces/{namespace}/localsubjectaccessreviews": ["post"],
        "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews": ["post"],
        "/apis/authorization.k8s.io/v1/selfsubjectrulesreviews": ["post"],
        "/apis/authorization.k8s.io/v1/subjectaccessreviews": ["post"],
    }


def test_the_protobuf_review_of_kubectl_auth_can_i_is_read() -> None:
    attributes = (ld(1, "default") + ld(2, "create") + ld(3, "resource.k8s.io")
                  + ld(5, "resourceclaims"))
    spec = ld(1, attributes)
    status = ld(3, b"")  # Go writes the empty status; the server ignores it
    body = envelope("authorization.k8s.io/v1", "SelfSubjectAccessReview",
                    ld(1, b"") + ld(2, spec) + status)
    assert decode_kubernetes_protobuf(body) == {
        "apiVersion": "authorization.k8s.io/v1",
        "kind": "SelfSubjectAccessReview",
        "metadata": {},
        "spec": {"resourceAttributes": {"namespace": "default", "verb": "create",
                                        "group": "resource.k8s.io",
                                        "resource": "resourceclaims"}},
    }
