"""The parts of the ``fakeapi`` command line that are more than a flag: one module per concern.

:mod:`fakeapi.cli` parses the command line and runs the commands; what a command needs beyond
that lives here, imported only when the command runs (``fakeapi --help`` loads none of it):

- :mod:`.profiles` — ``fakeapi profiles``: list and show the shipped driver profiles.
- :mod:`.security` — kube-apiserver's security flags of ``fakeapi serve`` and ``sandbox``: read,
  checked, a serving certificate made when needed, and the warning for an open address.
- :mod:`.watch` — ``fakeapi sandbox -v``: the components' steps and the cluster's events as one
  line each, as text, JSON or (on a terminal) with ``rich``.

Like :mod:`fakeapi.cli` and :mod:`fakeapi.cluster`, these modules may wire the core and the
components together; the core never imports them.
"""
