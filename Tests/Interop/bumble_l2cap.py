"""A Bumble LE credit based channel peer (Core 5.4 Vol 3 Part A §4.22–§4.24), either role.

Usage:
  bumble_l2cap.py listen TRANSPORT ADDRESS PSM
      Advertises (as bumble_peripheral.py does) and serves PSM: every SDU received is reported
      and sent back on its channel.
  bumble_l2cap.py connect TRANSPORT OWN_ADDRESS PEER_ADDRESS PSM
      Connects to the peripheral, opens a channel to PSM, sends the test SDUs (short, longer than
      one K-frame, the peer's whole MTU), waits for each to come back, closes the channel and
      disconnects.

JSON lines: "ready", "connection", "channel" (peer MTU and MPS), "sdu" (hex) per SDU received,
"sent", "closed", "disconnected"; a failed step prints "error" and exits 1.
"""

import asyncio
import sys

from bumble import hci, l2cap
from bumble.device import Device, DeviceConfiguration
from bumble.transport import open_transport

import interop_common as common
from bumble_peripheral import advertising_data
from interop_common import emit

STEP_TIMEOUT = 10.0


def test_sdus(peer_mtu: int) -> list:
    """A short SDU, one longer than a K-frame of the default MPS, and one of the peer's MTU."""
    return [
        b"hello",
        bytes((index * 5 + 1) % 256 for index in range(600)),
        bytes((index * 3 + 7) % 256 for index in range(peer_mtu)),
    ]


def follow(channel) -> asyncio.Queue:
    received: asyncio.Queue = asyncio.Queue()

    def on_sdu(sdu: bytes) -> None:
        emit("sdu", value=bytes(sdu).hex(), length=len(sdu))
        received.put_nowait(bytes(sdu))

    channel.sink = on_sdu
    channel.on("close", lambda: emit("closed"))
    return received


async def listen(moniker: str, address: str, psm: int) -> int:
    async with await open_transport(moniker) as transport:
        config = DeviceConfiguration(name=common.LOCAL_NAME, address=hci.Address(address))
        device = Device.from_config_with_hci(config, transport.source, transport.sink)

        def on_channel(channel) -> None:
            emit("channel", mtu=channel.peer_mtu, mps=channel.peer_mps)
            channel.sink = lambda sdu: (emit("sdu", value=bytes(sdu).hex(), length=len(sdu)), channel.write(sdu))
            channel.on("close", lambda: emit("closed"))

        device.create_l2cap_server(spec=l2cap.LeCreditBasedChannelSpec(psm=psm), handler=on_channel)
        device.on("connection", lambda connection: emit("connection", peer=str(connection.peer_address)))
        await device.power_on()
        await device.start_advertising(
            advertising_data=advertising_data(), scan_response_data=b"", advertising_interval_min=50,
            advertising_interval_max=50, auto_restart=True,
        )
        emit("ready", address=address, psm=psm)
        await common.termination_future()
        return 0


async def connect(moniker: str, own_address: str, peer_address: str, psm: int) -> int:
    async with await open_transport(moniker) as transport:
        config = DeviceConfiguration(name="BumbleCentral", address=hci.Address(own_address))
        device = Device.from_config_with_hci(config, transport.source, transport.sink)
        await device.power_on()
        connection = await device.connect(peer_address, timeout=STEP_TIMEOUT)
        emit("connection", peer=str(connection.peer_address))
        disconnected = asyncio.get_running_loop().create_future()
        connection.on("disconnection", lambda reason: disconnected.done() or disconnected.set_result(reason))
        try:
            channel = await asyncio.wait_for(
                connection.create_l2cap_channel(spec=l2cap.LeCreditBasedChannelSpec(psm=psm)), STEP_TIMEOUT
            )
            emit("channel", mtu=channel.peer_mtu, mps=channel.peer_mps)
            received = follow(channel)
            for sdu in test_sdus(channel.peer_mtu):
                channel.write(sdu)
                await asyncio.wait_for(channel.drain(), STEP_TIMEOUT)
                emit("sent", length=len(sdu))
                echoed = await asyncio.wait_for(received.get(), STEP_TIMEOUT)
                if echoed != sdu:
                    raise ValueError(f"echo of {len(sdu)} octets came back as {len(echoed)} different octets")
            await asyncio.wait_for(channel.disconnect(), STEP_TIMEOUT)
        except Exception as error:
            emit("error", message=f"{type(error).__name__}: {error}")
            await connection.disconnect()
            return 1
        await connection.disconnect()
        reason = await asyncio.wait_for(disconnected, STEP_TIMEOUT)
        emit("disconnected", reason=reason)
        return 0


if __name__ == "__main__":
    arguments = sys.argv[1:]
    if arguments[0] == "listen":
        sys.exit(asyncio.run(listen(arguments[1], arguments[2], int(arguments[3], 0))))
    sys.exit(asyncio.run(connect(arguments[1], arguments[2], arguments[3], int(arguments[4], 0))))
