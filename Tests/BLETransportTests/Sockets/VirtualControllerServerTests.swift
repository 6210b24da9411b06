import BLEController
import BLEHost
import BLETestSupport
import BLEVirtualHCI
import BLEWire
import Foundation
import Testing

@testable import BLETransport

/// Virtual controllers served over HCI (H4 over TCP and UNIX sockets, Core 5.4 Vol 4 Part A §2)
/// to our own hosts, which cannot tell them from a chip on a wire. The radio is paced to the
/// wall clock; the tests wait for events, never for durations.
@Suite("Virtual controllers served over HCI sockets", .timeLimit(.minutes(1)))
struct VirtualControllerServerTests {
    static let loopback = TransportMoniker.tcpServer(host: "127.0.0.1", port: 0)

    static func database() throws -> AttributeDatabase {
        try AttributeDatabase(
            gap: GAPServiceConfiguration(deviceName: "swift-ble over TCP"),
            services: [
                GATTService(
                    uuid: 0x180F,
                    characteristics: [
                        GATTCharacteristic(
                            uuid: 0x2A19, properties: [.read], permissions: .readable, value: .stored([87]))
                    ])
            ])
    }

    @Test("Two hosts over TCP: both start, one advertises, the other connects, MTU exchange, a GATT read")
    func twoHostsOverTCP() async throws {
        try await withServedControllers([Self.loopback, Self.loopback]) { served in
            let ports = served.listeners.map { listener -> UInt16 in
                guard case .tcpServer(_, let port) = listener.moniker else { return 0 }
                return port
            }
            #expect(ports.allSatisfy { $0 != 0 })
            #expect(Set(ports).count == 2)

            let peripheral = try await served.host(on: 0)
            let central = try await served.host(on: 1)
            // The initialisation sequence (Reset, identity, buffers, masks) completes over TCP.
            try await peripheral.start()
            try await central.start()
            #expect(await peripheral.controllerInfo.address == served.address(0))
            #expect(await central.controllerInfo.address == served.address(1))
            #expect(await central.controllerInfo.aclBufferSize == 251)

            await peripheral.setATTServer(GATTServerHandler(server: GATTServer(database: try Self.database())))
            var peripheralEvents = peripheral.events.makeAsyncIterator()
            var centralEvents = central.events.makeAsyncIterator()
            try await peripheral.advertise()
            try await central.connect(to: served.address(0))
            let centralHandle = try await nextConnection(&centralEvents)
            let peripheralHandle = try await nextConnection(&peripheralEvents)

            #expect(try await central.exchangeMTU(on: centralHandle) == 247)
            #expect(await peripheral.attMTU(on: peripheralHandle) == 247)
            let client = GATTClient(bearer: HostATTBearer(host: central, connection: centralHandle))
            let database = try await client.discoverDatabase()
            #expect(database.map(\.service.uuid) == [0x1800, 0x1801, 0x180F])
            let battery = try #require(database.first { $0.service.uuid == 0x180F }?.characteristics.first)
            #expect(try await client.readValue(handle: battery.characteristic.valueHandle) == [87])

            await central.disconnect(centralHandle, reason: .remoteUserTerminatedConnection)
            let reason = await first(&peripheralEvents) { event -> HCIStatus? in
                if case .disconnected(_, let reason) = event { return reason }
                return nil
            }
            #expect(reason == .remoteUserTerminatedConnection)
        }
    }

    @Test(
        "A garbage stream closes that client only: the controller reports the framing failure, other listeners run on")
    func garbageClosesOnlyThatClient() async throws {
        try await withServedControllers([Self.loopback, Self.loopback]) { served in
            var serverEvents = served.server.events.makeAsyncIterator()
            let bystander = try await served.host(on: 1)
            try await bystander.start()

            guard case .tcpServer(let host, let port) = served.listeners[0].moniker else { return }
            let raw = try await TCPClientTransport.connect(host: host, port: port)
            // 0xFF is no packet indicator (Vol 4 Part A §2): the stream cannot be framed.
            try await raw.write(raw: [0xFF, 0x01, 0x02])
            let failure = await first(&serverEvents) { event -> VirtualController.TransportFailure? in
                if case .transportFailed(0, let failure) = event { return failure }
                return nil
            }
            #expect(failure == .framing(.unknownPacketType(octet: 0xFF, offset: 0)))
            // The server closes the socket: the client sees its peer hang up.
            var rawPackets = raw.packets.makeAsyncIterator()
            #expect(await SocketTransportTests.ending(of: &rawPackets) as? HCITransportError == .closed)
            let released = await first(&serverEvents) { event -> VirtualControllerServer.ReleaseReason? in
                if case .released(0, let reason) = event { return reason }
                return nil
            }
            #expect(released == .disconnected)
            await raw.close()

            // The other controller's host never noticed.
            #expect(try await bystander.send(HCI.ReadBDADDR()).bdAddr == served.address(1))
            // And the failed listener serves its next client from a clean stream.
            let next = try await served.host(on: 0)
            try await next.start()
            #expect(await next.controllerInfo.address == served.address(0))
        }
    }

    @Test("A client that disconnects releases its controller: its link drops as after a reset, the next starts clean")
    func disconnectReleasesTheController() async throws {
        try await withServedControllers([Self.loopback, Self.loopback]) { served in
            var serverEvents = served.server.events.makeAsyncIterator()
            let peer = try await served.host(on: 1)
            let leaving = try await served.host(on: 0)
            try await peer.start()
            try await leaving.start()
            var peerEvents = peer.events.makeAsyncIterator()
            var leavingEvents = leaving.events.makeAsyncIterator()
            try await peer.advertise()
            // A short supervision timeout (100 ms) so the peer notices the silence soon.
            try await leaving.connect(to: served.address(1), supervisionTimeout: 10)
            let handle = try await nextConnection(&leavingEvents)
            _ = try await nextConnection(&peerEvents)
            // Data both ways: the link is established (a silent link before that fails with 0x3E).
            #expect(try await leaving.exchangeMTU(on: handle) == 247)
            #expect(await served.listeners[0].port.withController { $0.connectionHandles.count } == 1)

            // The host goes away without a word on air: its transport closes.
            await leaving.stop()
            let released = await first(&serverEvents) { event -> VirtualControllerServer.ReleaseReason? in
                if case .released(0, let reason) = event { return reason }
                return nil
            }
            #expect(released == .disconnected)
            let state = await served.listeners[0].port.withController {
                ($0.connectionHandles, $0.isAdvertising, $0.isScanning, $0.isInitiating)
            }
            #expect(state.0.isEmpty)
            #expect(!state.1 && !state.2 && !state.3)
            // The reset controller went silent: the peer's link times out (Vol 6 Part B §4.5.2).
            let reason = await first(&peerEvents) { event -> HCIStatus? in
                if case .disconnected(_, let reason) = event { return reason }
                return nil
            }
            #expect(reason == .connectionTimeout)

            // The next client gets the controller and can connect to the peer again.
            let next = try await served.host(on: 0)
            try await next.start()
            #expect(await next.controllerInfo.address == served.address(0))
            var nextEvents = next.events.makeAsyncIterator()
            try await peer.advertise()
            try await next.connect(to: served.address(1))
            _ = try await nextConnection(&nextEvents)
        }
    }

    @Test("A new client replaces the current one: the old socket closes, the controller is reset, the new host starts")
    func newClientReplacesTheCurrentOne() async throws {
        try await withServedControllers([Self.loopback]) { served in
            var serverEvents = served.server.events.makeAsyncIterator()
            let first = try await served.host(on: 0)
            try await first.start()
            try await first.advertise()
            var firstEvents = first.events.makeAsyncIterator()

            let second = try await served.host(on: 0)
            let released = await BLETransportTests.first(&serverEvents) {
                event -> VirtualControllerServer.ReleaseReason? in
                if case .released(0, let reason) = event { return reason }
                return nil
            }
            #expect(released == .replaced)
            // The first host's transport ended, so the host stopped and its events finished.
            while await firstEvents.next() != nil {}
            try await second.start()
            #expect(await second.controllerInfo.address == served.address(0))
            // Advertising parameters are accepted again: the first host's advertising is gone.
            try await second.advertise()
        }
    }

    @Test("A host starts over a UNIX socket; closing the server removes the socket file")
    func unixSocketStart() async throws {
        let path = FileManager.default.temporaryDirectory.path + "/swift-ble-\(UInt32.random(in: 0...UInt32.max)).sock"
        try await withServedControllers([.unix(path: path)]) { served in
            #expect(FileManager.default.fileExists(atPath: path))
            // A host on the default executor: a thread of its own, which it ends when it stops.
            var configuration = HostConfiguration()
            configuration.commandTimeout = SanitizerAllowance.remoteControllerCommandTimeout
            let host = Host(
                transport: try await served.clientMoniker(0).openHostTransport(), configuration: configuration)
            #expect(await host.transport is UNIXClientTransport)
            do {
                try await host.start()
                #expect(await host.controllerInfo.address == served.address(0))
                #expect(await host.controllerInfo.leFeatures.contains(.leExtendedAdvertising))
            } catch {
                await host.stop()
                throw error
            }
            await host.stop()
        }
        #expect(!FileManager.default.fileExists(atPath: path))
    }

    @Test("Listening fails with a typed error: a client moniker, an address in use, a controller served twice")
    func listenFailures() async throws {
        let radio = VirtualRadio(pacing: .paced(rate: 1))
        let port = await radio.addController()
        let other = await radio.addController(at: AirPosition(x: 1, y: 0, z: 0))
        let server = VirtualControllerServer()
        let client = TransportMoniker.tcpClient(host: "127.0.0.1", port: 9)
        await #expect(throws: TransportOpenError.unsupportedRole(client)) {
            try await server.listen(on: client, serving: port)
        }
        let listener = try await server.listen(on: Self.loopback, serving: port)
        await #expect {
            try await server.listen(on: listener.moniker, serving: other)
        } throws: { error in
            guard case .listenFailed(let moniker, _) = error as? TransportOpenError else { return false }
            return moniker == listener.moniker
        }
        await #expect(
            throws: TransportOpenError.listenFailed(Self.loopback, "this controller is already served")
        ) {
            try await server.listen(on: Self.loopback, serving: port)
        }
        #expect(await server.listeners.map(\.index) == [0])
        await server.close()
        await #expect(throws: TransportOpenError.listenFailed(Self.loopback, "the server is closed")) {
            try await server.listen(on: Self.loopback, serving: other)
        }
    }
}
