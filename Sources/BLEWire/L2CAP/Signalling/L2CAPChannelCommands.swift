extension L2CAPSignal {
    /// L2CAP_COMMAND_REJECT_RSP (Core 5.4 Vol 3 Part A §4.1): the answer to a request that was
    /// not understood, too long for the signalling MTU, or named a CID that does not exist.
    public struct CommandReject: L2CAPSignalParameters {
        public static let code = L2CAPSignalCode.commandReject

        /// Reason and its reason-specific data (§4.1).
        public enum Reason: Hashable, Sendable {
            /// 0x0000: no data.
            case commandNotUnderstood
            /// 0x0001: the sender's signalling MTU (2 octets of data).
            case signalingMTUExceeded(actualMTU: UInt16)
            /// 0x0002: the channel endpoints of the rejected request, local (first) and remote
            /// (second) relative to the sender of the reject (4 octets of data).
            case invalidCIDInRequest(localCID: UInt16, remoteCID: UInt16)
            /// A reserved reason with whatever data followed it.
            case reserved(reason: UInt16, data: ArraySlice<UInt8>)

            /// The Reason field.
            public var rawValue: UInt16 {
                switch self {
                case .commandNotUnderstood: 0x0000
                case .signalingMTUExceeded: 0x0001
                case .invalidCIDInRequest: 0x0002
                case .reserved(let reason, _): reason
                }
            }
        }

        public var reason: Reason

        public init(reason: Reason) { self.reason = reason }

        /// Reads the Reason and the data it defines. The defined reasons have a fixed data
        /// length (0, 2 or 4 octets); extra octets are left for the frame's `.trailingBytes`.
        public init(from reader: inout ByteReader) throws(DecodeError) {
            reader.context = "L2CAP_COMMAND_REJECT_RSP"
            let raw = try reader.u16("Reason")
            switch raw {
            case 0x0000: reason = .commandNotUnderstood
            case 0x0001: reason = .signalingMTUExceeded(actualMTU: try reader.u16("Actual MTU"))
            case 0x0002:
                let local = try reader.u16("Local CID")
                reason = .invalidCIDInRequest(localCID: local, remoteCID: try reader.u16("Remote CID"))
            default: reason = .reserved(reason: raw, data: reader.rest())
            }
        }

        public func encode(into writer: inout ByteWriter) {
            writer.u16(reason.rawValue)
            switch reason {
            case .commandNotUnderstood: break
            case .signalingMTUExceeded(let mtu): writer.u16(mtu)
            case .invalidCIDInRequest(let local, let remote):
                writer.u16(local)
                writer.u16(remote)
            case .reserved(_, let data): writer.append(data)
            }
        }

        public var command: L2CAPSignalCommand { .commandReject(self) }
    }

    /// L2CAP_DISCONNECTION_REQ (Core 5.4 Vol 3 Part A §4.6). The CIDs are named from the
    /// requester's side: DCID is the receiver's endpoint, SCID the requester's.
    public struct DisconnectionRequest: L2CAPSignalParameters {
        public static let code = L2CAPSignalCode.disconnectionRequest
        public var destinationCID: UInt16
        public var sourceCID: UInt16

        public init(destinationCID: UInt16, sourceCID: UInt16) {
            self.destinationCID = destinationCID
            self.sourceCID = sourceCID
        }

        public init(from reader: inout ByteReader) throws(DecodeError) {
            reader.context = "L2CAP_DISCONNECTION_REQ"
            destinationCID = try reader.u16("Destination CID")
            sourceCID = try reader.u16("Source CID")
        }

        public func encode(into writer: inout ByteWriter) {
            writer.u16(destinationCID)
            writer.u16(sourceCID)
        }

        public var command: L2CAPSignalCommand { .disconnectionRequest(self) }
    }

    /// L2CAP_DISCONNECTION_RSP (Core 5.4 Vol 3 Part A §4.7): echoes the request's CIDs.
    public struct DisconnectionResponse: L2CAPSignalParameters {
        public static let code = L2CAPSignalCode.disconnectionResponse
        public var destinationCID: UInt16
        public var sourceCID: UInt16

        public init(destinationCID: UInt16, sourceCID: UInt16) {
            self.destinationCID = destinationCID
            self.sourceCID = sourceCID
        }

        public init(from reader: inout ByteReader) throws(DecodeError) {
            reader.context = "L2CAP_DISCONNECTION_RSP"
            destinationCID = try reader.u16("Destination CID")
            sourceCID = try reader.u16("Source CID")
        }

        public func encode(into writer: inout ByteWriter) {
            writer.u16(destinationCID)
            writer.u16(sourceCID)
        }

        public var command: L2CAPSignalCommand { .disconnectionResponse(self) }
    }

    /// L2CAP_CONNECTION_PARAMETER_UPDATE_REQ (Core 5.4 Vol 3 Part A §4.20): a peripheral asks
    /// the central for new connection parameters. Fields keep their raw units; the helpers give
    /// microseconds and milliseconds.
    ///
    /// Decoding accepts any value. `validate()` checks the ranges of §4.20 and the supervision
    /// timeout rule of Vol 6 Part B §4.5.2; when it throws, the central answers with
    /// `ConnectionParameterUpdateResponse(result: .rejected)`.
    public struct ConnectionParameterUpdateRequest: L2CAPSignalParameters {
        public static let code = L2CAPSignalCode.connectionParameterUpdateRequest
        /// Interval Min and Interval Max, in units of 1.25 ms: 6...3200.
        public static let intervalRange: ClosedRange<Int> = 6...3200
        /// Peripheral Latency in connection events: below 500.
        public static let latencyRange: ClosedRange<Int> = 0...499
        /// Timeout Multiplier, in units of 10 ms: 10...3200.
        public static let timeoutRange: ClosedRange<Int> = 10...3200

        /// Interval Min, units of 1.25 ms.
        public var intervalMin: UInt16
        /// Interval Max, units of 1.25 ms.
        public var intervalMax: UInt16
        /// Peripheral Latency, in connection events the peripheral may skip.
        public var peripheralLatency: UInt16
        /// Timeout Multiplier, units of 10 ms.
        public var timeoutMultiplier: UInt16

        public init(
            intervalMin: UInt16, intervalMax: UInt16, peripheralLatency: UInt16, timeoutMultiplier: UInt16
        ) {
            self.intervalMin = intervalMin
            self.intervalMax = intervalMax
            self.peripheralLatency = peripheralLatency
            self.timeoutMultiplier = timeoutMultiplier
        }

        public init(from reader: inout ByteReader) throws(DecodeError) {
            reader.context = "L2CAP_CONNECTION_PARAMETER_UPDATE_REQ"
            intervalMin = try reader.u16("Interval Min")
            intervalMax = try reader.u16("Interval Max")
            peripheralLatency = try reader.u16("Peripheral Latency")
            timeoutMultiplier = try reader.u16("Timeout Multiplier")
        }

        public func encode(into writer: inout ByteWriter) {
            writer.u16(intervalMin)
            writer.u16(intervalMax)
            writer.u16(peripheralLatency)
            writer.u16(timeoutMultiplier)
        }

        /// connIntervalMin in microseconds (Interval Min × 1.25 ms).
        public var intervalMinMicroseconds: Int { Int(intervalMin) * 1250 }
        /// connIntervalMax in microseconds (Interval Max × 1.25 ms).
        public var intervalMaxMicroseconds: Int { Int(intervalMax) * 1250 }
        /// connSupervisionTimeout in milliseconds (Timeout Multiplier × 10 ms).
        public var supervisionTimeoutMilliseconds: Int { Int(timeoutMultiplier) * 10 }

        /// Throws `.outOfRange` naming the first field outside §4.20's ranges: an interval
        /// outside 6...3200 or Interval Min above Interval Max, latency of 500 or more, a
        /// timeout outside 10...3200, or a timeout not longer than (1 + latency) × Interval Max
        /// × 2 (reported on Peripheral Latency, or on Timeout Multiplier when even latency 0
        /// does not fit).
        public func validate() throws(DecodeError) {
            let context: StaticString = "L2CAP_CONNECTION_PARAMETER_UPDATE_REQ"
            func fail(_ field: StaticString, _ offset: Int, _ value: UInt16, _ allowed: ClosedRange<Int>)
                -> DecodeError
            {
                DecodeError(
                    context: context, field: field, offset: offset,
                    reason: .outOfRange(value: Int(value), allowed: allowed))
            }
            let minimum = Int(intervalMin)
            let maximum = Int(intervalMax)
            let latency = Int(peripheralLatency)
            let timeout = Int(timeoutMultiplier)
            if !Self.intervalRange.contains(minimum) {
                throw fail("Interval Min", 0, intervalMin, Self.intervalRange)
            }
            if !Self.intervalRange.contains(maximum) {
                throw fail("Interval Max", 2, intervalMax, Self.intervalRange)
            }
            if minimum > maximum { throw fail("Interval Min", 0, intervalMin, 6...maximum) }
            if !Self.latencyRange.contains(latency) {
                throw fail("Peripheral Latency", 4, peripheralLatency, Self.latencyRange)
            }
            if !Self.timeoutRange.contains(timeout) {
                throw fail("Timeout Multiplier", 6, timeoutMultiplier, Self.timeoutRange)
            }
            // timeout × 10 ms > (1 + latency) × max × 1.25 ms × 2,
            // i.e. 4 × timeout > (1 + latency) × max
            if 4 * timeout <= (1 + latency) * maximum {
                let largestLatency = (4 * timeout - 1) / maximum - 1
                if largestLatency < 0 {
                    throw fail("Timeout Multiplier", 6, timeoutMultiplier, (maximum / 4 + 1)...3200)
                }
                throw fail("Peripheral Latency", 4, peripheralLatency, 0...min(largestLatency, 499))
            }
        }

        public var command: L2CAPSignalCommand { .connectionParameterUpdateRequest(self) }
    }

    /// L2CAP_CONNECTION_PARAMETER_UPDATE_RSP (Core 5.4 Vol 3 Part A §4.21).
    public struct ConnectionParameterUpdateResponse: L2CAPSignalParameters {
        public static let code = L2CAPSignalCode.connectionParameterUpdateResponse

        /// Result (§4.21).
        public enum Result: Hashable, Sendable {
            case accepted
            case rejected
            /// 0x0002...0xFFFF, reserved.
            case reserved(UInt16)

            public init(rawValue: UInt16) {
                switch rawValue {
                case 0x0000: self = .accepted
                case 0x0001: self = .rejected
                default: self = .reserved(rawValue)
                }
            }

            public var rawValue: UInt16 {
                switch self {
                case .accepted: 0x0000
                case .rejected: 0x0001
                case .reserved(let value): value
                }
            }
        }

        public var result: Result

        public init(result: Result) { self.result = result }

        public init(from reader: inout ByteReader) throws(DecodeError) {
            reader.context = "L2CAP_CONNECTION_PARAMETER_UPDATE_RSP"
            result = Result(rawValue: try reader.u16("Result"))
        }

        public func encode(into writer: inout ByteWriter) { writer.u16(result.rawValue) }
        public var command: L2CAPSignalCommand { .connectionParameterUpdateResponse(self) }
    }
}
