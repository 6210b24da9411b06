import BLESimulation
import BLEWire

/// Resolvable private addresses (Core 5.4 Vol 6 Part B §1.3.2.2, §1.3.2.3): the 24 most
/// significant bits are prand, whose two top bits are 0b01; the 24 least significant bits are
/// hash = ah(IRK, prand) (Vol 3 Part H §2.2.2). Whoever holds the IRK recognises the address;
/// nobody else can link two of them.
enum ResolvablePrivateAddress {
    /// The random part of prand: the 22 bits below the 0b01 marker.
    static let randomPart: UInt32 = 0x3F_FFFF
    /// The marker bits of prand (0b01 in its two most significant bits).
    static let marker: UInt32 = 0x40_0000

    /// The random address hash function ah(k, r) = e(k, r') mod 2²⁴, where r' is r padded with
    /// 104 zero bits on the most significant side (Vol 3 Part H §2.2.2). e is AES-128 as
    /// HCI_LE_Encrypt computes it (Vol 3 Part H §2.2.1).
    static func ah(irk: HCI.Key128, _ r: UInt32) -> UInt32 {
        let padded = HCI.Key128(UInt128(r & 0xFF_FFFF))
        return UInt32(truncatingIfNeeded: AES128.encrypt(padded, key: irk).value) & 0xFF_FFFF
    }

    /// The address made of `prand` and its hash under `irk` (§1.3.2.2).
    static func make(prand: UInt32, irk: HCI.Key128) -> BluetoothAddress {
        let prand = prand & 0xFF_FFFF
        return BluetoothAddress(UInt64(prand) << 24 | UInt64(ah(irk: irk, prand)))
    }

    /// A fresh address from `irk`: the random part of prand holds at least one bit 0 and one
    /// bit 1 (§1.3.2.2).
    static func generate(irk: HCI.Key128, using random: inout SeededRandomGenerator) -> BluetoothAddress {
        while true {
            let bits = UInt32(truncatingIfNeeded: random.next()) & randomPart
            if bits != 0 && bits != randomPart { return make(prand: marker | bits, irk: irk) }
        }
    }

    /// Whether `address` (a random device address) was generated from `irk`: its hash equals
    /// ah(IRK, prand) (§1.3.2.3).
    static func resolves(_ address: BluetoothAddress, with irk: HCI.Key128) -> Bool {
        guard address.topBits == 0b01 else { return false }
        let prand = UInt32(truncatingIfNeeded: address.value >> 24) & 0xFF_FFFF
        return ah(irk: irk, prand) == UInt32(truncatingIfNeeded: address.value) & 0xFF_FFFF
    }
}
