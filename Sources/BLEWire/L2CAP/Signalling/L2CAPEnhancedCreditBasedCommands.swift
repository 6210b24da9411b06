extension L2CAPSignal {
    /// Ranges of the enhanced credit based flow control mode (Core 5.4 Vol 3 Part A §4.25,
    /// §4.27): MTU and MPS of at least 64.
    public static let enhancedMTURange: ClosedRange<Int> = 64...65535
    public static let enhancedMPSRange: ClosedRange<Int> = 64...65533

    /// L2CAP_CREDIT_BASED_CONNECTION_REQ (Core 5.4 Vol 3 Part A §4.25): open one to five
    /// channels with enhanced credit based flow control, sharing MTU, MPS and initial credits.
    ///
    /// Decoding requires one to five Source CIDs (`.truncated` for none or an odd octet,
    /// `.trailingBytes` past five) and accepts any field value. `validate()` / `refusal` report,
    /// in this order, MTU below 64 or MPS outside 64...65533 (All connections refused – invalid
    /// parameters), SPSM outside the LE range 0x0001...0x00FF (SPSM not supported) and a Source
    /// CID outside the LE dynamic range (Some connections refused – invalid Source CID).
    public struct CreditBasedConnectionRequest: L2CAPSignalParameters {
        public static let code = L2CAPSignalCode.creditBasedConnectionRequest

        public var spsm: UInt16
        public var mtu: UInt16
        public var mps: UInt16
        public var initialCredits: UInt16
        /// One to five Source CIDs.
        public var sourceCIDs: CIDList

        public init(spsm: UInt16, mtu: UInt16, mps: UInt16, initialCredits: UInt16, sourceCIDs: CIDList) {
            self.spsm = spsm
            self.mtu = mtu
            self.mps = mps
            self.initialCredits = initialCredits
            self.sourceCIDs = sourceCIDs
        }

        public init(from reader: inout ByteReader) throws(DecodeError) {
            reader.context = "L2CAP_CREDIT_BASED_CONNECTION_REQ"
            spsm = try reader.u16("SPSM")
            mtu = try reader.u16("MTU")
            mps = try reader.u16("MPS")
            initialCredits = try reader.u16("Initial Credits")
            sourceCIDs = try CIDList(from: &reader, minimum: 1, field: "Source CID")
        }

        public func encode(into writer: inout ByteWriter) {
            writer.u16(spsm)
            writer.u16(mtu)
            writer.u16(mps)
            writer.u16(initialCredits)
            sourceCIDs.encode(into: &writer)
        }

        /// Throws `.outOfRange` for the first field outside the ranges listed above.
        public func validate() throws(DecodeError) {
            if let violation { throw violation.0 }
        }

        /// The result to answer out-of-range parameters with, or nil when they are in range.
        public var refusal: CreditBasedConnectionResponse.Result? { violation?.1 }

        private var violation: (DecodeError, CreditBasedConnectionResponse.Result)? {
            func fail(_ field: StaticString, _ offset: Int, _ value: UInt16, _ allowed: ClosedRange<Int>)
                -> DecodeError
            {
                DecodeError(
                    context: "L2CAP_CREDIT_BASED_CONNECTION_REQ", field: field, offset: offset,
                    reason: .outOfRange(value: Int(value), allowed: allowed))
            }
            if !L2CAPSignal.enhancedMTURange.contains(Int(mtu)) {
                return (fail("MTU", 2, mtu, L2CAPSignal.enhancedMTURange), .allRefusedInvalidParameters)
            }
            if !L2CAPSignal.enhancedMPSRange.contains(Int(mps)) {
                return (fail("MPS", 4, mps, L2CAPSignal.enhancedMPSRange), .allRefusedInvalidParameters)
            }
            let spsmRange = LECreditBasedConnectionRequest.spsmRange
            if !spsmRange.contains(Int(spsm)) {
                return (fail("SPSM", 0, spsm, spsmRange), .allRefusedSPSMNotSupported)
            }
            for (index, cid) in sourceCIDs.enumerated() where !L2CAPSignal.leDynamicCIDs.contains(cid) {
                return (fail("Source CID", 8 + 2 * index, cid, 0x0040...0x007F), .someRefusedInvalidSourceCID)
            }
            return nil
        }

        public var command: L2CAPSignalCommand { .creditBasedConnectionRequest(self) }
    }

    /// L2CAP_CREDIT_BASED_CONNECTION_RSP (Core 5.4 Vol 3 Part A §4.26): one Destination CID per
    /// requested channel, 0x0000 for a channel that was not opened.
    ///
    /// The specification sends as many Destination CIDs as the request had Source CIDs; this
    /// decoder also accepts none, as stacks send when they refuse a request they could not
    /// parse, so the result stays readable. More than five is `.trailingBytes`.
    public struct CreditBasedConnectionResponse: L2CAPSignalParameters {
        public static let code = L2CAPSignalCode.creditBasedConnectionResponse

        /// Result (§4.26); every code Core 5.4 defines, reserved values kept.
        public enum Result: Hashable, Sendable {
            /// 0x0000 All connections successful.
            case allSuccessful
            /// 0x0002 All connections refused – SPSM not supported.
            case allRefusedSPSMNotSupported
            /// 0x0004 Some connections refused – insufficient resources available.
            case someRefusedInsufficientResources
            /// 0x0005 All connections refused – insufficient authentication.
            case allRefusedInsufficientAuthentication
            /// 0x0006 All connections refused – insufficient authorization.
            case allRefusedInsufficientAuthorization
            /// 0x0007 All connections refused – encryption key size too short.
            case allRefusedEncryptionKeySizeTooShort
            /// 0x0008 All connections refused – insufficient encryption.
            case allRefusedInsufficientEncryption
            /// 0x0009 Some connections refused – invalid Source CID.
            case someRefusedInvalidSourceCID
            /// 0x000A Some connections refused – Source CID already allocated.
            case someRefusedSourceCIDAlreadyAllocated
            /// 0x000B All connections refused – unacceptable parameters.
            case allRefusedUnacceptableParameters
            /// 0x000C All connections refused – invalid parameters.
            case allRefusedInvalidParameters
            /// 0x000D All connections pending – no further information available.
            case allPendingNoFurtherInformation
            /// 0x000E All connections pending – authentication pending.
            case allPendingAuthentication
            /// 0x000F All connections pending – authorization pending.
            case allPendingAuthorization
            /// 0x0001, 0x0003, 0x0010...0xFFFF: reserved.
            case reserved(UInt16)

            public init(rawValue: UInt16) {
                switch rawValue {
                case 0x0000: self = .allSuccessful
                case 0x0002: self = .allRefusedSPSMNotSupported
                case 0x0004: self = .someRefusedInsufficientResources
                case 0x0005: self = .allRefusedInsufficientAuthentication
                case 0x0006: self = .allRefusedInsufficientAuthorization
                case 0x0007: self = .allRefusedEncryptionKeySizeTooShort
                case 0x0008: self = .allRefusedInsufficientEncryption
                case 0x0009: self = .someRefusedInvalidSourceCID
                case 0x000A: self = .someRefusedSourceCIDAlreadyAllocated
                case 0x000B: self = .allRefusedUnacceptableParameters
                case 0x000C: self = .allRefusedInvalidParameters
                case 0x000D: self = .allPendingNoFurtherInformation
                case 0x000E: self = .allPendingAuthentication
                case 0x000F: self = .allPendingAuthorization
                default: self = .reserved(rawValue)
                }
            }

            public var rawValue: UInt16 {
                switch self {
                case .allSuccessful: 0x0000
                case .allRefusedSPSMNotSupported: 0x0002
                case .someRefusedInsufficientResources: 0x0004
                case .allRefusedInsufficientAuthentication: 0x0005
                case .allRefusedInsufficientAuthorization: 0x0006
                case .allRefusedEncryptionKeySizeTooShort: 0x0007
                case .allRefusedInsufficientEncryption: 0x0008
                case .someRefusedInvalidSourceCID: 0x0009
                case .someRefusedSourceCIDAlreadyAllocated: 0x000A
                case .allRefusedUnacceptableParameters: 0x000B
                case .allRefusedInvalidParameters: 0x000C
                case .allPendingNoFurtherInformation: 0x000D
                case .allPendingAuthentication: 0x000E
                case .allPendingAuthorization: 0x000F
                case .reserved(let value): value
                }
            }
        }

        public var mtu: UInt16
        public var mps: UInt16
        public var initialCredits: UInt16
        public var result: Result
        /// Zero to five Destination CIDs; 0x0000 marks a channel that was not opened.
        public var destinationCIDs: CIDList

        public init(
            mtu: UInt16, mps: UInt16, initialCredits: UInt16, result: Result, destinationCIDs: CIDList
        ) {
            self.mtu = mtu
            self.mps = mps
            self.initialCredits = initialCredits
            self.result = result
            self.destinationCIDs = destinationCIDs
        }

        public init(from reader: inout ByteReader) throws(DecodeError) {
            reader.context = "L2CAP_CREDIT_BASED_CONNECTION_RSP"
            mtu = try reader.u16("MTU")
            mps = try reader.u16("MPS")
            initialCredits = try reader.u16("Initial Credits")
            result = Result(rawValue: try reader.u16("Result"))
            destinationCIDs = try CIDList(from: &reader, minimum: 0, field: "Destination CID")
        }

        public func encode(into writer: inout ByteWriter) {
            writer.u16(mtu)
            writer.u16(mps)
            writer.u16(initialCredits)
            writer.u16(result.rawValue)
            destinationCIDs.encode(into: &writer)
        }

        public var command: L2CAPSignalCommand { .creditBasedConnectionResponse(self) }
    }

    /// L2CAP_CREDIT_BASED_RECONFIGURE_REQ (Core 5.4 Vol 3 Part A §4.27): new MTU and MPS for
    /// one to five of the sender's receiving channels.
    ///
    /// Decoding requires one to five Destination CIDs and accepts any field value.
    /// `validate()` / `refusal` report an MTU below 64 (answered "reduction in size of MTU not
    /// allowed", as BlueZ and Zephyr do, since every channel starts at 64 or more) and an MPS
    /// outside 64...65533 ("other unacceptable parameters"). Reductions relative to the current
    /// values and unknown CIDs are channel state, checked by the host.
    public struct CreditBasedReconfigureRequest: L2CAPSignalParameters {
        public static let code = L2CAPSignalCode.creditBasedReconfigureRequest

        public var mtu: UInt16
        public var mps: UInt16
        /// One to five Destination CIDs.
        public var destinationCIDs: CIDList

        public init(mtu: UInt16, mps: UInt16, destinationCIDs: CIDList) {
            self.mtu = mtu
            self.mps = mps
            self.destinationCIDs = destinationCIDs
        }

        public init(from reader: inout ByteReader) throws(DecodeError) {
            reader.context = "L2CAP_CREDIT_BASED_RECONFIGURE_REQ"
            mtu = try reader.u16("MTU")
            mps = try reader.u16("MPS")
            destinationCIDs = try CIDList(from: &reader, minimum: 1, field: "Destination CID")
        }

        public func encode(into writer: inout ByteWriter) {
            writer.u16(mtu)
            writer.u16(mps)
            destinationCIDs.encode(into: &writer)
        }

        /// Throws `.outOfRange` for an MTU or MPS outside the ranges listed above.
        public func validate() throws(DecodeError) {
            if let violation { throw violation.0 }
        }

        /// The result to answer out-of-range parameters with, or nil when they are in range.
        public var refusal: CreditBasedReconfigureResponse.Result? { violation?.1 }

        private var violation: (DecodeError, CreditBasedReconfigureResponse.Result)? {
            let context: StaticString = "L2CAP_CREDIT_BASED_RECONFIGURE_REQ"
            if !L2CAPSignal.enhancedMTURange.contains(Int(mtu)) {
                let error = DecodeError(
                    context: context, field: "MTU", offset: 0,
                    reason: .outOfRange(value: Int(mtu), allowed: L2CAPSignal.enhancedMTURange))
                return (error, .mtuReductionNotAllowed)
            }
            if !L2CAPSignal.enhancedMPSRange.contains(Int(mps)) {
                let error = DecodeError(
                    context: context, field: "MPS", offset: 2,
                    reason: .outOfRange(value: Int(mps), allowed: L2CAPSignal.enhancedMPSRange))
                return (error, .otherUnacceptableParameters)
            }
            return nil
        }

        public var command: L2CAPSignalCommand { .creditBasedReconfigureRequest(self) }
    }

    /// L2CAP_CREDIT_BASED_RECONFIGURE_RSP (Core 5.4 Vol 3 Part A §4.28).
    public struct CreditBasedReconfigureResponse: L2CAPSignalParameters {
        public static let code = L2CAPSignalCode.creditBasedReconfigureResponse

        /// Result (§4.28); reserved values kept.
        public enum Result: Hashable, Sendable {
            /// 0x0000 Reconfiguration successful.
            case success
            /// 0x0001 Reconfiguration failed – reduction in size of MTU not allowed.
            case mtuReductionNotAllowed
            /// 0x0002 Reconfiguration failed – reduction in size of MPS not allowed for more
            /// than one channel at a time.
            case mpsReductionNotAllowed
            /// 0x0003 Reconfiguration failed – one or more Destination CIDs invalid.
            case invalidDestinationCID
            /// 0x0004 Reconfiguration failed – other unacceptable parameters.
            case otherUnacceptableParameters
            /// 0x0005...0xFFFF: reserved.
            case reserved(UInt16)

            public init(rawValue: UInt16) {
                switch rawValue {
                case 0x0000: self = .success
                case 0x0001: self = .mtuReductionNotAllowed
                case 0x0002: self = .mpsReductionNotAllowed
                case 0x0003: self = .invalidDestinationCID
                case 0x0004: self = .otherUnacceptableParameters
                default: self = .reserved(rawValue)
                }
            }

            public var rawValue: UInt16 {
                switch self {
                case .success: 0x0000
                case .mtuReductionNotAllowed: 0x0001
                case .mpsReductionNotAllowed: 0x0002
                case .invalidDestinationCID: 0x0003
                case .otherUnacceptableParameters: 0x0004
                case .reserved(let value): value
                }
            }
        }

        public var result: Result

        public init(result: Result) { self.result = result }

        public init(from reader: inout ByteReader) throws(DecodeError) {
            reader.context = "L2CAP_CREDIT_BASED_RECONFIGURE_RSP"
            result = Result(rawValue: try reader.u16("Result"))
        }

        public func encode(into writer: inout ByteWriter) { writer.u16(result.rawValue) }
        public var command: L2CAPSignalCommand { .creditBasedReconfigureResponse(self) }
    }
}
