import BLEController
import BLESimulation
import BLETransport
import BLEVirtualHCI
import BLEWire
import Testing

@testable import BLEHost

/// Two of our hosts, each on its own virtual controller, on one virtual air: everything between
/// them crosses HCI as H4 bytes and the air as timed link-layer packets.
struct TwoHosts: Sendable {
    let radio: VirtualRadio
    let peripheral: Host
    let central: Host

    var simulation: Simulation { radio.simulation }

    static let dataService = BluetoothUUID("6E400001-B5A3-F393-E0A9-E50E24DCCA9E")!
    static let dataCharacteristic = BluetoothUUID("6E400003-B5A3-F393-E0A9-E50E24DCCA9E")!

    static func make(
        peripheralController: VirtualController.Configuration = .init(),
        centralController: VirtualController.Configuration = .init(), mtu: Int = 247
    ) async -> TwoHosts {
        let radio = VirtualRadio()
        let peripheralPort = await radio.addController(at: .origin, configuration: peripheralController)
        let centralPort = await radio.addController(
            at: AirPosition(x: 2, y: 0, z: 0), configuration: centralController)
        var configuration = HostConfiguration()
        configuration.preferredATTMTU = mtu
        let simulation = radio.simulation
        let peripheral = Host(
            transport: PipeTransport.attached(to: peripheralPort), clock: simulation.clock,
            executor: simulation.executor, configuration: configuration)
        let central = Host(
            transport: PipeTransport.attached(to: centralPort), clock: simulation.clock,
            executor: simulation.executor, configuration: configuration)
        return TwoHosts(radio: radio, peripheral: peripheral, central: central)
    }

    /// The peripheral's GATT database: one service with a value to read and a characteristic
    /// that notifies and takes writes without response.
    static func database() throws -> AttributeDatabase {
        try AttributeDatabase(
            gap: GAPServiceConfiguration(deviceName: "swift-ble peripheral"),
            services: [
                GATTService(
                    uuid: 0x180F,
                    characteristics: [
                        GATTCharacteristic(
                            uuid: 0x2A19, properties: [.read, .notify], permissions: .readable, value: .stored([87]))
                    ]),
                GATTService(
                    uuid: dataService,
                    characteristics: [
                        GATTCharacteristic(
                            uuid: dataCharacteristic, properties: [.notify, .writeWithoutResponse],
                            permissions: [.readable, .writeable], value: .stored([]))
                    ]),
            ])
    }

    /// Starts both hosts, advertises, connects; returns the connection handles (peripheral,
    /// central). The event iterators are handed back for the test to go on reading.
    func connect(
        intervalUnits: UInt16 = 24, eventLengthUnits: UInt16 = 0,
        peripheralEvents: inout EventStream<HostEvent>.Iterator,
        centralEvents: inout EventStream<HostEvent>.Iterator
    ) async throws -> (ConnectionHandle, ConnectionHandle) {
        try await peripheral.start()
        try await central.start()
        try await peripheral.send(
            HCI.LESetAdvertisingParameters(advertisingIntervalMin: 0x0020, advertisingIntervalMax: 0x0020))
        try await peripheral.send(HCI.LESetAdvertisingData(advertisingData: [0x02, 0x01, 0x06]))
        try await peripheral.send(HCI.LESetAdvertisingEnable(advertisingEnable: true))
        let address = try #require(await peripheral.controllerInfo.address)
        try await central.send(
            HCI.LECreateConnection(
                leScanInterval: 0x0010, leScanWindow: 0x0010, peerAddressType: .public, peerAddress: address,
                connectionParameters: HCI.ConnectionParameters(
                    connectionIntervalMin: intervalUnits, connectionIntervalMax: intervalUnits,
                    supervisionTimeout: 400, minCELength: eventLengthUnits, maxCELength: eventLengthUnits)))
        let centralHandle = try await Self.nextConnection(&centralEvents)
        let peripheralHandle = try await Self.nextConnection(&peripheralEvents)
        return (peripheralHandle, centralHandle)
    }

    static func nextConnection(_ events: inout EventStream<HostEvent>.Iterator) async throws -> ConnectionHandle {
        while let event = await events.next() {
            if case .connected(let info) = event { return info.handle }
            if case .connectionFailed(let status) = event {
                throw HostError.commandFailed(HCI.LECreateConnection.opcode, status)
            }
        }
        throw HostError.stopped
    }
}

@Suite("Two hosts on the virtual radio (HCI over H4, the air-time model between them)")
struct TwoHostsOnVirtualRadioTests {
    @Test(
        "Advertise, connect, exchange the MTU, discover the database, read, subscribe, notify, write without response")
    func gattEndToEnd() async throws {
        let pair = await TwoHosts.make()
        let simulation = pair.simulation
        try await simulation.run {
            let server = GATTServerHandler(server: GATTServer(database: try TwoHosts.database()))
            await pair.peripheral.setATTServer(server)
            var peripheralEvents = pair.peripheral.events.makeAsyncIterator()
            var centralEvents = pair.central.events.makeAsyncIterator()
            let (peripheralHandle, centralHandle) = try await pair.connect(
                peripheralEvents: &peripheralEvents, centralEvents: &centralEvents)

            #expect(try await pair.central.exchangeMTU(on: centralHandle) == 247)
            #expect(await pair.peripheral.attMTU(on: peripheralHandle) == 247)

            let client = GATTClient(bearer: HostATTBearer(host: pair.central, connection: centralHandle))
            let database = try await client.discoverDatabase()
            #expect(database.map(\.service.uuid) == [0x1800, 0x1801, 0x180F, TwoHosts.dataService])
            let battery = try #require(database.first { $0.service.uuid == 0x180F }?.characteristics.first)
            #expect(try await client.readValue(handle: battery.characteristic.valueHandle) == [87])

            let data = try #require(database.first { $0.service.uuid == TwoHosts.dataService }?.characteristics.first)
            let cccd = try #require(data.descriptors.first { $0.uuid == 0x2902 })
            try await client.setNotifyValue(true, for: data.characteristic, descriptorHandle: cccd.handle)

            // The peripheral notifies three values; the central receives them in order.
            let valueHandle = data.characteristic.valueHandle
            for index in 0..<3 {
                try await pair.peripheral.notify(
                    [UInt8](repeating: UInt8(index), count: 200), attributeHandle: valueHandle, on: peripheralHandle)
            }
            var received: [[UInt8]] = []
            while received.count < 3, let event = await centralEvents.next() {
                if case .notification(_, valueHandle, let value) = event { received.append(value) }
            }
            #expect(received == (0..<3).map { [UInt8](repeating: UInt8($0), count: 200) })

            // A write without response reaches the server's application.
            try await client.writeValueWithoutResponse([1, 2, 3], handle: valueHandle)
            var writes = server.events.makeAsyncIterator()
            while let event = await writes.next() {
                if case .writeWithoutResponse(let command) = event {
                    #expect(command.write.value == [1, 2, 3])
                    break
                }
            }
            // Disconnect: the central's host gets 0x16, the peripheral's the reason sent.
            await pair.central.disconnect(centralHandle, reason: .remoteUserTerminatedConnection)
            var centralReason: HCIStatus?
            while let event = await centralEvents.next() {
                if case .disconnected(_, let reason) = event { centralReason = reason; break }
            }
            var peripheralReason: HCIStatus?
            while let event = await peripheralEvents.next() {
                if case .disconnected(_, let reason) = event { peripheralReason = reason; break }
            }
            #expect(centralReason == .connectionTerminatedByLocalHost)
            #expect(peripheralReason == .remoteUserTerminatedConnection)
            await pair.central.stop()
            await pair.peripheral.stop()
        }
    }
}
