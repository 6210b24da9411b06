"""A Bumble central: connects to a peripheral and runs GATT procedures, printing JSON lines.

Usage: bumble_central.py TRANSPORT OWN_ADDRESS PEER_ADDRESS [--pair] [--dump]
  TRANSPORT     a Bumble transport moniker for its controller (tcp-client:127.0.0.1:PORT)
  OWN_ADDRESS   its random static address
  PEER_ADDRESS  the peripheral's address (random; append /P for a public address)
  --pair        pair (LE Secure Connections, Just Works) and encrypt before the GATT work
  --dump        discover everything and read every readable value (any database), instead of
                the test service's procedures

Lines: "connected", "mtu", "encryption", then for the test service: "services",
"read" (long value), "write", "long-write", "write-without-response", "notification" and
"indication" per value received, and "disconnected" with the reason; for --dump:
"service"/"characteristic"/"descriptor" per attribute with values. Exits 0 when every step
succeeded; a failed step prints {"event": "error", ...} and exits 1.
"""

import asyncio
import sys

from bumble import hci
from bumble.device import Device, DeviceConfiguration, Peer
from bumble.transport import open_transport

import interop_common as common
from interop_common import emit

# Steps wait at most this long (only to keep a broken run from hanging).
STEP_TIMEOUT = 10.0


def find(service, uuid: str):
    for characteristic in service.characteristics:
        if str(characteristic.uuid).upper() == uuid.upper():
            return characteristic
    raise LookupError(f"characteristic {uuid} not found")


async def run_test_service(peer: Peer) -> None:
    services = await peer.discover_services()
    emit("services", uuids=[str(service.uuid) for service in services])
    service = next(s for s in services if str(s.uuid).upper() == common.SERVICE_UUID.upper())
    await service.discover_characteristics()

    value = await find(service, common.LONG_READ_UUID).read_value()
    emit("read", value=bytes(value).hex(), matches=bytes(value) == common.LONG_VALUE)

    write = find(service, common.WRITE_UUID)
    short_value = bytes([0x57, 0x01, 0x02])
    await write.write_value(short_value, with_response=True)
    emit("write", value=short_value.hex())
    long_value = bytes(index % 251 for index in range(400))
    await write.write_value(long_value, with_response=True)
    emit("long-write", value=long_value.hex())

    command_value = bytes([0x43, 0x4D, 0x44])
    await find(service, common.WRITE_WITHOUT_RESPONSE_UUID).write_value(command_value, with_response=False)
    emit("write-without-response", value=command_value.hex())

    received = {"notification": asyncio.Queue(), "indication": asyncio.Queue()}
    await peer.subscribe(
        find(service, common.NOTIFY_UUID), lambda value: received["notification"].put_nowait(bytes(value))
    )
    await peer.subscribe(
        find(service, common.INDICATE_UUID),
        lambda value: received["indication"].put_nowait(bytes(value)),
        prefer_notify=False,
    )
    for kind, queue in received.items():
        for _ in range(common.UPDATE_COUNT):
            value = await asyncio.wait_for(queue.get(), STEP_TIMEOUT)
            emit(kind, value=value.hex())


async def dump(peer: Peer) -> None:
    await peer.discover_all()
    for service in peer.services:
        emit("service", uuid=str(service.uuid), handle=service.handle, end=service.end_group_handle)
        for characteristic in service.characteristics:
            fields = {"uuid": str(characteristic.uuid), "handle": characteristic.handle,
                      "properties": int(characteristic.properties)}
            if characteristic.properties & 0x02:
                fields["value"] = bytes(await characteristic.read_value()).hex()
            emit("characteristic", **fields)
            for descriptor in characteristic.descriptors:
                emit("descriptor", uuid=str(descriptor.type), handle=descriptor.handle,
                     value=bytes(await descriptor.read_value()).hex())


async def main(arguments: list[str]) -> int:
    flags = {argument for argument in arguments if argument.startswith("--")}
    moniker, own_address, peer_address = [argument for argument in arguments if not argument.startswith("--")]
    async with await open_transport(moniker) as transport:
        config = DeviceConfiguration(name="BumbleCentral", address=hci.Address(own_address))
        device = Device.from_config_with_hci(config, transport.source, transport.sink)
        await device.power_on()
        connection = await device.connect(peer_address, timeout=STEP_TIMEOUT)
        emit("connected", peer=str(connection.peer_address), handle=connection.handle)
        disconnected = asyncio.get_running_loop().create_future()
        connection.on("disconnection", lambda reason: disconnected.done() or disconnected.set_result(reason))
        try:
            if "--pair" in flags:
                await asyncio.wait_for(connection.pair(), STEP_TIMEOUT)
                emit("encryption", encrypted=bool(connection.is_encrypted))
            peer = Peer(connection)
            mtu = await asyncio.wait_for(peer.request_mtu(247), STEP_TIMEOUT)
            emit("mtu", mtu=mtu)
            if "--dump" in flags:
                await asyncio.wait_for(dump(peer), STEP_TIMEOUT)
            else:
                await asyncio.wait_for(run_test_service(peer), STEP_TIMEOUT)
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
