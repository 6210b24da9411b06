import BLE
import BLEController
import BLEHost
import BLEWire

extension GATTBenchmark {
    /// A peripheral manager publishing one characteristic (notify, write, write without
    /// response) and a central manager connected and subscribed to it.
    struct Session: Sendable {
        let parameters: Parameters
        let manager: PeripheralManager
        let centralManager: CentralManager
        let peripheral: Peripheral
        /// The characteristic as the peripheral manager publishes it, and as the central found it.
        let local: Characteristic
        let remote: Characteristic
        /// The subscribed central's notifications, asked for before subscribing.
        let values: EventStream<[UInt8]>

        /// Publishes, advertises, scans, connects with the profile's interval and event length,
        /// sets the data length (Core 5.4 Vol 4 Part E §7.8.33) and PHY (§7.8.49) on both
        /// sides, discovers the characteristic and subscribes (Vol 3 Part G §4.10).
        static func establish(parameters: Parameters, peripheralRadio: Radio, centralRadio: Radio)
            async throws -> Session
        {
            let profile = parameters.profile
            let timing = profile.linkTiming()
            var configuration = HostConfiguration()
            configuration.preferredATTMTU = profile.attMTU
            // Both hosts negotiate the profile's link as a phone's policy would: the central asks,
            // the peripheral offers the same data length by default (§7.8.35).
            configuration.linkPolicy = linkPolicy(for: timing, attMTU: profile.attMTU)
            let manager = try await PeripheralManager(radio: peripheralRadio, configuration: configuration)
            let centralManager = await CentralManager(radio: centralRadio, configuration: configuration)
            do {
                try await manager.powerOn()
                try await centralManager.powerOn()
                let service = try await manager.add(
                    MutableService(
                        uuid: serviceUUID,
                        characteristics: [
                            MutableCharacteristic(
                                uuid: dataUUID, properties: [.notify, .write, .writeWithoutResponse],
                                permissions: [.writeable], value: .dynamic)
                        ]))
                guard let local = service.characteristics?.first else { throw Failure.setup("no local characteristic") }
                var managerEvents = manager.events.makeAsyncIterator()
                try await manager.startAdvertising(AdvertisementData(localName: "bench", serviceUUIDs: [serviceUUID]))

                var discoveries = try await centralManager.scanForPeripherals(withServices: [serviceUUID])
                    .makeAsyncIterator()
                guard let found = await discoveries.next() else { throw Failure.setup("the scan found nothing") }
                await centralManager.stopScan()
                let intervalUnits = UInt16(clamping: timing.interval.nanosecondsClamped / 1_250_000)
                let eventUnits = UInt16(clamping: timing.eventLength.nanosecondsClamped / 625_000)
                let peripheral = found.peripheral
                try await centralManager.connect(
                    peripheral,
                    options: ConnectOptions(
                        connectionParameters: HCI.ConnectionParameters(
                            connectionIntervalMin: intervalUnits, connectionIntervalMax: intervalUnits,
                            supervisionTimeout: 400, minCELength: eventUnits, maxCELength: eventUnits)))
                // Advertising goes on after a connection until stopped; it would share the air.
                await manager.stopAdvertising()
                guard await peripheral.mtu == profile.attMTU else {
                    throw Failure.setup("ATT_MTU \(await peripheral.mtu), not \(profile.attMTU)")
                }
                do {
                    // The negotiation made the link; controllers that did not take it get asked
                    // directly.
                    if !(await linkSettled(timing, central: centralManager, peripheral: peripheral, manager: manager)) {
                        try await setDataLengthAndPHY(
                            timing, central: centralManager, peripheral: peripheral, manager: manager)
                    }
                } catch where !parameters.requiresLinkSettings {
                    // Measured on the link the controllers agreed to.
                }

                let services = try await peripheral.discoverServices([serviceUUID])
                guard let remoteService = services.first else { throw Failure.setup("service not found") }
                let characteristics = try await peripheral.discoverCharacteristics([dataUUID], for: remoteService)
                guard let remote = characteristics.first else { throw Failure.setup("characteristic not found") }
                let values = try await peripheral.values(for: remote)
                try await peripheral.setNotifyValue(true, for: remote)
                var subscribed = false
                while !subscribed, let event = await managerEvents.next() {
                    if case .subscribed(_, let characteristic) = event, characteristic.handle == local.handle {
                        subscribed = true
                    }
                }
                guard subscribed else { throw Failure.setup("the subscription was not seen") }
                return Session(
                    parameters: parameters, manager: manager, centralManager: centralManager, peripheral: peripheral,
                    local: local, remote: remote, values: values)
            } catch {
                await centralManager.close()
                await manager.close()
                throw error
            }
        }

        /// The policy that negotiates `timing`'s data length and PHY (LE 1M and LE 2M; LE Coded
        /// is asked for by `setDataLengthAndPHY`) and `attMTU`.
        static func linkPolicy(for timing: LinkTiming, attMTU: Int) -> LinkPolicy {
            let direction = timing.peripheralToCentral
            return LinkPolicy(
                name: "bench", dataLength: .init(octets: UInt16(direction.maxOctets), time: txTime(direction)),
                prefers2M: direction.phy == .le2M, attMTU: attMTU)
        }

        static func txTime(_ direction: LinkTiming.Direction) -> UInt16 {
            max(
                328,
                UInt16(
                    clamping: Int(
                        AirTime.packetAirTime(phy: direction.phy, payloadLength: direction.maxOctets, encrypted: true)
                            .microseconds.rounded(.up))))
        }

        /// Whether both hosts see the link at `timing`'s data length and PHY.
        static func linkSettled(
            _ timing: LinkTiming, central: CentralManager, peripheral: Peripheral, manager: PeripheralManager
        ) async -> Bool {
            guard case .connected(let centralHandle) = await peripheral.link,
                let peripheralHandle = await manager.centrals.keys.first
            else { return false }
            let octets = timing.peripheralToCentral.maxOctets
            let expected = timing.peripheralToCentral.phy.hci
            for (stack, handle) in [(central.stack, centralHandle), (manager.stack, peripheralHandle)] {
                guard let info = await stack.host.connection(handle),
                    Int(info.maxTxOctets) == octets, Int(info.maxRxOctets) == octets,
                    info.txPHY == expected, info.rxPHY == expected
                else { return false }
            }
            return true
        }

        /// Asks both controllers for the profile's data length, and the central's for its PHY,
        /// then waits (polling the hosts' view of the link each connection interval) until both
        /// links use them.
        static func setDataLengthAndPHY(
            _ timing: LinkTiming, central: CentralManager, peripheral: Peripheral, manager: PeripheralManager
        ) async throws {
            guard case .connected(let centralHandle) = await peripheral.link,
                let peripheralHandle = await manager.centrals.keys.first
            else { throw Failure.setup("not connected") }
            let octets = timing.peripheralToCentral.maxOctets
            let phy = timing.peripheralToCentral.phy
            let txTime = UInt16(
                clamping: Int(AirTime.packetAirTime(phy: phy, payloadLength: octets, encrypted: true).microseconds
                    .rounded(.up)))
            let sides = [(central.stack, centralHandle), (manager.stack, peripheralHandle)]
            do {
                for (stack, handle) in sides {
                    try await stack.host.send(
                        HCI.LESetDataLength(
                            connectionHandle: handle, txOctets: UInt16(octets), txTime: max(328, txTime)))
                }
                if phy != .le1M {
                    let phys: HCI.LEPHYs = phy == .le2M ? .le2M : .leCoded
                    let options: HCI.CodedPHYOptions =
                        switch phy {
                        case .codedS2: .preferS2
                        case .codedS8: .preferS8
                        default: .noPreference
                        }
                    try await central.stack.host.send(
                        HCI.LESetPHY(connectionHandle: centralHandle, txPHYs: phys, rxPHYs: phys, phyOptions: options))
                }
            } catch {
                throw Failure.setup("data length or PHY refused: \(error)")
            }
            let expected = phy.hci
            for _ in 0..<200 {
                var settled = true
                for (stack, handle) in sides {
                    guard let info = await stack.host.connection(handle),
                        Int(info.maxTxOctets) == octets, Int(info.maxRxOctets) == octets,
                        info.txPHY == expected, info.rxPHY == expected
                    else {
                        settled = false
                        break
                    }
                }
                if settled { return }
                guard await central.stack.sleep(for: timing.interval) else { break }
            }
            throw Failure.setup("the link did not reach LL \(octets) on \(phy)")
        }

        func close() async {
            await centralManager.close()
            await manager.close()
        }
    }
}
