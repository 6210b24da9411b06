import ArgumentParser
import BLE

/// The device a GATT command talks to, and how to reach it: `ADDRESS [--timeout S]
/// [--transport MONIKER]`.
struct DeviceArguments: ParsableArguments {
    @Argument(help: ArgumentHelp("The device's address, as `ble scan` prints it.", valueName: "address"))
    var address: String

    @Option(help: "How long to scan for the device, in seconds (virtual time on the virtual radio).")
    var timeout: Double = 5

    @OptionGroup var radio: RadioOptions

    /// Bonds made here (pairing on demand) are kept in the bonds file, and bonded devices are
    /// re-encrypted from it.
    @OptionGroup var bonds: BondsFileOption

    func validate() throws {
        _ = try deviceAddress()
        try checkSeconds(timeout, option: "--timeout")
    }

    func deviceAddress() throws -> BluetoothAddress {
        guard let address = BluetoothAddress(address) else {
            throw ValidationError("'\(address)' is not a device address; expected six octets in hex: F0:F1:F2:F3:F4:F5")
        }
        return address
    }

    /// Runs `body` connected to the device: scans until it advertises (Core Bluetooth has no
    /// connect-by-address: a central connects to what it discovered), connects, and disconnects
    /// afterwards whatever happens.
    func withPeripheral<T: Sendable>(
        pacing: RadioOptions.VirtualPacing = .unpaced,
        configuration: @escaping @Sendable (HostConfiguration) -> HostConfiguration = { $0 },
        _ body: @escaping @Sendable (Peripheral, RadioSession) async throws -> T
    ) async throws -> T {
        let address = try deviceAddress()
        let timeout = self.timeout
        let store = try bonds.store()
        let identity = try bonds.identity(of: store)
        return try await radio.withRadio(pacing: pacing) { session in
            var base = session.hostConfiguration
            identity.apply(to: &base, store: store)
            let central = await CentralManager(radio: session.radio, configuration: configuration(base))
            do {
                try await attempt("powering on") { try await central.powerOn() }
                let peripheral = try await Self.find(address, central: central, session: session, timeout: timeout)
                try await attempt("connecting to \(address)") {
                    try await central.connect(peripheral, options: .atTerminal)
                }
                let result = try await body(peripheral, session)
                // Remote User Terminated Connection (0x13), rather than the power-off of close().
                await central.cancelPeripheralConnection(peripheral)
                await central.close()
                return result
            } catch {
                // Whatever failed, a controller that went away is the reason to report.
                let lost = await central.lostTransport
                await central.close()
                if let lost { throw ControllerLost(error: lost) }
                throw error
            }
        }
    }

    /// Scans until `address` advertises, for at most `timeout` seconds of the radio's clock.
    static func find(
        _ address: BluetoothAddress, central: CentralManager, session: RadioSession, timeout: Double
    ) async throws -> Peripheral {
        let discoveries = try await attempt("scanning") { try await central.scanForPeripherals() }
        let timer = session.spawn {
            // The scan's stream ends when the scan stops.
            if await session.sleep(for: .seconds(timeout)) { await central.stopScan() }
        }
        var found: Peripheral?
        for await discovery in discoveries where discovery.peripheral.address.address == address {
            found = discovery.peripheral
            break
        }
        timer.cancel()
        await central.stopScan()
        guard let found else { throw GATTCommandError.notAdvertised(address, seconds: timeout) }
        return found
    }
}

/// A characteristic UUID argument.
func parseUUID(_ text: String, what: String = "characteristic UUID") throws -> BluetoothUUID {
    guard let uuid = BluetoothUUID(text) else {
        throw ValidationError(
            "'\(text)' is not a \(what); expected 4 or 8 hex digits (180D) or the 8-4-4-4-12 form")
    }
    return uuid
}

/// A number of seconds given on the command line: positive and at most a year.
func checkSeconds(_ seconds: Double, option: String) throws {
    guard seconds > 0, seconds <= 365 * 24 * 3600 else {
        throw ValidationError("\(option) \(seconds): expected a number of seconds above 0 and at most a year")
    }
}

extension Peripheral {
    /// Discovers the primary services and their characteristics, and returns the first
    /// characteristic with `uuid` (Core 5.4 Vol 3 Part G §4.4.1, §4.6.1); when none has it, the
    /// services they include (§4.5.1), level by level — a secondary service's characteristics
    /// are reachable only through an include (§3.1).
    func characteristic(_ uuid: BluetoothUUID) async throws -> Characteristic {
        let primaries = try await attempt("discovering services") { try await discoverServices() }
        if let found = try await firstCharacteristic(uuid, in: primaries) { return found }
        var searched = Set(primaries.map(\.handleRange.lowerBound))
        var level = primaries
        while !level.isEmpty {
            var included: [Service] = []
            for service in level {
                let includes = try await attempt("discovering the services \(service.uuid.labelled) includes") {
                    try await discoverIncludedServices(for: service)
                }
                included += includes.filter { searched.insert($0.handleRange.lowerBound).inserted }
            }
            if let found = try await firstCharacteristic(uuid, in: included) { return found }
            level = included
        }
        throw GATTCommandError.characteristicNotFound(uuid, on: address.address)
    }

    private func firstCharacteristic(_ uuid: BluetoothUUID, in services: [Service]) async throws -> Characteristic? {
        for service in services {
            let characteristics = try await attempt("discovering characteristics of \(service.uuid.labelled)") {
                try await discoverCharacteristics(for: service)
            }
            if let found = characteristics.first(where: { $0.uuid == uuid }) { return found }
        }
        return nil
    }
}
