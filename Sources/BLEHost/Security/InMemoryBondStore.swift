import BLELocking
import BLEWire

/// Bonds kept in memory only: gone when the process ends. The default of a host; apps that
/// want bonds to survive give a file-backed store (`SQLiteBondStore` in BLE).
public final class InMemoryBondStore: BondStore {
    private let storage: Locked<[Bond]>
    private let identity: Locked<SMPKey128?>

    public init(_ bonds: [Bond] = [], localIdentity: SMPKey128? = nil) {
        storage = Locked(bonds)
        identity = Locked(localIdentity)
    }

    public func localIdentity() -> SMPKey128? { identity.withLock { $0 } }

    public func saveLocalIdentity(_ irk: SMPKey128) { identity.withLock { $0 = irk } }

    public func bonds() -> [Bond] { storage.withLock { $0 } }

    public func save(_ bond: Bond) {
        storage.withLock { bonds in
            if let index = bonds.firstIndex(where: { $0.local == bond.local && $0.peer == bond.peer }) {
                bonds[index] = bond
            } else {
                bonds.append(bond)
            }
        }
    }

    @discardableResult
    public func remove(local: LEAddress, peer: LEAddress) -> Bool {
        storage.withLock { bonds in
            let before = bonds.count
            bonds.removeAll { $0.local == local && $0.peer == peer }
            return bonds.count != before
        }
    }
}
