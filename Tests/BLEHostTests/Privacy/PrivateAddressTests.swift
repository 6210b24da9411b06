import BLESimulation
import BLEWire
import Testing

@testable import BLEHost

@Suite("Resolvable private addresses in the host (Core 5.4 Vol 6 Part B §1.3.2.2–§1.3.2.3; Vol 3 Part H §2.2.2)")
struct PrivateAddressTests {
    /// Vol 3 Part H Appendix D.7 (ah): IRK ec0234a3 57c8ad05 341010a6 0a397d9b.
    static let sampleIRK = SMPKey128(hex: "ec0234a3 57c8ad05 341010a6 0a397d9b")!

    @Test("ah sample data (Vol 3 Part H D.7): prand 708194 → hash 0dfbaa, the RPA 70:81:94:0D:FB:AA")
    func sampleData() {
        let address = PrivateAddress.make(prand: 0x70_8194, irk: Self.sampleIRK)
        #expect(address == BluetoothAddress(0x70_8194_0DFB_AA))
        #expect(PrivateAddress.resolves(address, with: Self.sampleIRK))
        // Another key, a wrong hash, a prand without the 0b01 marker: not resolved.
        #expect(!PrivateAddress.resolves(address, with: SMPKey128(high: 1, low: 2)))
        #expect(!PrivateAddress.resolves(BluetoothAddress(0x70_8194_0DFB_AB), with: Self.sampleIRK))
        #expect(!PrivateAddress.resolves(BluetoothAddress(0xF0_8194_0DFB_AA), with: Self.sampleIRK))
    }

    @Test("Generated addresses (§1.3.2.2): top bits 0b01, a random part neither all 0 nor all 1, resolvable")
    func generation() {
        var generator = SeededRandomGenerator(seed: 14)
        var seen: Set<BluetoothAddress> = []
        for _ in 0..<200 {
            let address = PrivateAddress.generate(irk: Self.sampleIRK, using: &generator)
            #expect(address.topBits == 0b01)
            let random = UInt32(truncatingIfNeeded: address.value >> 24) & 0x3F_FFFF
            #expect(random != 0 && random != 0x3F_FFFF)
            #expect(PrivateAddress.resolves(address, with: Self.sampleIRK))
            #expect(LEAddress(address, type: .random).kind == .resolvablePrivate)
            seen.insert(address)
        }
        #expect(seen.count > 190)
    }

    @Test("Resolving among bonded identities: the first IRK that resolves names the identity; others stay")
    func resolveAmong() {
        let identity = LEAddress(BluetoothAddress(0x00_11_22_33_44_55), type: .public)
        let other = LEAddress(BluetoothAddress(0xC0_11_22_33_44_55), type: .random)
        let candidates = [(other, SMPKey128(high: 5, low: 5)), (identity, Self.sampleIRK)]
        let rpa = LEAddress(BluetoothAddress(0x70_8194_0DFB_AA), type: .random)
        #expect(PrivateAddress.resolve(rpa, among: candidates) == identity)
        // A public address with the same bits is not a private address.
        #expect(PrivateAddress.resolve(LEAddress(rpa.address, type: .public), among: candidates) == nil)
        #expect(PrivateAddress.resolve(rpa, among: []) == nil)
        #expect(identity.resolvedForm.type == .publicIdentity)
        #expect(other.resolvedForm.type == .randomIdentity)
        #expect(identity.resolvedForm.identityForm == identity)
        #expect(other.resolvedForm.identityForm == other)
        #expect(rpa.identityForm == rpa)
    }
}
