import BLEWire

/// Why a transport stopped.
public enum HCITransportError: Error, Sendable, Hashable {
    /// The byte stream from the controller was not H4 (Core 5.4 Vol 4 Part A §2); the transport
    /// closed.
    case malformedStream(String)
    /// The transport is closed; nothing more can be sent.
    case closed
    /// An I/O error of the underlying channel.
    case io(String)
}

/// A host's link to a controller: HCI packets each way, in order (Core 5.4 Vol 4 Part A).
///
/// Implementations: in-process pipes to the virtual radio, TCP and UNIX sockets, serial H4, the
/// Linux HCI user channel. The host sees only packets; framing is the transport's business.
public protocol HCITransport: Sendable {
    /// Packets from the controller, in arrival order. Finishes when the transport closes and
    /// throws `HCITransportError` when it fails.
    var packets: AsyncThrowingStream<H4Packet, any Error> { get }

    /// Sends one packet to the controller.
    func send(_ packet: H4Packet) async throws(HCITransportError)

    /// Closes the transport; `packets` finishes.
    func close() async
}

/// A transport that can skip the stream and the writer task: it takes packets synchronously on
/// the sender's thread and can hand packets to a host synchronously, on the host's own serial
/// executor, between that executor's jobs. The host asks for this capability instead of
/// knowing concrete transports; one that lacks it gets the stream and a writer task.
package protocol InPlaceHCITransport: HCITransport {
    /// Hands every later packet to `receiver` instead of to `packets` when this transport
    /// delivers on `executor`'s thread between its jobs; returns false, changing nothing, when
    /// it does not (packets then keep arriving on `packets`). `packets` still reports the end.
    func deliverInPlace(on executor: any SerialExecutor, to receiver: @escaping @Sendable (H4Packet) -> Void) -> Bool

    /// Sends one packet to the controller at once, on the caller's thread, without suspending.
    func sendNow(_ packet: H4Packet) throws(HCITransportError)

    /// Whether `sendNow(wire:)` hands the bytes on as they are (no decoding on the way), so a
    /// sender that has the H4 bytes already should use it.
    var takesWireBytes: Bool { get }

    /// Sends one packet given as its H4 bytes (packet indicator, then the HCI packet).
    func sendNow(wire bytes: [UInt8]) throws(HCITransportError)
}
