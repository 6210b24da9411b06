import BLE
import Foundation
import Testing

@testable import BLEPhone

/// A restoration record kept in a file brings a preserved central manager back in a new
/// process's system service (issue 15's Linux daemon; Core Bluetooth Programming Guide,
/// "Adding Support for State Preservation and Restoration"; phone-rules.md correction 2).
@Suite("Phone: restoring a record from a file")
struct DaemonRestoreTests {
    @Test(
        "A new system service restores the record: willRestoreState lists the peripheral .connecting, then poweredOn, then it connects"
    )
    func restoreInNewProcess() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("phone-restore-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let known = folder.appendingPathComponent("known-peripherals.json").path
        try await BluetoothTestBed.run { bed in
            let logger = await bed.phone.logger
            let radio = Radio.virtual(bed.radio, position: AirPosition(x: 0, y: 1, z: 0))
            let declaration = AppDeclaration(
                bundleIdentifier: "com.example.daemon", backgroundModes: [.bluetoothCentral],
                restoreIdentifiers: ["central"])
            func context(_ launch: Int) -> AppContext {
                let context = AppContext(
                    app: AppIdentifier(declaration.bundleIdentifier), declaration: declaration,
                    executor: AppExecutor(simulation: bed.simulation), storageDirectory: nil, launchNumber: launch,
                    phone: bed.phone)
                context.executor.open()
                return context
            }

            // The first process connects and keeps a record.
            let first = await SystemBluetooth(radio: radio, logger: logger, knownPeripheralsFile: known)
            await first.interceptDeliveries { delivery, app in bed.log.take(delivery, for: app) }
            let firstContext = context(1)
            await first.appStateChanged(firstContext.app, to: .active)
            let central = await first.makeCentralManager(for: firstContext, restoreIdentifier: "central")
            let (peripheral, _, _) = try await bed.connectToDevice(central)
            let record = try #require(await first.restorationRecord(for: firstContext.app))
            let file = try JSONEncoder().encode(record)
            await first.central.close()
            await first.peripheralManager?.close()

            // The new process loads it.
            let second = await SystemBluetooth(radio: radio, logger: logger, knownPeripheralsFile: known)
            await second.interceptDeliveries { delivery, app in bed.log.take(delivery, for: app) }
            await second.restore(try JSONDecoder().decode(RestorationRecord.self, from: file), for: firstContext.app)
            let secondContext = context(2)
            await second.appStateChanged(secondContext.app, to: .background)
            let restored = await second.makeCentralManager(for: secondContext, restoreIdentifier: "central")
            var events = restored.events.makeAsyncIterator()
            guard case .willRestoreState(let state)? = await events.next() else {
                Issue.record("the first event is not willRestoreState")
                return
            }
            #expect(state.peripherals.map(\.identifier) == [peripheral.identifier])
            #expect(await state.peripherals.first?.state == .connecting)
            guard case .stateUpdated(.poweredOn)? = await events.next() else {
                Issue.record("the second event is not the state")
                return
            }
            guard case .connected(let connected)? = await events.next() else {
                Issue.record("the restored peripheral did not connect")
                return
            }
            #expect(connected === state.peripherals.first)
            await second.central.close()
            await second.peripheralManager?.close()
        }
    }
}
