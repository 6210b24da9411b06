import BLEWire
import PropertyBased
import Testing

@Suite("L2CAP basic frame (Core 5.4 Vol 3 Part A §3.1)")
struct L2CAPBasicFrameTests {
    @Test("ATT Exchange MTU Request on CID 0x0004: Length 3, Channel ID, payload (§3.1)")
    func attVector() throws {
        let bytes = hex("03 00 04 00 02 f7 00")
        let frame = try L2CAPBasicFrame(decoding: bytes)
        #expect(frame == L2CAPBasicFrame(channelID: .att, payload: [0x02, 0xF7, 0x00]))
        #expect(frame.encoded == bytes)
        #expect(frame.encodedLength == 7)
        #expect(sharesStorage(try L2CAPBasicFrame(decoding: bytes[...]).payload, with: bytes[...]))
    }

    @Test("SMP Pairing Request on CID 0x0006 and an empty frame round-trip (§3.1)")
    func roundTrips() throws {
        // Pairing Request: IO capability NoInputNoOutput, no OOB, bonding + SC, 16-octet key.
        let smp = L2CAPBasicFrame(channelID: .smp, payload: hex("01 03 00 09 10 07 07"))
        #expect(smp.encoded == hex("07 00 06 00 01 03 00 09 10 07 07"))
        try expectRoundTrip(smp)
        try expectRoundTrip(L2CAPBasicFrame(channelID: .leSignaling, payload: []))
        try expectRoundTrip(
            L2CAPBasicFrame(channelID: L2CAPChannelID(0x0040), payload: Array(repeating: 7, count: 600)))
    }

    @Test("Length must equal the octets present (§3.1)")
    func lengthRules() {
        expectDecodeError(
            L2CAPBasicFrame.self, hex("03 00 04 00 02 f7"), .lengthMismatch(declared: 3, actual: 2),
            field: "Length")
        expectDecodeError(
            L2CAPBasicFrame.self, hex("01 00 04 00 02 f7"), .lengthMismatch(declared: 1, actual: 2),
            field: "Length")
        expectDecodeError(
            L2CAPBasicFrame.self, hex("03 00 04"), .truncated(needed: 2, available: 1),
            field: "Channel ID")
        expectDecodeError(
            L2CAPBasicFrame.self, hex("03"), .truncated(needed: 2, available: 1), field: "Length")
    }

    @Test("Channel identifiers: LE fixed channels and the LE dynamic range (§2.1)")
    func channelIDs() {
        #expect(L2CAPChannelID.att.rawValue == 0x0004)
        #expect(L2CAPChannelID.leSignaling.rawValue == 0x0005)
        #expect(L2CAPChannelID.smp.rawValue == 0x0006)
        #expect(L2CAPChannelID.signaling.rawValue == 0x0001)
        #expect(L2CAPChannelID(0x0040).isLEDynamic)
        #expect(L2CAPChannelID(0x007F).isLEDynamic)
        #expect(!L2CAPChannelID(0x003F).isLEDynamic)
        #expect(!L2CAPChannelID(0x0080).isLEDynamic)
        #expect(L2CAPChannelID.att.description == "ATT (0x0004)")
        #expect(L2CAPChannelID(0x0041).description == "Dynamic (0x0041)")
        #expect(L2CAPChannelID(0x0003).description == "0x0003")
        #expect(L2CAPChannelID(rawValue: 6) == .smp)
        #expect(
            L2CAPBasicFrame(channelID: .att, payload: [2]).json
                == #"{"channelID":"ATT (0x0004)","payload":"02"}"#)
    }

    @Test("Random bytes never trap the basic frame decoder (§3.1)")
    func randomNeverTraps() async {
        await propertyCheck(count: 3000, input: randomBytes) { bytes in
            expectNoTrap(L2CAPBasicFrame.self, bytes)
        }
    }
}
