import BLEWire

/// Resolvable private addresses as the host makes and recognises them (Core 5.4 Vol 6 Part B
/// §1.3.2.2–§1.3.2.3): the 24 most significant bits are prand, its two top bits 0b01 and its
/// other 22 random bits neither all 0 nor all 1; the 24 least significant bits are
/// hash = ah(IRK, prand) (Vol 3 Part H §2.2.2, `SecurityFunctions.ah`).
package enum PrivateAddress {
    /// The random part of prand: the 22 bits below the 0b01 marker.
    static let randomPart: UInt32 = 0x3F_FFFF
    /// prand's two most significant bits, 0b01.
    static let marker: UInt32 = 0x40_0000

    /// The address made of `prand` (24 bits) and its hash under `irk`.
    package static func make(prand: UInt32, irk: SMPKey128) -> BluetoothAddress {
        let prand = prand & 0xFF_FFFF
        return BluetoothAddress(UInt64(prand) << 24 | UInt64(SecurityFunctions.ah(key: irk, prand)))
    }

    /// A new resolvable private address from `irk`, drawing prand from `generator` until its
    /// random part is valid (§1.3.2.2).
    package static func generate(irk: SMPKey128, using generator: inout some RandomNumberGenerator)
        -> BluetoothAddress
    {
        while true {
            let bits = UInt32(truncatingIfNeeded: generator.next()) & randomPart
            if bits != 0 && bits != randomPart { return make(prand: marker | bits, irk: irk) }
        }
    }

    /// Whether `address` is a resolvable private address made from `irk`: its hash equals
    /// ah(IRK, prand) (§1.3.2.3).
    package static func resolves(_ address: BluetoothAddress, with irk: SMPKey128) -> Bool {
        guard address.topBits == 0b01 else { return false }
        let prand = UInt32(truncatingIfNeeded: address.value >> 24) & 0xFF_FFFF
        return SecurityFunctions.ah(key: irk, prand) == UInt32(truncatingIfNeeded: address.value) & 0xFF_FFFF
    }

    /// The identity (typed public or random) of `address` among `candidates` — the first whose
    /// IRK resolves it — or nil. Only a random address of the resolvable kind is tried.
    package static func resolve(_ address: LEAddress, among candidates: [(identity: LEAddress, irk: SMPKey128)])
        -> LEAddress?
    {
        guard address.type == .random, address.kind == .resolvablePrivate else { return nil }
        return candidates.first { resolves(address.address, with: $0.irk) }?.identity
    }
}

extension LEAddress {
    /// The identity address behind a controller-resolved one (types 0x02 / 0x03, Core 5.4 Vol 4
    /// Part E §7.7.65.10) typed as the identity itself (public or random static), which is how
    /// bonds are keyed; any other address as it is.
    package var identityForm: LEAddress {
        switch type {
        case .publicIdentity: LEAddress(address, type: .public)
        case .randomIdentity: LEAddress(address, type: .random)
        default: self
        }
    }

    /// An identity address as a controller reports one it resolved (0x02 / 0x03), which the
    /// layers above take for "this device, behind whatever address it used".
    package var resolvedForm: LEAddress {
        switch type {
        case .public: LEAddress(address, type: .publicIdentity)
        case .random: LEAddress(address, type: .randomIdentity)
        default: self
        }
    }
}
