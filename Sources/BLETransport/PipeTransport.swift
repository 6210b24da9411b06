import BLELocking
import BLEWire
import Synchronization

/// An in-process transport: packets to the controller go to a closure, packets from the
/// controller are delivered with `deliver(_:)`. Used to attach a host to the virtual radio (or
/// to a scripted controller in tests) without bytes on a socket — the packets are still real
/// H4 packets, encoded and decoded as on a wire.
public final class PipeTransport: InPlaceHCITransport {
    public let packets: AsyncThrowingStream<H4Packet, any Error>
    private let continuation: AsyncThrowingStream<H4Packet, any Error>.Continuation
    private let toController: @Sendable (H4Packet) -> Void
    /// Takes the host's packets as H4 bytes, when the other end reads bytes anyway.
    private let toControllerWire: (@Sendable ([UInt8]) -> Void)?
    private let isClosed = Atomic<Bool>(false)
    /// The serial executor whose thread calls `deliver`, always between that executor's jobs
    /// (a virtual controller's port: its actions run on the simulation thread); nil when
    /// packets may come from anywhere.
    let deliveryExecutor: (any SerialExecutor)?
    /// Takes packets in place of `packets` once a host on `deliveryExecutor` asked for them.
    private let directReceiver = Locked<DirectReceiver?>(nil)

    /// A box, so that reading the receiver under the lock copies a reference rather than
    /// re-wrapping a closure.
    private final class DirectReceiver: Sendable {
        let receive: @Sendable (H4Packet) -> Void
        init(_ receive: @escaping @Sendable (H4Packet) -> Void) { self.receive = receive }
    }

    /// `toController` receives every packet the host sends, in order, on the sender's task;
    /// `toControllerWire`, when given, receives those sent with `sendNow(wire:)` as the bytes
    /// of their H4 encoding (packet indicator first).
    public init(
        deliveryExecutor: (any SerialExecutor)? = nil, toController: @escaping @Sendable (H4Packet) -> Void,
        toControllerWire: (@Sendable ([UInt8]) -> Void)? = nil
    ) {
        (packets, continuation) = AsyncThrowingStream.makeStream(of: H4Packet.self, throwing: (any Error).self)
        self.deliveryExecutor = deliveryExecutor
        self.toController = toController
        self.toControllerWire = toControllerWire
    }

    package var takesWireBytes: Bool { toControllerWire != nil }

    /// A host running on `deliveryExecutor` takes each packet in place, without a stream and a
    /// task resumption per packet.
    package func deliverInPlace(
        on executor: any SerialExecutor, to receiver: @escaping @Sendable (H4Packet) -> Void
    ) -> Bool {
        guard let deliveryExecutor, (deliveryExecutor as AnyObject) === (executor as AnyObject) else { return false }
        let box = DirectReceiver(receiver)
        directReceiver.withLock { $0 = box }
        return true
    }

    public func send(_ packet: H4Packet) async throws(HCITransportError) {
        try sendNow(packet)
    }

    /// The in-process pipe needs no suspension, so a host may skip a writer task and its hop
    /// per packet.
    package func sendNow(_ packet: H4Packet) throws(HCITransportError) {
        guard !isClosed.load(ordering: .acquiring) else { throw .closed }
        toController(packet)
    }

    /// An in-process controller that parses bytes anyway takes them without a re-encoding.
    package func sendNow(wire bytes: [UInt8]) throws(HCITransportError) {
        guard !isClosed.load(ordering: .acquiring) else { throw .closed }
        if let toControllerWire { return toControllerWire(bytes) }
        guard let indicator = bytes.first, let type = H4PacketType(rawValue: indicator) else {
            throw .malformedStream("not an H4 packet")
        }
        toController(H4Packet(type: type, payload: bytes[1...]))
    }

    /// A packet from the controller to the host.
    public func deliver(_ packet: H4Packet) {
        guard !isClosed.load(ordering: .acquiring) else { return }
        if let receiver = directReceiver.withLock({ $0 }) {
            receiver.receive(packet)
        } else {
            continuation.yield(packet)
        }
    }

    /// Fails the transport (e.g. the controller side saw garbage).
    public func fail(_ error: HCITransportError) {
        isClosed.store(true, ordering: .releasing)
        continuation.finish(throwing: error)
    }

    public func close() async {
        isClosed.store(true, ordering: .releasing)
        directReceiver.withLock { $0 = nil }
        continuation.finish()
    }
}
