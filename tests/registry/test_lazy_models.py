"""Resource rows name their model; the model module loads when the kind's schema is first needed.

Checked in a fresh interpreter, since this test process has long since imported every model.
"""

from __future__ import annotations

import subprocess
import sys

import pytest
from pydantic import BaseModel

from fakeapi.models.core import Namespace
from fakeapi.registry.resource_table import ResourceType
from fakeapi.registry.strategy import Strategy
from fakeapi.resources import default_resources


def test_every_row_names_a_model_that_exists() -> None:
    for rt in default_resources():
        assert issubclass(rt.model, BaseModel), rt.key
        assert rt.model.__name__ == rt.kind, rt.key


def test_a_row_takes_a_class_or_a_name_of_one() -> None:
    by_class = ResourceType("", "v1", "Namespace", "namespaces", False, Namespace, Strategy())
    by_name = ResourceType(
        "", "v1", "Namespace", "namespaces", False, "fakeapi.models.core:Namespace", Strategy()
    )
    assert by_class.model is by_name.model is Namespace
    assert by_class.schema is by_name.schema


def test_a_name_that_is_not_a_model_is_an_error_when_read() -> None:
    row = ResourceType("", "v1", "Thing", "things", False, "fakeapi.resources:ResourceType",
                       Strategy())
    with pytest.raises(TypeError, match="not a pydantic model"):
        row.model  # noqa: B018


_FRESH_REGISTRY = """
import sys
from fakeapi.bootstrap import new_registry
from fakeapi.registry.options import WriteOptions
registry = new_registry()
before = {m for m in sys.modules if m.startswith("fakeapi.models.")}
pods = registry.resources.lookup("", "v1", "pods")
registry.create(pods, "default", {"metadata": {"name": "p"},
                "spec": {"containers": [{"name": "c", "image": "i"}]}}, WriteOptions())
after = {m for m in sys.modules if m.startswith("fakeapi.models.")}
print(",".join(sorted(before)))
print(",".join(sorted(after - before)))
"""


def test_a_fresh_registry_loads_the_pod_types_with_the_first_pod() -> None:
    result = subprocess.run(
        [sys.executable, "-c", _FRESH_REGISTRY], capture_output=True, text=True, check=True
    )
    before, loaded = (set(line.split(",")) for line in result.stdout.splitlines())
    assert "fakeapi.models.core" in before  # the system namespaces were created
    assert "fakeapi.models.pod" not in before
    assert "fakeapi.models.resource_claim" not in before
    assert "fakeapi.models.pod" in loaded
