"""N Bumble virtual controllers on one LocalLink, each serving H4 on a free loopback TCP port.

Usage: bumble_controllers.py COUNT
Prints {"event": "controller", "index": i, "port": p} per controller, then {"event": "ready"};
runs until SIGTERM.
"""

import asyncio
import socket
import sys

from bumble.controller import Controller
from bumble.link import LocalLink
from bumble.transport.tcp_server import open_tcp_server_transport_with_socket

from interop_common import emit, termination_future


async def main(count: int) -> None:
    link = LocalLink()
    transports = []
    controllers = []
    for index in range(count):
        # IPPROTO_TCP named explicitly: asyncio sets TCP_NODELAY on accepted sockets only then,
        # and without it Nagle holds each small HCI packet ~40 ms behind the previous one.
        listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(("127.0.0.1", 0))
        port = listener.getsockname()[1]
        transport = await open_tcp_server_transport_with_socket(listener)
        transports.append(transport)
        controllers.append(
            Controller(f"C{index}", host_source=transport.source, host_sink=transport.sink, link=link)
        )
        emit("controller", index=index, port=port)
    emit("ready")
    await termination_future()
    for transport in transports:
        await transport.close()


if __name__ == "__main__":
    asyncio.run(main(int(sys.argv[1]) if len(sys.argv) > 1 else 2))
