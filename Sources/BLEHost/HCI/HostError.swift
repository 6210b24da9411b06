import BLETransport
import BLEWire

/// Why a host operation failed.
public enum HostError: Error, Sendable, Equatable {
    /// The controller answered the command with a failure status.
    case commandFailed(HCIOpcode, HCIStatus)
    /// The controller did not answer the command within the command timeout; the host went on
    /// (Core 5.4 Vol 4 Part E §4.4 gives no timeout — every mature host sets one).
    case commandTimeout(HCIOpcode)
    /// The return parameters did not decode.
    case invalidReturnParameters(HCIOpcode, DecodeError)
    /// The configured random static address does not have the form of one (top two bits
    /// 0b11, Core 5.4 Vol 6 Part B §1.3.2.1).
    case invalidRandomStaticAddress(BluetoothAddress)
    /// The transport failed or closed.
    case transport(HCITransportError)
    /// The host was stopped, or the connection is gone.
    case notConnected
    /// The host is not running (not started, or stopped).
    case stopped
}
