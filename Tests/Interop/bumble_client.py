"""A Bumble central that runs a list of GATT steps against any server, printing JSON lines.

Usage: bumble_client.py TRANSPORT OWN_ADDRESS PEER_ADDRESS STEP...
  TRANSPORT     a Bumble transport moniker for its controller (tcp-client:127.0.0.1:PORT)
  OWN_ADDRESS   its random static address
  PEER_ADDRESS  the peripheral's address (random; append /P for a public address)
  STEP          one of, run in order:
    read:UUID                 read a characteristic of a primary service (long values whole)
    read-by-type:UUID         Read Using Characteristic UUID over every handle (secondary
                              services too; Core 5.4 Vol 3 Part G §4.8.2)
    write:UUID:HEX            Write Characteristic Value (a long write when it does not fit)
    write-command:UUID:HEX    Write Without Response
    subscribe:UUID            notifications if the characteristic notifies, else indications
    await:UUID:COUNT          wait until COUNT values of UUID have arrived since subscribing

Lines: "connected", "mtu", "services" (primary service UUIDs), one per step ("read" with the
value, "read-by-type" with the values, "write", "write-command", "subscribed", "value" per
value awaited), then "disconnected" with the reason. Exits 0 when every step succeeded; a failed
step prints {"event": "error", ...} and exits 1.
"""

import asyncio
import sys

from bumble import core, hci
from bumble.device import Device, DeviceConfiguration, Peer
from bumble.transport import open_transport

from interop_common import emit

# A step waits at most this long (only to keep a broken run from hanging).
STEP_TIMEOUT = 10.0


def uuid_of(text: str) -> core.UUID:
    return core.UUID(text)


class Client:
    def __init__(self, peer: Peer) -> None:
        self.peer = peer
        self.received: dict[str, asyncio.Queue] = {}

    def characteristic(self, text: str):
        wanted = uuid_of(text)
        for service in self.peer.services:
            for characteristic in service.characteristics:
                if characteristic.uuid == wanted:
                    return characteristic
        raise LookupError(f"characteristic {text} not found")

    async def run(self, step: str) -> None:
        kind, _, rest = step.partition(":")
        if kind == "read":
            value = await self.characteristic(rest).read_value()
            emit("read", uuid=rest, value=bytes(value).hex())
        elif kind == "read-by-type":
            values = await self.peer.read_characteristics_by_uuid(uuid_of(rest))
            emit("read-by-type", uuid=rest, values=[bytes(value).hex() for value in values])
        elif kind in ("write", "write-command"):
            uuid, _, text = rest.rpartition(":")
            value = bytes.fromhex(text)
            await self.characteristic(uuid).write_value(value, with_response=kind == "write")
            emit(kind, uuid=uuid, value=value.hex())
        elif kind == "subscribe":
            queue = self.received.setdefault(rest, asyncio.Queue())
            await self.peer.subscribe(self.characteristic(rest), lambda value: queue.put_nowait(bytes(value)))
            emit("subscribed", uuid=rest)
        elif kind == "await":
            uuid, _, count = rest.rpartition(":")
            queue = self.received[uuid]
            for _ in range(int(count)):
                value = await queue.get()
                emit("value", uuid=uuid, value=value.hex())
        else:
            raise ValueError(f"unknown step {step}")


async def main(arguments: list[str]) -> int:
    moniker, own_address, peer_address, *steps = arguments
    async with await open_transport(moniker) as transport:
        config = DeviceConfiguration(name="BumbleClient", address=hci.Address(own_address))
        device = Device.from_config_with_hci(config, transport.source, transport.sink)
        await device.power_on()
        connection = await device.connect(peer_address, timeout=STEP_TIMEOUT)
        emit("connected", peer=str(connection.peer_address), handle=connection.handle)
        disconnected = asyncio.get_running_loop().create_future()
        connection.on("disconnection", lambda reason: disconnected.done() or disconnected.set_result(reason))
        try:
            peer = Peer(connection)
            mtu = await asyncio.wait_for(peer.request_mtu(247), STEP_TIMEOUT)
            emit("mtu", mtu=mtu)
            await asyncio.wait_for(peer.discover_all(), STEP_TIMEOUT)
            emit("services", uuids=[str(service.uuid) for service in peer.services])
            client = Client(peer)
            for step in steps:
                await asyncio.wait_for(client.run(step), STEP_TIMEOUT)
        except Exception as error:  # report the failed step, then leave cleanly
            emit("error", message=f"{type(error).__name__}: {error}")
            await connection.disconnect()
            return 1
        await connection.disconnect()
        reason = await asyncio.wait_for(disconnected, STEP_TIMEOUT)
        emit("disconnected", reason=reason)
        return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main(sys.argv[1:])))
