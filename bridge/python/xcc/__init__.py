"""Cross-context channels (bridge/docs/region-spec.md, bridge/docs/protocols.md) for host tooling.

Modules: ``xcc.frames`` (protobuf frame codec with the xcc.options bounds), ``xcc.region``
(the shared-memory region: rings, state table, counters), ``xcc.mgmt`` (the management client of
the rtdroid CLI), ``xcc.bundle`` (signed RT bundles).
"""

__version__ = "0.1.0"
