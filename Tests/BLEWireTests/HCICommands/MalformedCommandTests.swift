import BLEWire
import Testing

@Suite("Malformed HCI command parameters (Core 5.4 Vol 4 Part E §7)")
struct MalformedCommandTests {
    @Test("Every strict prefix and every one-octet extension of a valid command is rejected")
    func lengthsAreExact() {
        for command in CommandSamples.commands {
            let bytes = command.encoded
            let entry = HCICommandTable.entry(for: type(of: command).opcode)
            for cut in 0..<bytes.count {
                #expect(throws: DecodeError.self, "\(type(of: command).name) cut at \(cut)") {
                    try entry?.decode(bytes[..<cut])
                }
            }
            #expect(throws: DecodeError.self, "\(type(of: command).name) + 1") {
                try entry?.decode((bytes + [0x00])[...])
            }
        }
    }

    @Test("Fixed-size commands: missing and extra octets name the field (§7.1.6, §7.3.2)")
    func fixedSize() {
        expectDecodeError(
            HCI.Disconnect.self, hex("40 00"), .truncated(needed: 1, available: 0), field: "Reason")
        expectDecodeError(HCI.Reset.self, hex("00"), .trailingBytes(count: 1), field: "end of packet")
        expectDecodeError(
            HCI.LEEncrypt.self, [UInt8](repeating: 0, count: 20), .truncated(needed: 16, available: 4),
            field: "Plaintext_Data")
        expectDecodeError(
            HCI.LEGenerateDHKey.self, [UInt8](repeating: 0, count: 40), .truncated(needed: 32, available: 8),
            field: "Key_Y_Coordinate")
        expectDecodeError(
            HCI.LESetRandomAddress.self, hex("01 02 03"), .truncated(needed: 6, available: 3),
            field: "Random_Address")
    }

    @Test("Enable flags accept only 0x00 and 0x01 (§7.8.9, §7.8.11, §7.8.44)")
    func flags() {
        expectDecodeError(HCI.LESetScanEnable.self, hex("02 00"), .invalidValue(2), field: "LE_Scan_Enable")
        expectDecodeError(
            HCI.LESetScanEnable.self, hex("01 ff"), .invalidValue(0xFF), field: "Filter_Duplicates")
        expectDecodeError(
            HCI.LESetAdvertisingEnable.self, hex("03"), .invalidValue(3), field: "Advertising_Enable")
        expectDecodeError(
            HCI.LESetAddressResolutionEnable.self, hex("80"), .invalidValue(0x80),
            field: "Address_Resolution_Enable")
        expectDecodeError(
            HCI.WriteLEHostSupport.self, hex("02 00"), .invalidValue(2), field: "LE_Supported_Host")
    }

    @Test("Values outside the named ones are kept, not rejected (the controller answers 0x12)")
    func permissiveValues() throws {
        let parameters = try HCI.LESetScanParameters(decoding: hex("07 10 00 10 00 09 0a"))
        #expect(parameters.leScanType == .other(7))
        #expect(parameters.ownAddressType == .other(9))
        #expect(parameters.scanningFilterPolicy == .other(0x0A))
        #expect(parameters.encoded == hex("07 10 00 10 00 09 0a"))
        let phy = try HCI.LEReadPHY.ReturnParameters(decoding: hex("00 40 00 09 00"))
        #expect(phy.txPHY == .init(rawValue: 9) && phy.rxPHY == .init(rawValue: 0))
    }

    @Test("Legacy advertising data: length above 31 and a short data field are rejected (§7.8.7, §7.8.8)")
    func legacyData() {
        expectDecodeError(
            HCI.LESetAdvertisingData.self, [32] + [UInt8](repeating: 0, count: 31),
            .outOfRange(value: 32, allowed: 0...31), field: "Advertising_Data_Length")
        expectDecodeError(
            HCI.LESetScanResponseData.self, [0xFF] + [UInt8](repeating: 0, count: 31),
            .outOfRange(value: 255, allowed: 0...31), field: "Scan_Response_Data_Length")
        expectDecodeError(
            HCI.LESetAdvertisingData.self, hex("03 02 01 06"), .truncated(needed: 31, available: 3),
            field: "Advertising_Data")
        expectDecodeError(
            HCI.LESetAdvertisingData.self, [3] + [UInt8](repeating: 0, count: 32), .trailingBytes(count: 1))
    }

    @Test("Extended advertising data: length must match the octets present and be at most 251 (§7.8.54)")
    func extendedData() {
        expectDecodeError(
            HCI.LESetExtendedAdvertisingData.self, hex("01 03 00 03 02 01"),
            .lengthMismatch(declared: 3, actual: 2),
            field: "Advertising_Data_Length")
        expectDecodeError(
            HCI.LESetExtendedScanResponseData.self, hex("01 03 00 01 02 01"),
            .lengthMismatch(declared: 1, actual: 2),
            field: "Scan_Response_Data_Length")
        expectDecodeError(
            HCI.LESetExtendedAdvertisingData.self, hex("01 03 00 fc") + [UInt8](repeating: 0, count: 252),
            .outOfRange(value: 252, allowed: 0...251), field: "Advertising_Data_Length")
    }

    @Test("Extended advertising enable: Num_Sets must match the sets present (§7.8.56)")
    func extendedEnableCount() {
        expectDecodeError(
            HCI.LESetExtendedAdvertisingEnable.self, hex("01 02 01 00 00 00"),
            .lengthMismatch(declared: 8, actual: 4), field: "Num_Sets")
        expectDecodeError(
            HCI.LESetExtendedAdvertisingEnable.self, hex("00 00 01"), .lengthMismatch(declared: 0, actual: 1),
            field: "Num_Sets")
        // A huge count with nothing behind it is refused before any allocation.
        expectDecodeError(
            HCI.LESetExtendedAdvertisingEnable.self, hex("01 ff"), .lengthMismatch(declared: 1020, actual: 0),
            field: "Num_Sets")
    }

    @Test(
        "PHY bit masks drive the entries: reserved bits and missing entries are rejected (§7.8.64, §7.8.66)")
    func phyMasks() {
        // Bit 1 (LE 2M) is reserved for scanning: the layout after it is unknown.
        expectDecodeError(
            HCI.LESetExtendedScanParameters.self, hex("00 00 02 01 10 00 10 00"), .invalidValue(2),
            field: "Scanning_PHYs")
        // Two PHYs announced, one entry present.
        expectDecodeError(
            HCI.LESetExtendedScanParameters.self, hex("00 00 05 01 10 00 10 00"),
            .truncated(needed: 1, available: 0), field: "Scan_Type")
        expectDecodeError(
            HCI.LEExtendedCreateConnection.self, hex("00 00 00 000000000000 08"), .invalidValue(8),
            field: "Initiating_PHYs")
        let oneEntry = [UInt8](repeating: 0x10, count: 16)
        expectDecodeError(
            HCI.LEExtendedCreateConnection.self, hex("00 00 00 000000000000 03") + oneEntry,
            .truncated(needed: 2, available: 0), field: "Scan_Interval")
        // No PHY at all is a value for the controller to refuse, not a length error.
        #expect(throws: Never.self) { try HCI.LESetExtendedScanParameters(decoding: hex("00 00 00")) }
    }

    @Test("Return parameters: a successful status must be followed by every parameter (§7.7.14)")
    func returnParameters() throws {
        expectDecodeError(
            HCI.ReadRSSI.ReturnParameters.self, hex("00 40 00"), .truncated(needed: 1, available: 0),
            field: "RSSI")
        expectDecodeError(
            HCI.ReadBDADDR.ReturnParameters.self, hex("00 01 02"), .truncated(needed: 6, available: 2),
            field: "BD_ADDR")
        expectDecodeError(
            HCI.StatusReturnParameters.self, [], .truncated(needed: 1, available: 0), field: "Status")
        // A failure may stop after the status; the other fields are then zero.
        let failed = try HCI.ReadRSSI.ReturnParameters(decoding: hex("02"))
        #expect(failed.status == .unknownConnectionIdentifier && failed.handle == 0 && failed.rssi == 0)
        // But a failure that carries part of a field is still truncated.
        expectDecodeError(
            HCI.ReadRSSI.ReturnParameters.self, hex("02 40"), .truncated(needed: 2, available: 1),
            field: "Handle")
    }

    @Test("A known opcode with malformed parameters reports the command's error through the packet")
    func throughPacket() throws {
        let packet = try HCICommandPacket(decoding: hex("0c 20 01 01"))
        #expect(
            throws: DecodeError(
                context: "LE Set Scan Enable", field: "Filter_Duplicates", offset: 1,
                reason: .truncated(needed: 1, available: 0))
        ) {
            try packet.decodeCommand()
        }
        #expect(packet.description.contains("Filter_Duplicates"))
    }
}
