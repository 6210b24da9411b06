/// The Supported_Commands bitmap (Core 5.4 Vol 4 Part E §6.27): 64 octets, one bit per command,
/// returned by HCI_Read_Local_Supported_Commands (§7.4.2).
///
/// `contains(_:)` answers from the bit table of §6.27 for every command `HCICommandTable` knows;
/// a virtual controller builds its bitmap with `init(opcodes:)` from exactly the commands it
/// implements. HCI_Read_Local_Supported_Commands itself has no bit (it is mandatory), so it is
/// never reported. Bits of commands this version does not know are kept as received.
///
/// Stored inline as eight 64-bit words (octet 0 in the low octet of the first), so decoding
/// does not allocate.
public struct HCISupportedCommands: Hashable, Sendable, WireCodable, WireRenderable, CustomRendering {
    private var w0: UInt64 = 0, w1: UInt64 = 0, w2: UInt64 = 0, w3: UInt64 = 0
    private var w4: UInt64 = 0, w5: UInt64 = 0, w6: UInt64 = 0, w7: UInt64 = 0

    /// Number of octets in the bitmap.
    public static let octetCount = 64

    /// No command supported.
    public init() {}

    /// The bits of `opcodes`; opcodes without a bit in §6.27 are ignored.
    public init(opcodes: some Sequence<HCIOpcode>) {
        for opcode in opcodes { insert(opcode) }
    }

    /// Every command of `HCICommandTable` that has a bit: what a controller implementing the
    /// whole table reports.
    public static var allInTable: HCISupportedCommands {
        HCISupportedCommands(opcodes: HCICommandTable.entries.map(\.opcode))
    }

    /// From the 64 octets as sent; nil for another count.
    public init?(octets: some Collection<UInt8>) {
        guard octets.count == Self.octetCount else { return nil }
        for (i, octet) in octets.enumerated() where octet != 0 {
            setWord(i / 8, word(i / 8) | UInt64(octet) << (8 * UInt64(i % 8)))
        }
    }

    public init(from reader: inout ByteReader) throws(DecodeError) {
        try reader.require(Self.octetCount, "Supported_Commands")
        w0 = try reader.u64("Supported_Commands")
        w1 = try reader.u64("Supported_Commands")
        w2 = try reader.u64("Supported_Commands")
        w3 = try reader.u64("Supported_Commands")
        w4 = try reader.u64("Supported_Commands")
        w5 = try reader.u64("Supported_Commands")
        w6 = try reader.u64("Supported_Commands")
        w7 = try reader.u64("Supported_Commands")
    }

    public func encode(into writer: inout ByteWriter) {
        for w in [w0, w1, w2, w3, w4, w5, w6, w7] { writer.u64(w) }
    }

    /// The 64 octets in wire order.
    public var octets: [UInt8] {
        var writer = ByteWriter(capacity: Self.octetCount)
        encode(into: &writer)
        return writer.bytes
    }

    /// Whether bit `bit` (0–7) of octet `octet` (0–63) is set; false outside the bitmap.
    public func isSet(octet: Int, bit: Int) -> Bool {
        guard (0..<Self.octetCount).contains(octet), (0..<8).contains(bit) else { return false }
        return word(octet / 8) >> UInt64((octet % 8) * 8 + bit) & 1 == 1
    }

    /// Sets or clears bit `bit` of octet `octet`; positions outside the bitmap are ignored.
    public mutating func set(octet: Int, bit: Int, to value: Bool = true) {
        guard (0..<Self.octetCount).contains(octet), (0..<8).contains(bit) else { return }
        let mask: UInt64 = 1 << UInt64((octet % 8) * 8 + bit)
        let old = word(octet / 8)
        setWord(octet / 8, value ? old | mask : old & ~mask)
    }

    /// Whether the bitmap reports `opcode` as supported (false for commands without a bit).
    public func contains(_ opcode: HCIOpcode) -> Bool {
        guard let position = Self.bitPosition(of: opcode) else { return false }
        return isSet(octet: position.octet, bit: position.bit)
    }

    /// Marks `opcode` as supported; returns false when §6.27 gives it no bit.
    @discardableResult
    public mutating func insert(_ opcode: HCIOpcode) -> Bool {
        guard let position = Self.bitPosition(of: opcode) else { return false }
        set(octet: position.octet, bit: position.bit)
        return true
    }

    /// Marks `opcode` as not supported.
    public mutating func remove(_ opcode: HCIOpcode) {
        guard let position = Self.bitPosition(of: opcode) else { return }
        set(octet: position.octet, bit: position.bit, to: false)
    }

    /// The known commands whose bits are set, in bit order.
    public var supportedOpcodes: [HCIOpcode] {
        Self.bitTable.filter { isSet(octet: $0.octet, bit: $0.bit) }.map(\.opcode)
    }

    /// Where §6.27 puts `opcode`'s bit, or nil when this version knows no bit for it.
    public static func bitPosition(of opcode: HCIOpcode) -> (octet: Int, bit: Int)? {
        guard let row = bitTable.first(where: { $0.opcode == opcode }) else { return nil }
        return (row.octet, row.bit)
    }

    public var rendered: RenderedValue {
        var items: [RenderedValue] = []
        for octet in 0..<Self.octetCount {
            for bit in 0..<8 where isSet(octet: octet, bit: bit) {
                let row = Self.bitTable.first { $0.octet == octet && $0.bit == bit }
                items.append(.symbol(row?.opcode.name ?? "octet \(octet) bit \(bit)"))
            }
        }
        return .array(items)
    }

    private func word(_ index: Int) -> UInt64 {
        switch index {
        case 0: w0
        case 1: w1
        case 2: w2
        case 3: w3
        case 4: w4
        case 5: w5
        case 6: w6
        default: w7
        }
    }

    private mutating func setWord(_ index: Int, _ value: UInt64) {
        switch index {
        case 0: w0 = value
        case 1: w1 = value
        case 2: w2 = value
        case 3: w3 = value
        case 4: w4 = value
        case 5: w5 = value
        case 6: w6 = value
        default: w7 = value
        }
    }

    /// The rows of the §6.27 table for the commands this version implements, in bit order.
    static let bitTable: [(opcode: HCIOpcode, octet: Int, bit: Int)] = [
        (HCI.Disconnect.opcode, 0, 5),
        (HCI.ReadRemoteVersionInformation.opcode, 2, 7),
        (HCI.SetEventMask.opcode, 5, 6),
        (HCI.Reset.opcode, 5, 7),
        (HCI.ReadTransmitPowerLevel.opcode, 10, 2),
        (HCI.SetControllerToHostFlowControl.opcode, 10, 5),
        (HCI.HostBufferSize.opcode, 10, 6),
        (HCI.ReadLocalVersionInformation.opcode, 14, 3),
        (HCI.ReadLocalSupportedFeatures.opcode, 14, 5),
        (HCI.ReadLocalExtendedFeatures.opcode, 14, 6),
        (HCI.ReadBufferSize.opcode, 14, 7),
        (HCI.ReadBDADDR.opcode, 15, 1),
        (HCI.ReadRSSI.opcode, 15, 5),
        (HCI.SetEventMaskPage2.opcode, 22, 2),
        (HCI.ReadLEHostSupport.opcode, 24, 5),
        (HCI.WriteLEHostSupport.opcode, 24, 6),
        (HCI.LESetEventMask.opcode, 25, 0),
        (HCI.LEReadBufferSize.opcode, 25, 1),
        (HCI.LEReadLocalSupportedFeatures.opcode, 25, 2),
        (HCI.LESetRandomAddress.opcode, 25, 4),
        (HCI.LESetAdvertisingParameters.opcode, 25, 5),
        (HCI.LEReadAdvertisingPhysicalChannelTxPower.opcode, 25, 6),
        (HCI.LESetAdvertisingData.opcode, 25, 7),
        (HCI.LESetScanResponseData.opcode, 26, 0),
        (HCI.LESetAdvertisingEnable.opcode, 26, 1),
        (HCI.LESetScanParameters.opcode, 26, 2),
        (HCI.LESetScanEnable.opcode, 26, 3),
        (HCI.LECreateConnection.opcode, 26, 4),
        (HCI.LECreateConnectionCancel.opcode, 26, 5),
        (HCI.LEReadFilterAcceptListSize.opcode, 26, 6),
        (HCI.LEClearFilterAcceptList.opcode, 26, 7),
        (HCI.LEAddDeviceToFilterAcceptList.opcode, 27, 0),
        (HCI.LERemoveDeviceFromFilterAcceptList.opcode, 27, 1),
        (HCI.LEConnectionUpdate.opcode, 27, 2),
        (HCI.LESetHostChannelClassification.opcode, 27, 3),
        (HCI.LEReadChannelMap.opcode, 27, 4),
        (HCI.LEReadRemoteFeatures.opcode, 27, 5),
        (HCI.LEEncrypt.opcode, 27, 6),
        (HCI.LERand.opcode, 27, 7),
        (HCI.LEEnableEncryption.opcode, 28, 0),
        (HCI.LELongTermKeyRequestReply.opcode, 28, 1),
        (HCI.LELongTermKeyRequestNegativeReply.opcode, 28, 2),
        (HCI.LEReadSupportedStates.opcode, 28, 3),
        (HCI.ReadAuthenticatedPayloadTimeout.opcode, 32, 4),
        (HCI.WriteAuthenticatedPayloadTimeout.opcode, 32, 5),
        (HCI.LERemoteConnectionParameterRequestReply.opcode, 33, 4),
        (HCI.LERemoteConnectionParameterRequestNegativeReply.opcode, 33, 5),
        (HCI.LESetDataLength.opcode, 33, 6),
        (HCI.LEReadSuggestedDefaultDataLength.opcode, 33, 7),
        (HCI.LEWriteSuggestedDefaultDataLength.opcode, 34, 0),
        (HCI.LEReadLocalP256PublicKey.opcode, 34, 1),
        (HCI.LEGenerateDHKey.opcode, 34, 2),
        (HCI.LEAddDeviceToResolvingList.opcode, 34, 3),
        (HCI.LERemoveDeviceFromResolvingList.opcode, 34, 4),
        (HCI.LEClearResolvingList.opcode, 34, 5),
        (HCI.LEReadResolvingListSize.opcode, 34, 6),
        (HCI.LEReadPeerResolvableAddress.opcode, 34, 7),
        (HCI.LEReadLocalResolvableAddress.opcode, 35, 0),
        (HCI.LESetAddressResolutionEnable.opcode, 35, 1),
        (HCI.LESetResolvablePrivateAddressTimeout.opcode, 35, 2),
        (HCI.LEReadMaximumDataLength.opcode, 35, 3),
        (HCI.LEReadPHY.opcode, 35, 4),
        (HCI.LESetDefaultPHY.opcode, 35, 5),
        (HCI.LESetPHY.opcode, 35, 6),
        (HCI.LESetAdvertisingSetRandomAddress.opcode, 36, 1),
        (HCI.LESetExtendedAdvertisingParameters.opcode, 36, 2),
        (HCI.LESetExtendedAdvertisingData.opcode, 36, 3),
        (HCI.LESetExtendedScanResponseData.opcode, 36, 4),
        (HCI.LESetExtendedAdvertisingEnable.opcode, 36, 5),
        (HCI.LEReadMaximumAdvertisingDataLength.opcode, 36, 6),
        (HCI.LEReadNumberOfSupportedAdvertisingSets.opcode, 36, 7),
        (HCI.LERemoveAdvertisingSet.opcode, 37, 0),
        (HCI.LEClearAdvertisingSets.opcode, 37, 1),
        (HCI.LESetExtendedScanParameters.opcode, 37, 5),
        (HCI.LESetExtendedScanEnable.opcode, 37, 6),
        (HCI.LEExtendedCreateConnection.opcode, 37, 7),
        (HCI.LEReadTransmitPower.opcode, 38, 7),
        (HCI.LESetPrivacyMode.opcode, 39, 2),
        (HCI.LEReadBufferSizeV2.opcode, 41, 5),
        (HCI.LESetHostFeature.opcode, 44, 1),
        (HCI.LESetExtendedAdvertisingParametersV2.opcode, 46, 2),
    ]
}
