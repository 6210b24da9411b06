import BLEWire
import Foundation

/// The identities a central has seen, kept across managers (`KnownPeripherals`).
extension CentralManager {
    /// A peripheral this manager has not met, from the identities remembered.
    func recalled(_ identifier: UUID) -> Peripheral? {
        guard let record = knownPeripherals.records[identifier] else { return nil }
        let peripheral = Peripheral(address: record.address, stack: stack, name: record.name)
        known[identifier] = peripheral
        return peripheral
    }

    /// Remembers a peripheral seen for the first time. A file that cannot be written is logged
    /// and counted; the manager goes on (the identity is still known to it).
    func remember(_ address: LEAddress, name: String?) {
        do {
            _ = try knownPeripherals.remember(address, name: name)
        } catch {
            knownPeripheralsWriteFailures += 1
            stack.host.logger.error("central manager: cannot remember \(address): \(error)")
        }
    }
}
