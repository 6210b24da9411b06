extension L2CAPSignal {
    /// L2CAP_LE_CREDIT_BASED_CONNECTION_REQ (Core 5.4 Vol 3 Part A §4.22): open one LE
    /// credit based channel to an SPSM.
    ///
    /// Decoding accepts any value. The receiver's range checks are `validate()` (throws
    /// `.outOfRange` naming the field) and `refusal` (the result to answer with): SPSM outside
    /// 0x0001...0x00FF, Source CID outside the LE dynamic range 0x0040...0x007F, MTU below 23,
    /// MPS outside 23...65533.
    public struct LECreditBasedConnectionRequest: L2CAPSignalParameters {
        public static let code = L2CAPSignalCode.leCreditBasedConnectionRequest
        /// LE SPSMs: 0x0001...0x007F assigned by the SIG, 0x0080...0x00FF dynamic (§4.22).
        public static let spsmRange: ClosedRange<Int> = 0x0001...0x00FF
        public static let mtuRange: ClosedRange<Int> = 23...65535
        public static let mpsRange: ClosedRange<Int> = 23...65533

        public var spsm: UInt16
        public var sourceCID: UInt16
        /// Largest SDU the sender can receive.
        public var mtu: UInt16
        /// Largest PDU payload the sender can receive.
        public var mps: UInt16
        /// K-frames the receiver may send before more credits arrive.
        public var initialCredits: UInt16

        public init(spsm: UInt16, sourceCID: UInt16, mtu: UInt16, mps: UInt16, initialCredits: UInt16) {
            self.spsm = spsm
            self.sourceCID = sourceCID
            self.mtu = mtu
            self.mps = mps
            self.initialCredits = initialCredits
        }

        public init(from reader: inout ByteReader) throws(DecodeError) {
            reader.context = "L2CAP_LE_CREDIT_BASED_CONNECTION_REQ"
            spsm = try reader.u16("SPSM")
            sourceCID = try reader.u16("Source CID")
            mtu = try reader.u16("MTU")
            mps = try reader.u16("MPS")
            initialCredits = try reader.u16("Initial Credits")
        }

        public func encode(into writer: inout ByteWriter) {
            writer.u16(spsm)
            writer.u16(sourceCID)
            writer.u16(mtu)
            writer.u16(mps)
            writer.u16(initialCredits)
        }

        /// Throws `.outOfRange` for the first field outside §4.22's ranges.
        public func validate() throws(DecodeError) {
            if let violation { throw violation.0 }
        }

        /// The result a receiver answers for out-of-range parameters, or nil when they are in
        /// range (the host still decides on SPSM support, security and resources).
        public var refusal: LECreditBasedConnectionResponse.Result? { violation?.1 }

        private var violation: (DecodeError, LECreditBasedConnectionResponse.Result)? {
            func fail(_ field: StaticString, _ offset: Int, _ value: UInt16, _ allowed: ClosedRange<Int>)
                -> DecodeError
            {
                DecodeError(
                    context: "L2CAP_LE_CREDIT_BASED_CONNECTION_REQ", field: field, offset: offset,
                    reason: .outOfRange(value: Int(value), allowed: allowed))
            }
            if !Self.spsmRange.contains(Int(spsm)) {
                return (fail("SPSM", 0, spsm, Self.spsmRange), .spsmNotSupported)
            }
            if !L2CAPSignal.leDynamicCIDs.contains(sourceCID) {
                return (fail("Source CID", 2, sourceCID, 0x0040...0x007F), .invalidSourceCID)
            }
            if !Self.mtuRange.contains(Int(mtu)) {
                return (fail("MTU", 4, mtu, Self.mtuRange), .unacceptableParameters)
            }
            if !Self.mpsRange.contains(Int(mps)) {
                return (fail("MPS", 6, mps, Self.mpsRange), .unacceptableParameters)
            }
            return nil
        }

        public var command: L2CAPSignalCommand { .leCreditBasedConnectionRequest(self) }
    }

    /// L2CAP_LE_CREDIT_BASED_CONNECTION_RSP (Core 5.4 Vol 3 Part A §4.23). On refusal the DCID,
    /// MTU, MPS and Initial Credits fields are meaningless (sent as 0).
    public struct LECreditBasedConnectionResponse: L2CAPSignalParameters {
        public static let code = L2CAPSignalCode.leCreditBasedConnectionResponse

        /// Result (§4.23); every code Core 5.4 defines, reserved values kept.
        public enum Result: Hashable, Sendable {
            /// 0x0000 Connection successful.
            case success
            /// 0x0002 Connection refused – SPSM not supported.
            case spsmNotSupported
            /// 0x0004 Connection refused – no resources available.
            case noResourcesAvailable
            /// 0x0005 Connection refused – insufficient authentication.
            case insufficientAuthentication
            /// 0x0006 Connection refused – insufficient authorization.
            case insufficientAuthorization
            /// 0x0007 Connection refused – encryption key size too short.
            case encryptionKeySizeTooShort
            /// 0x0008 Connection refused – insufficient encryption.
            case insufficientEncryption
            /// 0x0009 Connection refused – invalid Source CID.
            case invalidSourceCID
            /// 0x000A Connection refused – Source CID already allocated.
            case sourceCIDAlreadyAllocated
            /// 0x000B Connection refused – unacceptable parameters.
            case unacceptableParameters
            /// 0x0001, 0x0003, 0x000C...0xFFFF: reserved.
            case reserved(UInt16)

            public init(rawValue: UInt16) {
                switch rawValue {
                case 0x0000: self = .success
                case 0x0002: self = .spsmNotSupported
                case 0x0004: self = .noResourcesAvailable
                case 0x0005: self = .insufficientAuthentication
                case 0x0006: self = .insufficientAuthorization
                case 0x0007: self = .encryptionKeySizeTooShort
                case 0x0008: self = .insufficientEncryption
                case 0x0009: self = .invalidSourceCID
                case 0x000A: self = .sourceCIDAlreadyAllocated
                case 0x000B: self = .unacceptableParameters
                default: self = .reserved(rawValue)
                }
            }

            public var rawValue: UInt16 {
                switch self {
                case .success: 0x0000
                case .spsmNotSupported: 0x0002
                case .noResourcesAvailable: 0x0004
                case .insufficientAuthentication: 0x0005
                case .insufficientAuthorization: 0x0006
                case .encryptionKeySizeTooShort: 0x0007
                case .insufficientEncryption: 0x0008
                case .invalidSourceCID: 0x0009
                case .sourceCIDAlreadyAllocated: 0x000A
                case .unacceptableParameters: 0x000B
                case .reserved(let value): value
                }
            }
        }

        public var destinationCID: UInt16
        public var mtu: UInt16
        public var mps: UInt16
        public var initialCredits: UInt16
        public var result: Result

        public init(
            destinationCID: UInt16, mtu: UInt16, mps: UInt16, initialCredits: UInt16, result: Result
        ) {
            self.destinationCID = destinationCID
            self.mtu = mtu
            self.mps = mps
            self.initialCredits = initialCredits
            self.result = result
        }

        /// A refusal: every field but the result is zero.
        public static func refused(_ result: Result) -> LECreditBasedConnectionResponse {
            LECreditBasedConnectionResponse(
                destinationCID: 0, mtu: 0, mps: 0, initialCredits: 0, result: result)
        }

        public init(from reader: inout ByteReader) throws(DecodeError) {
            reader.context = "L2CAP_LE_CREDIT_BASED_CONNECTION_RSP"
            destinationCID = try reader.u16("Destination CID")
            mtu = try reader.u16("MTU")
            mps = try reader.u16("MPS")
            initialCredits = try reader.u16("Initial Credits")
            result = Result(rawValue: try reader.u16("Result"))
        }

        public func encode(into writer: inout ByteWriter) {
            writer.u16(destinationCID)
            writer.u16(mtu)
            writer.u16(mps)
            writer.u16(initialCredits)
            writer.u16(result.rawValue)
        }

        /// For a successful response, throws `.outOfRange` when the Destination CID is outside
        /// 0x0040...0x007F, the MTU below 23 or the MPS outside 23...65533 (the initiator then
        /// disconnects the channel). Refusals carry no parameters and always pass.
        public func validate() throws(DecodeError) {
            guard result == .success else { return }
            let context: StaticString = "L2CAP_LE_CREDIT_BASED_CONNECTION_RSP"
            if !L2CAPSignal.leDynamicCIDs.contains(destinationCID) {
                throw DecodeError(
                    context: context, field: "Destination CID", offset: 0,
                    reason: .outOfRange(value: Int(destinationCID), allowed: 0x0040...0x007F))
            }
            if !LECreditBasedConnectionRequest.mtuRange.contains(Int(mtu)) {
                throw DecodeError(
                    context: context, field: "MTU", offset: 2,
                    reason: .outOfRange(value: Int(mtu), allowed: LECreditBasedConnectionRequest.mtuRange))
            }
            if !LECreditBasedConnectionRequest.mpsRange.contains(Int(mps)) {
                throw DecodeError(
                    context: context, field: "MPS", offset: 4,
                    reason: .outOfRange(value: Int(mps), allowed: LECreditBasedConnectionRequest.mpsRange))
            }
        }

        public var command: L2CAPSignalCommand { .leCreditBasedConnectionResponse(self) }
    }

    /// L2CAP_FLOW_CONTROL_CREDIT_IND (Core 5.4 Vol 3 Part A §4.24): grants more K-frames on a
    /// credit based channel. No response is sent.
    ///
    /// Decoding accepts any value; `validate()` throws `.outOfRange` for Credits 0 (the range
    /// is 1...65535). Whether the sum exceeds 65535 (which closes the channel) is channel state,
    /// checked by the host.
    public struct FlowControlCreditIndication: L2CAPSignalParameters {
        public static let code = L2CAPSignalCode.flowControlCreditIndication
        public static let creditsRange: ClosedRange<Int> = 1...65535

        /// The sender's (receiving) endpoint of the channel.
        public var cid: UInt16
        public var credits: UInt16

        public init(cid: UInt16, credits: UInt16) {
            self.cid = cid
            self.credits = credits
        }

        public init(from reader: inout ByteReader) throws(DecodeError) {
            reader.context = "L2CAP_FLOW_CONTROL_CREDIT_IND"
            cid = try reader.u16("CID")
            credits = try reader.u16("Credits")
        }

        public func encode(into writer: inout ByteWriter) {
            writer.u16(cid)
            writer.u16(credits)
        }

        public func validate() throws(DecodeError) {
            if credits == 0 {
                throw DecodeError(
                    context: "L2CAP_FLOW_CONTROL_CREDIT_IND", field: "Credits", offset: 2,
                    reason: .outOfRange(value: 0, allowed: Self.creditsRange))
            }
        }

        public var command: L2CAPSignalCommand { .flowControlCreditIndication(self) }
    }
}
