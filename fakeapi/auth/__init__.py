"""Who may do what: authentication, authorization and the bootstrap RBAC policy.

kube-apiserver's security model, for the parts a DRA cluster exercises, all off unless asked
for (``fakeapi serve``/``sandbox`` flags, ``Cluster(authorization=...)``):

- :mod:`.user` — who a request comes from (``UserInfo``) and the well-known names;
- :mod:`.authentication` — client certificates, bearer tokens from ``--token-auth-file``,
  anonymous requests; :mod:`.impersonation` — ``kubectl --as``;
- :mod:`.attributes` and :mod:`.request_info` — what a request asks, as the authorizers see it,
  and upstream's 403 message;
- :mod:`.authorizer` — the ``--authorization-mode`` chain; :mod:`.rbac` and :mod:`.rules` — RBAC;
  :mod:`.node` — the Node authorizer; :mod:`.watched` — the indexes they keep of stored objects;
- :mod:`.policy` — the bootstrap ClusterRoles and ClusterRoleBindings (data in ``data/``);
- :mod:`.settings` — kube-apiserver's security flags as one value; :mod:`.serving_cert` — the
  self-signed serving certificate of a server that authenticates without one.

The server's filters (:mod:`fakeapi.server.authfilter`), the in-process transport, NodeRestriction
admission and the reviews use these modules; they import nothing of the registry or the server.
"""

__all__: list[str] = []
