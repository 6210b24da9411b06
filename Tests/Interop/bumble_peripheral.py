"""A Bumble peripheral: advertises a name and manufacturer data and serves the test service.

Usage: bumble_peripheral.py TRANSPORT ADDRESS
  TRANSPORT  a Bumble transport moniker for its controller, e.g. tcp-client:127.0.0.1:9001
  ADDRESS    its random static address, e.g. C4:00:00:00:00:01

JSON lines on stdout: "ready" with the attribute database as its server numbered it ("services",
grouped as `ble gatt-dump --json` prints them, properties as the declaration's bits); "connection", "mtu", "encryption", "disconnection";
"write" (Write Request or an executed long write: the whole value), "prepare-write" (each
Prepare Write Request's offset and length), "write-without-response"; "subscribed", and
"notified"/"indicated" per value sent (indications after their confirmation). Advertises again
after each disconnection, so that one central after another can connect. Runs until SIGTERM.
"""

import asyncio
import struct
import sys

from bumble import att, gatt, hci
from bumble.device import Device, DeviceConfiguration
from bumble.transport import open_transport

import interop_common as common
from interop_common import emit


def advertising_data() -> bytes:
    """Flags, complete local name and manufacturer data (CSS Part A §1.3, §1.2, §1.4)."""
    name = common.LOCAL_NAME.encode()
    manufacturer = struct.pack("<H", common.MANUFACTURER_COMPANY) + common.MANUFACTURER_DATA
    return (
        bytes([2, 0x01, 0x06])
        + bytes([len(name) + 1, 0x09]) + name
        + bytes([len(manufacturer) + 1, 0xFF]) + manufacturer
    )


def make_service(device: Device) -> gatt.Service:
    def on_write(connection, value: bytes) -> None:
        emit("write", value=value.hex())

    def on_write_without_response(connection, value: bytes) -> None:
        emit("write-without-response", value=value.hex())

    props = gatt.Characteristic.Properties
    readable = gatt.Characteristic.Permissions.READABLE
    writeable = gatt.Characteristic.Permissions.WRITEABLE
    long_read = gatt.Characteristic(common.LONG_READ_UUID, props.READ, readable, common.LONG_VALUE)
    write = gatt.Characteristic(
        common.WRITE_UUID, props.READ | props.WRITE, readable | writeable,
        gatt.CharacteristicValue(read=lambda connection: b"", write=on_write),
    )
    write_without_response = gatt.Characteristic(
        common.WRITE_WITHOUT_RESPONSE_UUID, props.WRITE_WITHOUT_RESPONSE, writeable,
        gatt.CharacteristicValue(write=on_write_without_response),
    )
    notify = gatt.Characteristic(common.NOTIFY_UUID, props.NOTIFY, readable, b"")
    indicate = gatt.Characteristic(common.INDICATE_UUID, props.INDICATE, readable, b"")

    async def send_notifications(bearer) -> None:
        for index in range(common.UPDATE_COUNT):
            value = common.notification_value(index)
            await device.gatt_server.notify_subscriber(bearer, notify, value)
            emit("notified", value=value.hex())

    async def send_indications(bearer) -> None:
        for index in range(common.UPDATE_COUNT):
            value = common.indication_value(index)
            await device.gatt_server.indicate_subscriber(bearer, indicate, value)
            emit("indicated", value=value.hex())

    def on_notify_subscription(bearer, notify_enabled: bool, indicate_enabled: bool) -> None:
        emit("subscribed", characteristic=common.NOTIFY_UUID, enabled=notify_enabled)
        if notify_enabled:
            asyncio.get_running_loop().create_task(send_notifications(bearer))

    def on_indicate_subscription(bearer, notify_enabled: bool, indicate_enabled: bool) -> None:
        emit("subscribed", characteristic=common.INDICATE_UUID, enabled=indicate_enabled)
        if indicate_enabled:
            asyncio.get_running_loop().create_task(send_indications(bearer))

    notify.on(gatt.Characteristic.EVENT_SUBSCRIPTION, on_notify_subscription)
    indicate.on(gatt.Characteristic.EVENT_SUBSCRIPTION, on_indicate_subscription)
    return gatt.Service(common.SERVICE_UUID, [long_read, write, write_without_response, notify, indicate])


def record_prepared_writes(device: Device) -> None:
    """Reports each Prepare Write Request (Core 5.4 Vol 3 Part F §3.4.6.1) before the server
    queues it, so a test can tell a long write from a single Write Request."""
    server = device.gatt_server
    queue_part = server.on_att_prepare_write_request

    def on_prepare(bearer, request: att.ATT_Prepare_Write_Request) -> None:
        emit("prepare-write", offset=request.value_offset, length=len(request.part_attribute_value))
        queue_part(bearer, request)

    server.on_att_prepare_write_request = on_prepare


def database(device: Device) -> list:
    """The server's attributes by service, with their handles (Core 5.4 Vol 3 Part G §3)."""
    services: list = []
    for attribute in device.gatt_server.attributes:
        if isinstance(attribute, gatt.Service):
            services.append({
                "uuid": attribute.uuid.to_hex_str("-"), "start": attribute.handle,
                "end": attribute.end_group_handle, "characteristics": [],
            })
        elif isinstance(attribute, gatt.CharacteristicDeclaration):
            services[-1]["characteristics"].append({"declaration": attribute.handle, "descriptors": []})
        elif isinstance(attribute, gatt.Characteristic):
            services[-1]["characteristics"][-1].update(
                uuid=attribute.uuid.to_hex_str("-"), value=attribute.handle, properties=int(attribute.properties)
            )
        elif isinstance(attribute, gatt.Descriptor):
            services[-1]["characteristics"][-1]["descriptors"].append(
                {"uuid": attribute.type.to_hex_str("-"), "handle": attribute.handle}
            )
    return services


def follow_connections(device: Device) -> None:
    def on_connection(connection) -> None:
        emit("connection", peer=str(connection.peer_address), handle=connection.handle)
        connection.on("disconnection", lambda reason: emit("disconnection", reason=reason))
        connection.on("connection_att_mtu_update", lambda: emit("mtu", mtu=connection.att_mtu))
        connection.on(
            "connection_encryption_change",
            lambda *args: emit("encryption", encrypted=bool(connection.is_encrypted)),
        )

    device.on("connection", on_connection)


async def main(moniker: str, address: str) -> None:
    async with await open_transport(moniker) as transport:
        config = DeviceConfiguration(name=common.LOCAL_NAME, address=hci.Address(address))
        device = Device.from_config_with_hci(config, transport.source, transport.sink)
        device.add_service(make_service(device))
        record_prepared_writes(device)
        follow_connections(device)
        await device.power_on()
        await device.start_advertising(
            advertising_data=advertising_data(), scan_response_data=b"", advertising_interval_min=50,
            advertising_interval_max=50, auto_restart=True,
        )
        emit("ready", address=address, services=database(device))
        await common.termination_future()


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2]))
