import BLE
import BLEHost
import BLEWire
import Foundation
import GRDB

// Devices known by their Identity Resolving Key (Core 5.4 Vol 3 Part H §2.4.2.1): a device that
// advertises with resolvable private addresses shows a new address every few minutes, and only
// its IRK says it is the same device (Vol 6 Part B §1.3.2.3). The IRK column holds the key's 16
// octets most significant first, as the specification prints keys (and as bond stores keep
// them).
extension KnownDevices {
    /// The known device whose IRK resolves `address` (a resolvable private address), nil when
    /// none does or the address is of another kind.
    public func device(resolving address: LEAddress) throws(KnownDevicesError) -> KnownDevice? {
        guard address.type == .random, address.kind == .resolvablePrivate else { return nil }
        return try read { db in
            try KnownDevicesSchema.fetch(db, where: "irk IS NOT NULL", [:]).first { device in
                guard let irk = device.irk.flatMap(SMPKey128.init(storedOctets:)) else { return false }
                return PrivateAddress.resolves(address.address, with: irk)
            }
        }
    }

    /// Fills the IRK column from bonds (`Host.bonds`, `SQLiteBondStore.bonds()`): each bond with
    /// a peer IRK gives it to the device known by the bond's identity address (as its key or
    /// as the address it was last seen at) or by that IRK; a bonded device not known yet is
    /// remembered under its IRK, at its identity address. Returns the records changed or added.
    @discardableResult
    public func adoptIdentities(from bonds: [Bond]) throws(KnownDevicesError) -> [KnownDevice] {
        var changed: [KnownDevice] = []
        for bond in bonds {
            guard let irk = bond.peerIRK else { continue }
            let octets = irk.bigEndianOctets
            let identity = bond.peer
            var known = try device(forKey: .identityAddress(identity))
            if known == nil { known = try device(at: identity) }
            if known == nil { known = try device(forKey: .irk(octets)) }
            if let known {
                guard known.irk != octets, let updated = try setIRK(octets, forKey: known.key) else { continue }
                changed.append(updated)
            } else if let added = try observe(
                key: .irk(octets), address: identity, identifier: identity.peerIdentifier, name: nil)?.device
            {
                changed.append(try setIRK(octets, forKey: added.key) ?? added)
            }
        }
        return changed
    }
}
