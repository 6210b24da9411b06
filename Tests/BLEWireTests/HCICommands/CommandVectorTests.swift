import BLEWire
import Testing

/// Byte-exact vectors. Where a vector comes from a btmon trace of BlueZ, the bytes were rebuilt
/// from btmon's decoded fields (btmon prints fields, not raw octets); the others are built from
/// the specification's parameter tables or sample data, as each comment says.
@Suite("HCI command byte vectors (Core 5.4 Vol 4 Part E §7)")
struct CommandVectorTests {
    /// Decodes `bytes` as a whole command packet and checks the typed value and the re-encoding.
    private func expectPacket<C: HCICommand & Hashable>(
        _ bytes: [UInt8], _ expected: C, sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        #expect(expected.packet.encoded == bytes, sourceLocation: sourceLocation)
        let packet = try HCICommandPacket(decoding: bytes)
        #expect(try packet.decodeCommand() as? C == expected, sourceLocation: sourceLocation)
    }

    @Test("LE Set Advertising Parameters: BlueZ defaults, ADV_IND at 1.28 s on all channels (§7.8.5)")
    func leSetAdvertisingParameters() throws {
        // btmon: Min/Max advertising interval 1280.000 msec (0x0800), Type ADV_IND (0x00),
        // Own address type Public, Direct address 00:00:00:00:00:00, Channel map 37, 38, 39 (0x07).
        try expectPacket(
            hex("06 20 0f 00 08 00 08 00 00 00 00 00 00 00 00 00 07 00"), HCI.LESetAdvertisingParameters())
        let decoded = try HCI.LESetAdvertisingParameters(
            decoding: hex("0008 0008 03 01 00 000000000000 07 00"))
        #expect(decoded.advertisingType == .nonConnectableUndirected)
        #expect(decoded.ownAddressType == .random)
        #expect(decoded.advertisingIntervalMaxMilliseconds == 1280)
    }

    @Test("LE Set Scan Parameters: BlueZ active discovery at 11.25 ms (§7.8.10)")
    func leSetScanParameters() throws {
        // btmon: Type Active (0x01), Interval 11.250 msec (0x0012), Window 11.250 msec (0x0012),
        // Own address type Public (0x00), Filter policy Accept all advertisement (0x00).
        try expectPacket(
            hex("0b 20 07 01 12 00 12 00 00 00"),
            HCI.LESetScanParameters(leScanType: .active, leScanInterval: 0x0012, leScanWindow: 0x0012))
    }

    @Test("LE Set Scan Enable: enabled with duplicate filtering, then disabled (§7.8.11)")
    func leSetScanEnable() throws {
        try expectPacket(
            hex("0c 20 02 01 01"), HCI.LESetScanEnable(leScanEnable: true, filterDuplicates: true))
        try expectPacket(hex("0c 20 02 00 00"), HCI.LESetScanEnable(leScanEnable: false))
    }

    @Test("LE Create Connection: BlueZ defaults, 60 ms scan, 30–50 ms interval, 420 ms timeout (§7.8.12)")
    func leCreateConnection() throws {
        // btmon: Scan interval/window 60.000 msec (0x0060), Filter policy not used, Peer address
        // type Random, Own address type Public, Min/Max connection interval 30.00/50.00 msec
        // (0x0018/0x0028), latency 0, Supervision timeout 420 msec (0x002a), CE lengths 0.
        let peer = try #require(BluetoothAddress("5C:F3:70:A1:B2:C3"))
        let command = HCI.LECreateConnection(
            leScanInterval: 0x0060, leScanWindow: 0x0060, peerAddressType: .random, peerAddress: peer,
            connectionParameters: .init(
                connectionIntervalMin: 0x0018, connectionIntervalMax: 0x0028, supervisionTimeout: 0x002A))
        try expectPacket(
            hex("0d 20 19 60 00 60 00 00 01 c3 b2 a1 70 f3 5c 00 18 00 28 00 00 00 2a 00 00 00 00 00"),
            command)
        #expect(HCI.LECreateConnection.completion == .commandStatus)
    }

    @Test("LE Set Extended Advertising Parameters: BlueZ legacy ADV_IND set, and its return (§7.8.53)")
    func leSetExtendedAdvertisingParameters() throws {
        // btmon: Handle 0x01, Properties 0x0013 (connectable, scannable, legacy: ADV_IND),
        // intervals 1280.000 msec (0x000800), Channel map 37, 38, 39, TX power 127 (0x7f, no
        // preference), Primary PHY LE 1M, Secondary max skip 0, Secondary PHY LE 1M, SID 0.
        let command = HCI.LESetExtendedAdvertisingParameters(
            advertisingHandle: 1, advertisingEventProperties: [.connectable, .scannable, .legacy])
        try expectPacket(
            hex("36 20 19 01 13 00 00 08 00 00 08 00 07 00 00 00 00 00 00 00 00 00 7f 01 00 01 00 00"),
            command)
        #expect(command.advertisingTXPower == HCI.LESetExtendedAdvertisingParameters.noTXPowerPreference)
        // Command Complete return parameters: Status Success, TX power (selected) 7 dbm.
        let returned = try HCI.LESetExtendedAdvertisingParameters.ReturnParameters(decoding: hex("00 07"))
        #expect(returned == .init(selectedTXPower: 7))
        // Version 2 appends the two PHY option octets (27 octets).
        let v2 = HCI.LESetExtendedAdvertisingParametersV2(
            parameters: command, primaryAdvertisingPHYOptions: .preferS2,
            secondaryAdvertisingPHYOptions: .requireS8)
        try expectPacket(
            hex("7f 20 1b 01 13 00 00 08 00 00 08 00 07 00 00 00 00 00 00 00 00 00 7f 01 00 01 00 00 01 04"),
            v2)
    }

    @Test("LE Set Extended Advertising Enable: per-set arrays are interleaved (§5.2, §7.8.56)")
    func leSetExtendedAdvertisingEnable() throws {
        let command = HCI.LESetExtendedAdvertisingEnable(
            enable: true,
            sets: [
                .init(advertisingHandle: 1, duration: 5, maxExtendedAdvertisingEvents: 8),
                .init(advertisingHandle: 2, duration: 6, maxExtendedAdvertisingEvents: 9),
                .init(advertisingHandle: 3, duration: 7, maxExtendedAdvertisingEvents: 10),
            ])
        try expectPacket(hex("39 20 0e 01 03 01 05 00 08 02 06 00 09 03 07 00 0a"), command)
    }

    @Test("LE Set Advertising Data: length octet plus a zero-padded 31-octet field (§7.8.7)")
    func leSetAdvertisingData() throws {
        // Flags (LE General Discoverable, BR/EDR not supported) as BlueZ sends them.
        let command = HCI.LESetAdvertisingData(advertisingData: [0x02, 0x01, 0x06])
        try expectPacket(hex("08 20 20 03 02 01 06") + [UInt8](repeating: 0, count: 28), command)
        // Octets past the declared length are not significant.
        let noisy = try HCI.LESetAdvertisingData(
            decoding: hex("03 020106") + [UInt8](repeating: 0xEE, count: 28))
        #expect(noisy == command)
    }

    @Test("LE Enable Encryption with the specification's sample LTK, EDIV and Rand (Vol 6 Part C §1.1)")
    func leEnableEncryption() throws {
        // Sample data: LTK 0x4C68384139F574D836BCF34E9DFB01BF, EDIV 0x2474, Rand
        // 0xABCDEF1234567890 — all sent least significant octet first.
        let command = HCI.LEEnableEncryption(
            connectionHandle: 0x0040, randomNumber: 0xABCD_EF12_3456_7890, encryptedDiversifier: 0x2474,
            longTermKey: HCI.Key128(0x4C68_3841_39F5_74D8_36BC_F34E_9DFB_01BF))
        try expectPacket(
            hex(
                "19 20 1c 40 00 90 78 56 34 12 ef cd ab 74 24 bf 01 fb 9d 4e f3 bc 36 d8 74 f5 39 41 38 68 4c"
            ),
            command)
        #expect(command.longTermKey.description == "4c68384139f574d836bcf34e9dfb01bf")
    }

    @Test("LE Encrypt: SK = e(LTK, SKD) with the specification's sample data (Vol 6 Part C §1.1)")
    func leEncrypt() throws {
        // SKD = SKDs || SKDm = 0x0213243546576879ACBDCEDFE0F10213; SK =
        // 0x99AD1B5226A37E3E058E3B8E27C2C666 (AES-128 checked independently).
        let command = HCI.LEEncrypt(
            key: HCI.Key128(0x4C68_3841_39F5_74D8_36BC_F34E_9DFB_01BF),
            plaintextData: HCI.Key128(0x0213_2435_4657_6879_ACBD_CEDF_E0F1_0213))
        try expectPacket(
            hex(
                "17 20 20 bf 01 fb 9d 4e f3 bc 36 d8 74 f5 39 41 38 68 4c 13 02 f1 e0 df ce bd ac 79 68 57 46 35 24 13 02"
            ),
            command)
        let returned = try HCI.LEEncrypt.ReturnParameters(
            decoding: hex("00 66 c6 c2 27 8e 3b 8e 05 3e 7e a3 26 52 1b ad 99"))
        #expect(returned.encryptedData == HCI.Key128(0x99AD_1B52_26A3_7E3E_058E_3B8E_27C2_C666))
    }

    @Test("Read Local Version Information return parameters (§7.4.1)")
    func readLocalVersionReturn() throws {
        // Status, HCI_Version 0x0D (5.4), HCI_Subversion 0x1234, LMP_Version 0x0D,
        // Company_Identifier 0x0002, LMP_Subversion 0x5678, in the order of the §7.4.1 table.
        let returned = try HCI.ReadLocalVersionInformation.ReturnParameters(
            decoding: hex("00 0d 34 12 0d 02 00 78 56"))
        #expect(
            returned
                == .init(
                    hciVersion: 0x0D, hciSubversion: 0x1234, lmpVersion: 0x0D, companyIdentifier: 2,
                    lmpSubversion: 0x5678))
        #expect(HCI.coreVersionName(returned.hciVersion) == "5.4")
        #expect(HCI.coreVersionName(0x09) == "5.0")
        #expect(HCI.coreVersionName(0x7F) == nil)
    }

    @Test("LE Read Buffer Size [v2] return parameters: 251-octet ACL, 15 buffers, ISO 300 × 4 (§7.8.2)")
    func leReadBufferSizeV2Return() throws {
        let returned = try HCI.LEReadBufferSizeV2.ReturnParameters(decoding: hex("00 fb 00 0f 2c 01 04"))
        #expect(returned.leACLDataPacketLength == 251)
        #expect(returned.totalNumLEACLDataPackets == 15)
        #expect(returned.isoDataPacketLength == 300)
        #expect(returned.totalNumISODataPackets == 4)
        #expect(returned.encoded == hex("00 fb 00 0f 2c 01 04"))
    }

    @Test("LE Read Local Supported Features return parameters name the bits of Vol 6 Part B §4.6")
    func leFeaturesReturn() throws {
        let returned = try HCI.LEReadLocalSupportedFeatures.ReturnParameters(
            decoding: hex("00 ff 79 01 00 00 00 00 80"))
        let features = returned.leFeatures
        #expect(features.contains([.leEncryption, .llPrivacy, .extendedScanningFilterPolicies]))
        #expect(features.contains([.le2MPHY, .leCodedPHY, .leExtendedAdvertising, .lePeriodicAdvertising]))
        #expect(features.contains([.channelSelectionAlgorithm2, .minimumNumberOfUsedChannelsProcedure]))
        #expect(!features.contains(.stableModulationIndexTransmitter))
        #expect(!features.contains(.lePowerClass1))
        // Bit 63 is not named by this version, but it is kept.
        #expect(features.rawValue >> 63 == 1)
        #expect(returned.encoded == hex("00 ff 79 01 00 00 00 00 80"))
        #expect(LEFeatures.leCodedPHY.rawValue == 0x800)
        #expect(LEFeatures.leExtendedAdvertising.rawValue == 0x1000)
        #expect(LEFeatures.connectionParametersRequestProcedure.rawValue == 0x02)
        #expect(LEFeatures.peripheralInitiatedFeaturesExchange.rawValue == 0x08)
        #expect(LEFeatures.lePing.rawValue == 0x10)
        #expect(LEFeatures.leDataPacketLengthExtension.rawValue == 0x20)
        #expect(LEFeatures.lePowerClass1.rawValue == 0x8000)
        #expect(Rendering.text(returned.leFeatures).contains("bit63"))
    }

    @Test("Disconnect, and the opcodes of the other command groups (§7.1.6, §5.4.1)")
    func opcodes() throws {
        try expectPacket(hex("06 04 03 40 00 13"), HCI.Disconnect(connectionHandle: 0x0040))
        #expect(HCI.ReadLocalVersionInformation.opcode.rawValue == 0x1001)
        #expect(HCI.ReadBDADDR.opcode.rawValue == 0x1009)
        #expect(HCI.ReadRSSI.opcode.rawValue == 0x1405)
        #expect(HCI.SetEventMask.opcode.rawValue == 0x0C01)
        #expect(HCI.WriteLEHostSupport.opcode.rawValue == 0x0C6D)
        #expect(HCI.LESetExtendedAdvertisingParametersV2.opcode.rawValue == 0x207F)
        #expect(HCI.LEReadBufferSizeV2.opcode.rawValue == 0x2060)
        try expectPacket(hex("01 0c 08 ff ff ff ff ff 1f 00 00"), HCI.SetEventMask())
        try expectPacket(hex("01 20 08 1f 00 00 00 00 00 00 00"), HCI.LESetEventMask())
        try expectPacket(hex("6d 0c 02 01 00"), HCI.WriteLEHostSupport())
    }

    @Test("Extended scanning and initiating: entries follow the PHY bits (§7.8.64, §7.8.66)")
    func extendedScanning() throws {
        // Scanning_PHYs 0x05: LE 1M entry, then LE Coded entry.
        let scan = HCI.LESetExtendedScanParameters(
            ownAddressType: .random, le1M: .init(scanType: .active, scanInterval: 0x0012, scanWindow: 0x0012),
            leCoded: .init(scanType: .passive, scanInterval: 0x0036, scanWindow: 0x0036))
        try expectPacket(hex("41 20 0d 01 00 05 01 12 00 12 00 00 36 00 36 00"), scan)
        try expectPacket(
            hex("42 20 06 01 01 00 00 00 00"),
            HCI.LESetExtendedScanEnable(enable: true, filterDuplicates: .enabled))
        // Initiating_PHYs 0x01 with one 16-octet entry.
        let peer = try #require(BluetoothAddress("5C:F3:70:A1:B2:C3"))
        let connect = HCI.LEExtendedCreateConnection(
            peerAddressType: .public, peerAddress: peer,
            le1M: .init(
                scanInterval: 0x0060, scanWindow: 0x0060,
                connectionParameters: .init(
                    connectionIntervalMin: 0x0018, connectionIntervalMax: 0x0028, supervisionTimeout: 0x002A))
        )
        try expectPacket(
            hex("43 20 1a 00 00 00 c3 b2 a1 70 f3 5c 01 60 00 60 00 18 00 28 00 00 00 2a 00 00 00 00 00"),
            connect)
    }
}
