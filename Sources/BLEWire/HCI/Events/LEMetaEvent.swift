/// The subevents of HCI_LE_Meta_Event (Core 5.4 Vol 4 Part E §7.7.65): its parameters start
/// with Subevent_Code, followed by the subevent's parameters.
///
/// As for every HCI event, octets past the parameters this version knows are ignored by
/// `HCIEvent` (later versions append parameters); `LEMetaEvent(decoding:)` alone, like every
/// `init(decoding:)`, rejects them. Unknown subevents are kept raw.
public enum LEMetaEvent: Sendable, Hashable, WireCodable, WireRenderable {
    /// HCI_LE_Connection_Complete (§7.7.65.1).
    case connectionComplete(ConnectionComplete)
    /// HCI_LE_Advertising_Report (§7.7.65.2).
    case advertisingReport(AdvertisingReport)
    /// HCI_LE_Connection_Update_Complete (§7.7.65.3).
    case connectionUpdateComplete(ConnectionUpdateComplete)
    /// HCI_LE_Read_Remote_Features_Complete (§7.7.65.4).
    case readRemoteFeaturesComplete(ReadRemoteFeaturesComplete)
    /// HCI_LE_Long_Term_Key_Request (§7.7.65.5).
    case longTermKeyRequest(LongTermKeyRequest)
    /// HCI_LE_Remote_Connection_Parameter_Request (§7.7.65.6).
    case remoteConnectionParameterRequest(RemoteConnectionParameterRequest)
    /// HCI_LE_Data_Length_Change (§7.7.65.7).
    case dataLengthChange(DataLengthChange)
    /// HCI_LE_Read_Local_P-256_Public_Key_Complete (§7.7.65.8).
    case readLocalP256PublicKeyComplete(ReadLocalP256PublicKeyComplete)
    /// HCI_LE_Generate_DHKey_Complete (§7.7.65.9).
    case generateDHKeyComplete(GenerateDHKeyComplete)
    /// HCI_LE_Enhanced_Connection_Complete [v1] (§7.7.65.10), subevent 0x0A.
    case enhancedConnectionComplete(EnhancedConnectionComplete)
    /// HCI_LE_Directed_Advertising_Report (§7.7.65.11).
    case directedAdvertisingReport(DirectedAdvertisingReport)
    /// HCI_LE_PHY_Update_Complete (§7.7.65.12).
    case phyUpdateComplete(PHYUpdateComplete)
    /// HCI_LE_Extended_Advertising_Report (§7.7.65.13).
    case extendedAdvertisingReport(ExtendedAdvertisingReport)
    /// HCI_LE_Scan_Timeout (§7.7.65.17): scanning ended after its duration; no parameters.
    case scanTimeout
    /// HCI_LE_Advertising_Set_Terminated (§7.7.65.18).
    case advertisingSetTerminated(AdvertisingSetTerminated)
    /// HCI_LE_Scan_Request_Received (§7.7.65.19).
    case scanRequestReceived(ScanRequestReceived)
    /// HCI_LE_Channel_Selection_Algorithm (§7.7.65.20).
    case channelSelectionAlgorithm(ChannelSelectionAlgorithm)
    /// HCI_LE_Enhanced_Connection_Complete [v2] (§7.7.65.10), subevent 0x29: v1 plus the
    /// advertising set and periodic advertising train the connection came from.
    case enhancedConnectionCompleteV2(EnhancedConnectionCompleteV2)
    /// A subevent this version does not decode, kept as received.
    case unknown(subevent: UInt8, parameters: ArraySlice<UInt8>)

    /// The Subevent_Code this value is sent with.
    public var subeventCode: UInt8 {
        switch self {
        case .connectionComplete: 0x01
        case .advertisingReport: 0x02
        case .connectionUpdateComplete: 0x03
        case .readRemoteFeaturesComplete: 0x04
        case .longTermKeyRequest: 0x05
        case .remoteConnectionParameterRequest: 0x06
        case .dataLengthChange: 0x07
        case .readLocalP256PublicKeyComplete: 0x08
        case .generateDHKeyComplete: 0x09
        case .enhancedConnectionComplete: 0x0A
        case .directedAdvertisingReport: 0x0B
        case .phyUpdateComplete: 0x0C
        case .extendedAdvertisingReport: 0x0D
        case .scanTimeout: 0x11
        case .advertisingSetTerminated: 0x12
        case .scanRequestReceived: 0x13
        case .channelSelectionAlgorithm: 0x14
        case .enhancedConnectionCompleteV2: 0x29
        case .unknown(let subevent, _): subevent
        }
    }

    /// Reads Subevent_Code and the subevent's parameters; leaves any later octets unread.
    public init(from reader: inout ByteReader) throws(DecodeError) {
        reader.context = "HCI LE Meta event"
        let subevent = try reader.u8("Subevent_Code")
        switch subevent {
        case 0x01: self = .connectionComplete(try ConnectionComplete(from: &reader))
        case 0x02: self = .advertisingReport(try AdvertisingReport(from: &reader))
        case 0x03: self = .connectionUpdateComplete(try ConnectionUpdateComplete(from: &reader))
        case 0x04: self = .readRemoteFeaturesComplete(try ReadRemoteFeaturesComplete(from: &reader))
        case 0x05: self = .longTermKeyRequest(try LongTermKeyRequest(from: &reader))
        case 0x06:
            self = .remoteConnectionParameterRequest(try RemoteConnectionParameterRequest(from: &reader))
        case 0x07: self = .dataLengthChange(try DataLengthChange(from: &reader))
        case 0x08:
            self = .readLocalP256PublicKeyComplete(try ReadLocalP256PublicKeyComplete(from: &reader))
        case 0x09: self = .generateDHKeyComplete(try GenerateDHKeyComplete(from: &reader))
        case 0x0A: self = .enhancedConnectionComplete(try EnhancedConnectionComplete(from: &reader))
        case 0x0B: self = .directedAdvertisingReport(try DirectedAdvertisingReport(from: &reader))
        case 0x0C: self = .phyUpdateComplete(try PHYUpdateComplete(from: &reader))
        case 0x0D: self = .extendedAdvertisingReport(try ExtendedAdvertisingReport(from: &reader))
        case 0x11: self = .scanTimeout
        case 0x12: self = .advertisingSetTerminated(try AdvertisingSetTerminated(from: &reader))
        case 0x13: self = .scanRequestReceived(try ScanRequestReceived(from: &reader))
        case 0x14: self = .channelSelectionAlgorithm(try ChannelSelectionAlgorithm(from: &reader))
        case 0x29: self = .enhancedConnectionCompleteV2(try EnhancedConnectionCompleteV2(from: &reader))
        default: self = .unknown(subevent: subevent, parameters: reader.rest())
        }
    }

    /// Writes Subevent_Code and the subevent's parameters.
    public func encode(into writer: inout ByteWriter) {
        writer.u8(subeventCode)
        switch self {
        case .connectionComplete(let event): event.encode(into: &writer)
        case .advertisingReport(let event): event.encode(into: &writer)
        case .connectionUpdateComplete(let event): event.encode(into: &writer)
        case .readRemoteFeaturesComplete(let event): event.encode(into: &writer)
        case .longTermKeyRequest(let event): event.encode(into: &writer)
        case .remoteConnectionParameterRequest(let event): event.encode(into: &writer)
        case .dataLengthChange(let event): event.encode(into: &writer)
        case .readLocalP256PublicKeyComplete(let event): event.encode(into: &writer)
        case .generateDHKeyComplete(let event): event.encode(into: &writer)
        case .enhancedConnectionComplete(let event): event.encode(into: &writer)
        case .directedAdvertisingReport(let event): event.encode(into: &writer)
        case .phyUpdateComplete(let event): event.encode(into: &writer)
        case .extendedAdvertisingReport(let event): event.encode(into: &writer)
        case .scanTimeout: break
        case .advertisingSetTerminated(let event): event.encode(into: &writer)
        case .scanRequestReceived(let event): event.encode(into: &writer)
        case .channelSelectionAlgorithm(let event): event.encode(into: &writer)
        case .enhancedConnectionCompleteV2(let event): event.encode(into: &writer)
        case .unknown(_, let parameters): writer.append(parameters)
        }
    }

    /// The specification's name of a subevent code, or nil for one this version does not know.
    public static func name(ofSubevent code: UInt8) -> String? {
        switch code {
        case 0x01: "LE Connection Complete"
        case 0x02: "LE Advertising Report"
        case 0x03: "LE Connection Update Complete"
        case 0x04: "LE Read Remote Features Complete"
        case 0x05: "LE Long Term Key Request"
        case 0x06: "LE Remote Connection Parameter Request"
        case 0x07: "LE Data Length Change"
        case 0x08: "LE Read Local P-256 Public Key Complete"
        case 0x09: "LE Generate DHKey Complete"
        case 0x0A: "LE Enhanced Connection Complete [v1]"
        case 0x0B: "LE Directed Advertising Report"
        case 0x0C: "LE PHY Update Complete"
        case 0x0D: "LE Extended Advertising Report"
        case 0x0E: "LE Periodic Advertising Sync Established"
        case 0x0F: "LE Periodic Advertising Report"
        case 0x10: "LE Periodic Advertising Sync Lost"
        case 0x11: "LE Scan Timeout"
        case 0x12: "LE Advertising Set Terminated"
        case 0x13: "LE Scan Request Received"
        case 0x14: "LE Channel Selection Algorithm"
        case 0x19: "LE CIS Established"
        case 0x1A: "LE CIS Request"
        case 0x29: "LE Enhanced Connection Complete [v2]"
        default: nil
        }
    }
}

extension LEMetaEvent {
    /// The local device's role on a connection (Core 5.4 Vol 4 Part E §7.7.65.1, Role).
    public enum Role: Sendable, Hashable, CustomRendering {
        /// 0x00.
        case central
        /// 0x01.
        case peripheral
        /// A reserved value, kept as received.
        case other(UInt8)

        public init(rawValue: UInt8) {
            switch rawValue {
            case 0x00: self = .central
            case 0x01: self = .peripheral
            default: self = .other(rawValue)
            }
        }

        public var rawValue: UInt8 {
            switch self {
            case .central: 0x00
            case .peripheral: 0x01
            case .other(let value): value
            }
        }

        public var rendered: RenderedValue {
            switch self {
            case .central: .symbol("central")
            case .peripheral: .symbol("peripheral")
            case .other(let value): .symbol("reserved(\(Hex.prefixed(value, width: 2)))")
            }
        }
    }

    /// Central_Clock_Accuracy (Core 5.4 Vol 4 Part E §7.7.65.1): the central's sleep clock
    /// accuracy in parts per million, for each code 0x00–0x07; nil for reserved codes.
    public static func clockAccuracyPPM(_ code: UInt8) -> Int? {
        switch code {
        case 0x00: 500
        case 0x01: 250
        case 0x02: 150
        case 0x03: 100
        case 0x04: 75
        case 0x05: 50
        case 0x06: 30
        case 0x07: 20
        default: nil
        }
    }
}
