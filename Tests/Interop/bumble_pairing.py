"""A Bumble device that pairs (Core 5.4 Vol 3 Part H), in either role, printing JSON lines.

Usage:
  bumble_pairing.py central TRANSPORT OWN_ADDRESS PEER_ADDRESS [options]
      connects to PEER_ADDRESS, pairs, reads each --read UUID, disconnects
  bumble_pairing.py peripheral TRANSPORT OWN_ADDRESS [options]
      advertises and serves the protected service (a value that needs an authenticated link)
      to one central after another, pairing when asked; runs until SIGTERM

Options:
  --io NAME           no-input-no-output (default), display-only, display-yes-no,
                      keyboard-only, keyboard-display
  --legacy            LE legacy pairing (no Secure Connections bit)
  --no-mitm           do not ask for MITM protection
  --passkey N         the passkey this side displays, or types when it has a keyboard
  --reject            answer a numeric comparison with "no"
  --read UUID         (central) read this characteristic after pairing; repeatable
  --security-request  (peripheral) ask each central to pair (Security Request, §3.6.7)
  --corrupt-ltk-after N  (peripheral) after the Nth disconnection, replace the stored LTK with
                      another key: the next encryption from the central's bond must fail

Lines: "ready" (peripheral), "connection", "display" / "compare" / "passkey-request" with the
number, "pairing" (keys distributed), "pairing-failure" (reason), "encryption" (encrypted),
"read" (uuid, value or error), "keys-corrupted", "disconnection" (reason). Central exits 0 when
every step succeeded; a failed step prints {"event": "error", ...} and exits 1.
"""

import asyncio
import sys

from bumble import gatt, hci
from bumble.device import Device, DeviceConfiguration, Peer
from bumble.keys import MemoryKeyStore
from bumble.pairing import PairingConfig, PairingDelegate
from bumble.transport import open_transport

import interop_common as common
from interop_common import emit

STEP_TIMEOUT = 15.0

# The protected service: one value readable only on an authenticated (MITM) link.
PROTECTED_SERVICE_UUID = "C0DE0100-7B5A-4E3A-9C1B-53A0B1E0A000"
PROTECTED_UUID = "C0DE0101-7B5A-4E3A-9C1B-53A0B1E0A000"
PROTECTED_VALUE = bytes.fromhex("5345435245542d3432")  # "SECRET-42"

IO_CAPABILITIES = {
    "no-input-no-output": PairingDelegate.NO_OUTPUT_NO_INPUT,
    "display-only": PairingDelegate.DISPLAY_OUTPUT_ONLY,
    "display-yes-no": PairingDelegate.DISPLAY_OUTPUT_AND_YES_NO_INPUT,
    "keyboard-only": PairingDelegate.KEYBOARD_INPUT_ONLY,
    "keyboard-display": PairingDelegate.DISPLAY_OUTPUT_AND_KEYBOARD_INPUT,
}


class Options:
    def __init__(self, arguments: list[str]) -> None:
        self.io = "no-input-no-output"
        self.legacy = False
        self.mitm = True
        self.passkey: int | None = None
        self.reject = False
        self.reads: list[str] = []
        self.security_request = False
        self.corrupt_after: int | None = None
        self.positional: list[str] = []
        items = iter(arguments)
        for item in items:
            if item == "--io":
                self.io = next(items)
            elif item == "--legacy":
                self.legacy = True
            elif item == "--no-mitm":
                self.mitm = False
            elif item == "--passkey":
                self.passkey = int(next(items))
            elif item == "--reject":
                self.reject = True
            elif item == "--read":
                self.reads.append(next(items))
            elif item == "--security-request":
                self.security_request = True
            elif item == "--corrupt-ltk-after":
                self.corrupt_after = int(next(items))
            else:
                self.positional.append(item)


class Delegate(PairingDelegate):
    """Answers pairing's questions from the options, reporting each as a JSON line."""

    def __init__(self, options: Options) -> None:
        super().__init__(io_capability=IO_CAPABILITIES[options.io])
        self.options = options

    async def accept(self) -> bool:
        return True

    async def confirm(self, auto: bool = False) -> bool:
        return True

    async def compare_numbers(self, number: int, digits: int) -> bool:
        emit("compare", number=number)
        return not self.options.reject

    async def get_number(self) -> int | None:
        emit("passkey-request")
        return self.options.passkey

    async def display_number(self, number: int, digits: int) -> None:
        emit("display", number=number)

    async def generate_passkey(self) -> int:
        if self.options.passkey is not None:
            return self.options.passkey
        return await super().generate_passkey()


def make_device(transport, address: str, options: Options) -> Device:
    config = DeviceConfiguration(name="BumblePair", address=hci.Address(address))
    device = Device.from_config_with_hci(config, transport.source, transport.sink)
    device.keystore = MemoryKeyStore()
    device.pairing_config_factory = lambda connection: PairingConfig(
        sc=not options.legacy, mitm=options.mitm, bonding=True, delegate=Delegate(options)
    )
    return device


def follow(connection) -> asyncio.Future:
    """Reports the connection's security events; the future ends with the disconnection reason."""
    disconnected = asyncio.get_running_loop().create_future()
    emit("connection", peer=str(connection.peer_address), handle=connection.handle)
    connection.on("pairing", lambda keys: emit("pairing", ltk=keys.ltk is not None or keys.ltk_central is not None,
                                               irk=keys.irk is not None, csrk=keys.csrk is not None))
    connection.on("pairing_failure", lambda reason: emit("pairing-failure", reason=int(reason)))
    connection.on(
        "connection_encryption_change",
        lambda *args: emit("encryption", encrypted=bool(connection.is_encrypted),
                           authenticated=bool(connection.authenticated)),
    )

    def on_disconnection(reason) -> None:
        emit("disconnection", reason=reason)
        if not disconnected.done():
            disconnected.set_result(reason)

    connection.on("disconnection", on_disconnection)
    return disconnected


async def central(transport, own: str, peer_address: str, options: Options) -> int:
    device = make_device(transport, own, options)
    await device.power_on()
    connection = await device.connect(peer_address, timeout=STEP_TIMEOUT)
    disconnected = follow(connection)
    try:
        await asyncio.wait_for(connection.pair(), STEP_TIMEOUT)
        peer = Peer(connection)
        await asyncio.wait_for(peer.discover_all(), STEP_TIMEOUT)
        for uuid in options.reads:
            characteristic = next(
                c for s in peer.services for c in s.characteristics if str(c.uuid).upper() == uuid.upper()
            )
            value = await asyncio.wait_for(characteristic.read_value(), STEP_TIMEOUT)
            emit("read", uuid=uuid, value=bytes(value).hex())
    except Exception as error:  # report the failed step, then leave cleanly
        emit("error", message=f"{type(error).__name__}: {error}")
        if not disconnected.done():
            await connection.disconnect()
        return 1
    await connection.disconnect()
    await asyncio.wait_for(disconnected, STEP_TIMEOUT)
    return 0


async def peripheral(transport, own: str, options: Options) -> None:
    device = make_device(transport, own, options)
    protected = gatt.Characteristic(
        PROTECTED_UUID, gatt.Characteristic.Properties.READ,
        gatt.Characteristic.Permissions.READ_REQUIRES_AUTHENTICATION, PROTECTED_VALUE,
    )
    device.add_service(gatt.Service(PROTECTED_SERVICE_UUID, [protected]))
    connections = 0

    async def corrupt(address) -> None:
        keys = await device.keystore.get(str(address))
        if keys is None:
            emit("error", message=f"no keys for {address}")
            return
        for key in (keys.ltk, keys.ltk_central, keys.ltk_peripheral):
            if key is not None:
                key.value = bytes(15 - index for index in range(16))
        await device.keystore.update(str(address), keys)
        emit("keys-corrupted", peer=str(address))

    def on_connection(connection) -> None:
        nonlocal connections
        connections += 1
        disconnected = follow(connection)
        if options.security_request:
            device.request_pairing(connection)
        if options.corrupt_after == connections:
            disconnected.add_done_callback(
                lambda _: asyncio.get_running_loop().create_task(corrupt(connection.peer_address)))

    device.on("connection", on_connection)
    await device.power_on()
    await device.start_advertising(
        advertising_data=bytes([2, 0x01, 0x06, 11, 0x09]) + b"BumblePair", advertising_interval_min=50,
        advertising_interval_max=50, auto_restart=True,
    )
    emit("ready", address=own)
    await common.termination_future()


async def main(arguments: list[str]) -> int:
    options = Options(arguments)
    role, moniker, own, *rest = options.positional
    async with await open_transport(moniker) as transport:
        if role == "central":
            return await central(transport, own, rest[0], options)
        await peripheral(transport, own, options)
        return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main(sys.argv[1:])))
