import BLEWire

/// Where a capture's time stamps come from.
public struct CaptureTimestamps: Sendable {
    /// The time stamp for a packet crossing now.
    public let now: @Sendable () -> BTSnoopTimestamp

    public init(now: @escaping @Sendable () -> BTSnoopTimestamp) {
        self.now = now
    }

    /// The wall clock: for real controllers and foreign peers.
    public static let wallClock = CaptureTimestamps { BTSnoopTimestamp(unixMicroseconds: wallClockMicroseconds()) }
}

/// Any transport, with every packet in both directions recorded into a `PacketCapture`: what
/// the host sends, before it is sent; what the controller sends, before the host sees it.
///
/// A capture that fails to write keeps its error (`PacketCapture.failure`) and the transport
/// carries on: a full disk does not cut the link.
public final class CapturingTransport: HCITransport {
    public let transport: any HCITransport
    public let capture: PacketCapture
    public let packets: AsyncThrowingStream<H4Packet, any Error>
    private let timestamps: CaptureTimestamps

    /// Records `transport`'s packets into `capture`.
    ///
    /// Incoming packets are recorded by a task that forwards them; `executor` is where it runs
    /// (give a simulation's executor for a host on the virtual radio, so the simulation sees
    /// that work and does not advance virtual time past a packet in flight).
    public init(
        wrapping transport: any HCITransport, capture: PacketCapture, timestamps: CaptureTimestamps = .wallClock,
        executor: (any TaskExecutor)? = nil
    ) {
        self.transport = transport
        self.capture = capture
        self.timestamps = timestamps
        let (packets, continuation) = AsyncThrowingStream.makeStream(of: H4Packet.self, throwing: (any Error).self)
        self.packets = packets
        let incoming = transport.packets
        let forwarding = Task(executorPreference: executor) {
            do {
                for try await packet in incoming {
                    try? capture.record(packet, direction: .received, at: timestamps.now())
                    continuation.yield(packet)
                }
                continuation.finish()
            } catch {
                continuation.finish(throwing: error)
            }
        }
        continuation.onTermination = { _ in forwarding.cancel() }
    }

    public func send(_ packet: H4Packet) async throws(HCITransportError) {
        // Recorded first, so a reply that overtakes the send's return still comes after it.
        try? capture.record(packet, direction: .sent, at: timestamps.now())
        try await transport.send(packet)
    }

    public func close() async {
        await transport.close()
    }
}
