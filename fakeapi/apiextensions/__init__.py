"""CustomResourceDefinitions: kinds added to the API at run time, served as built-in kinds are.

kube-apiserver's apiextensions server, in fakeapi's shapes. A CustomResourceDefinition is an
object like any other (its strategy: :mod:`.definition_strategy`); what it defines
becomes rows of the one resource table (:mod:`.serving`), derived from the stored definitions
whenever they change, so the custom resources go through the same store, handlers, discovery
and OpenAPI as the built-in kinds. The controllers kube-apiserver runs for definitions (names,
establishing, API approval, deleting the instances of a deleted definition) are in
:mod:`.controllers`.

The schema machinery follows upstream module by module: structural schemas
(:mod:`.structural`), validation of objects (:mod:`.openapi_validation`, formats in
:mod:`.formats`), pruning (:mod:`.pruning`), defaulting (:mod:`.defaulting`), list types
(:mod:`.listtypes`), embedded resources (:mod:`.objectmeta`) and CEL rules (:mod:`.rules`, types
in :mod:`.celtypes`); the definition's own validation is :mod:`.crd_validation`.
"""
