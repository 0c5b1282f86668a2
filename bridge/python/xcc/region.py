"""The cross-context region of bridge/docs/region-spec.md (layout version 1), for host tooling.

One import for the whole region; the code is in four modules:
- ``xcc.layout``: the descriptor's constants (generated from bridge/layout/region-layout.toml),
  ``RegionLayout`` (geometry and every offset), ``validate_header``, ``RegionError``;
- ``xcc.format``: ``format``, ``format_in_place``, ``format_image`` (the board's job);
- ``xcc.peer``: ``attach_cell``, ``attach_management``, ``open_region``, ``Region`` with its
  ``Producer`` and ``Consumer`` rings and self-healing, ``data_ring_for``;
- ``xcc.dump``: the generic counters view (``counters``) and ``dump`` (what ``rtdroid stats``
  prints);
and ``xcc.memory`` (``Mapping``, aligned ``Words``; the memory-ordering note).
"""

from .dump import CounterValue, counters, dump  # noqa: F401
from .format import format, format_buffer, format_image, format_in_place, header_bytes  # noqa: F401,A004
from .layout import *  # noqa: F401,F403  constants: MAGIC, RT_PEER, STATE_READY, <FIELD>_OFFSET, COUNTERS, ...
from .layout import (CONSUMER_FIELDS, PRODUCER_FIELDS, STATE_FIELDS, U64_MAX, RegionError,  # noqa: F401
                     RegionLayout, header_crc, validate_header)
from .memory import Mapping, Words  # noqa: F401
from .peer import (POLL_CORRUPT, POLL_EMPTY, POLL_FRAME, POLL_RESYNC, Consumer, Producer, Region,  # noqa: F401
                   attach_cell, attach_management, data_ring_for, open_region)
