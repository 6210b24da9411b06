"""Shared pieces of the interop peers: the test service's UUIDs and values, JSON-line output,
and running until SIGTERM.

Every peer prints one JSON object per line on stdout, flushed, so the Swift tests can follow
what happens as it happens. The first line of a long-running peer is {"event": "ready", ...}.
"""

import asyncio
import json
import signal
import sys

# The test service (128-bit UUIDs of our own).
SERVICE_UUID = "C0DE0000-7B5A-4E3A-9C1B-53A0B1E0A000"
LONG_READ_UUID = "C0DE0001-7B5A-4E3A-9C1B-53A0B1E0A000"
WRITE_UUID = "C0DE0002-7B5A-4E3A-9C1B-53A0B1E0A000"
WRITE_WITHOUT_RESPONSE_UUID = "C0DE0003-7B5A-4E3A-9C1B-53A0B1E0A000"
NOTIFY_UUID = "C0DE0004-7B5A-4E3A-9C1B-53A0B1E0A000"
INDICATE_UUID = "C0DE0005-7B5A-4E3A-9C1B-53A0B1E0A000"

# A readable value longer than any single ATT response (Read Blob is needed to get it all).
LONG_VALUE = bytes((index * 7 + 3) % 256 for index in range(300))
# Values sent to a subscriber, in this order, as soon as it subscribes.
UPDATE_COUNT = 3
MANUFACTURER_COMPANY = 0x05F1
MANUFACTURER_DATA = bytes([0x49, 0x4F, 0x50])
LOCAL_NAME = "BumblePeer"


def notification_value(index: int) -> bytes:
    return bytes([0x4E, index])


def indication_value(index: int) -> bytes:
    return bytes([0x49, index])


def emit(event: str, **fields) -> None:
    """Prints one JSON line and flushes it."""
    fields = {"event": event, **fields}
    sys.stdout.write(json.dumps(fields, sort_keys=True) + "\n")
    sys.stdout.flush()


def termination_future() -> asyncio.Future:
    """A future that completes on SIGTERM or SIGINT."""
    loop = asyncio.get_running_loop()
    done = loop.create_future()
    for number in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(number, lambda: done.done() or done.set_result(None))
    return done
