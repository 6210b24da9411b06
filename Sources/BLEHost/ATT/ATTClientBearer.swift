import BLETransport
import BLEWire

/// Why an ATT transaction did not complete (Core 5.4 Vol 3 Part F §3.3).
public enum ATTBearerError: Error, Sendable, Equatable {
    /// The link went down; `reason` is the HCI disconnection reason.
    case disconnected(reason: HCIStatus)
    /// No response within the 30-second ATT transaction timeout (§3.3.3); the bearer is closed.
    case transactionTimeout
    /// The peer broke a protocol rule (a response that does not answer the request, a malformed
    /// PDU); the bearer closes the link.
    case protocolViolation(String)
    /// The PDU does not fit the bearer's current ATT_MTU.
    case pduTooLong(length: Int, mtu: Int)
    /// The transport to the controller ended: the link went with it.
    case transportLost(HCITransportError)
}

/// What GATT client procedures need from an ATT bearer (Core 5.4 Vol 3 Part F §3.3, Part G §4):
/// one request outstanding at a time, commands that wait for transmit room, and the current
/// ATT_MTU. The host provides the real bearer; tests provide fakes.
public protocol ATTClientBearer: Sendable {
    /// The current ATT_MTU (23 until an MTU exchange raises it).
    var mtu: Int { get async }

    /// Sends a request and returns its response — the paired response PDU or an Error
    /// Response (returned as `.errorResponse`, not thrown: procedures interpret it).
    func request(_ pdu: ATTPDU) async throws(ATTBearerError) -> ATTPDU

    /// Sends a command (Write Command, Signed Write Command), waiting for transmit room
    /// (flow control) but for no answer.
    func command(_ pdu: ATTPDU) async throws(ATTBearerError)
}
