import BLEWire

/// A PDU on an advertising physical channel (Core 5.4 Vol 6 Part B §2.3): the legacy PDUs on the
/// primary channels, and the extended PDUs of the common extended advertising payload format
/// (§2.3.4) on primary and secondary channels.
///
/// Only what receivers act on is kept, but `payloadLength` counts every octet the real PDU
/// carries, so air times are exact.
enum AdvertisingChannelPDU {
    /// ADV_IND: connectable and scannable undirected (§2.3.1.1).
    case advInd(advertiser: LEAddress, data: [UInt8])
    /// ADV_DIRECT_IND: connectable directed (§2.3.1.2).
    case advDirectInd(advertiser: LEAddress, target: LEAddress)
    /// ADV_NONCONN_IND: non-connectable, non-scannable undirected (§2.3.1.3).
    case advNonconnInd(advertiser: LEAddress, data: [UInt8])
    /// ADV_SCAN_IND: scannable undirected (§2.3.1.4).
    case advScanInd(advertiser: LEAddress, data: [UInt8])
    /// SCAN_REQ (§2.3.2.1), or AUX_SCAN_REQ on a secondary channel (§2.3.2.2): same layout.
    case scanRequest(scanner: LEAddress, advertiser: LEAddress, auxiliary: Bool)
    /// SCAN_RSP (§2.3.2.3).
    case scanRsp(advertiser: LEAddress, data: [UInt8])
    /// CONNECT_IND (§2.3.3.1), or AUX_CONNECT_REQ on a secondary channel (§2.3.3.2).
    case connectRequest(initiator: LEAddress, advertiser: LEAddress, request: ConnectionRequestData, auxiliary: Bool)
    /// ADV_EXT_IND, AUX_ADV_IND, AUX_CHAIN_IND, AUX_SCAN_RSP, AUX_CONNECT_RSP (§2.3.4).
    case extended(ExtendedAdvertisingPDU)

    /// Octets of the PDU payload (after the 2-octet header).
    var payloadLength: Int {
        switch self {
        case .advInd(_, let data), .advNonconnInd(_, let data), .advScanInd(_, let data), .scanRsp(_, let data):
            6 + data.count
        case .advDirectInd, .scanRequest: 12
        case .connectRequest: 34
        case .extended(let pdu): pdu.payloadLength
        }
    }

    /// The advertiser's address the PDU names (AdvA), if any.
    var advertiserAddress: LEAddress? {
        switch self {
        case .advInd(let a, _), .advDirectInd(let a, _), .advNonconnInd(let a, _), .advScanInd(let a, _),
            .scanRsp(let a, _):
            a
        case .scanRequest(_, let a, _), .connectRequest(_, let a, _, _): a
        case .extended(let pdu): pdu.advertiser
        }
    }
}

/// LLData of CONNECT_IND and AUX_CONNECT_REQ (Core 5.4 Vol 6 Part B §2.3.3.1): the parameters the
/// initiator chose for the new connection.
struct ConnectionRequestData {
    var accessAddress: UInt32
    var crcInit: UInt32
    /// WinSize in 1.25 ms units.
    var windowSize: UInt8
    /// WinOffset in 1.25 ms units.
    var windowOffset: UInt16
    /// Interval in 1.25 ms units.
    var interval: UInt16
    var latency: UInt16
    /// Timeout in 10 ms units.
    var timeout: UInt16
    var channelMap: HCI.LEChannelMap
    var hop: UInt8
    /// SCA: the central's sleep clock accuracy code (0–7).
    var sleepClockAccuracy: UInt8
    /// The PHY the connection starts on: LE 1M after CONNECT_IND, the secondary advertising PHY
    /// after AUX_CONNECT_REQ (§4.5.1).
    var phy: PHY
    /// The simulation's handle on the data channel the request opens (stands for the access
    /// address that lets the two radios find each other).
    let link: ConnectionLink
}

/// The AdvMode of the extended header (Core 5.4 Vol 6 Part B §2.3.4.1).
enum ExtendedAdvertisingMode: Hashable {
    case nonConnectableNonScannable
    case connectable
    case scannable
}

/// The common extended advertising payload (Core 5.4 Vol 6 Part B §2.3.4): an extended header
/// with optional fields, then advertising data.
struct ExtendedAdvertisingPDU {
    /// Which PDU of the extended family this is (§2.3.4, table 2.3).
    enum Kind: Hashable {
        case advExtInd
        case auxAdvInd
        case auxChainInd
        case auxScanRsp
        case auxConnectRsp
    }

    /// AuxPtr (§2.3.4.5): where and when the next PDU of the chain is sent. The offset counts
    /// from the start of the PDU carrying the pointer.
    struct AuxPointer: Hashable {
        var channel: UInt8
        var offset: Duration
        var phy: PHY
    }

    /// ADI (§2.3.4.6): which set, and which version of its data.
    struct DataInfo: Hashable {
        var did: UInt16
        var sid: UInt8
    }

    var kind: Kind
    var mode: ExtendedAdvertisingMode
    /// AdvA; nil for anonymous advertising or when the aux PDU carries it.
    var advertiser: LEAddress?
    /// TargetA of directed advertising.
    var target: LEAddress?
    var dataInfo: DataInfo?
    var auxPointer: AuxPointer?
    var txPower: Int8?
    var data: ArraySlice<UInt8>

    /// Extended header octets after the length/AdvMode octet: the flags octet and the fields.
    static func headerLength(
        advertiser: Bool, target: Bool, dataInfo: Bool, auxPointer: Bool, txPower: Bool
    ) -> Int {
        let fields =
            (advertiser ? 6 : 0) + (target ? 6 : 0) + (dataInfo ? 2 : 0) + (auxPointer ? 3 : 0) + (txPower ? 1 : 0)
        return fields == 0 ? 0 : 1 + fields
    }

    var payloadLength: Int {
        1
            + Self.headerLength(
                advertiser: advertiser != nil, target: target != nil, dataInfo: dataInfo != nil,
                auxPointer: auxPointer != nil, txPower: txPower != nil) + data.count
    }

    /// The largest PDU payload (§2.3.4: 255 octets).
    static let maximumPayload = 255
}
