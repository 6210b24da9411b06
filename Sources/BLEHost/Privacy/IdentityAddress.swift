import BLEWire

extension BluetoothAddress {
    /// A random static address (Core 5.4 Vol 6 Part B §1.3.2.1: top bits 0b11, the other 46
    /// neither all 0 nor all 1) derived from an IRK: e(IRK, "identity") — so that a host whose
    /// IRK is kept (in its bond store) keeps one identity address across restarts.
    public static func randomStatic(identifiedBy irk: SMPKey128) -> BluetoothAddress {
        var input = SMPKey128(high: 0, low: 0x6964_656E_7469_7479)  // "identity"
        while true {
            let derived = SecurityFunctions.e(key: irk, input)
            let bits = derived.low & 0x3FFF_FFFF_FFFF
            if bits != 0 && bits != 0x3FFF_FFFF_FFFF { return BluetoothAddress(bits | 0xC000_0000_0000) }
            input = derived
        }
    }
}
