#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif
import BLELocking
import BLEWire

/// Why a capture file could not be written.
public enum PacketCaptureError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The file could not be created (no such folder, no permission, …).
    case cannotCreate(path: String, reason: String)
    /// A write failed (disk full, I/O error); the records before it are in the file.
    case writeFailed(path: String, reason: String)
    /// The capture was closed.
    case closed(path: String)

    public var description: String {
        switch self {
        case .cannotCreate(let path, let reason): "cannot create capture file \(path): \(reason)"
        case .writeFailed(let path, let reason): "cannot write capture file \(path): \(reason)"
        case .closed(let path): "capture file \(path) is closed"
        }
    }
}

/// A btsnoop file (datalink H4, 1002) that HCI packets are recorded into as they cross a
/// transport — the format of BlueZ's btmon and Android's snoop log, which Wireshark reads.
///
/// Safe to use from any thread; records keep the order of the `record` calls. Each record goes
/// to the file in a single `write(2)` with no buffering in the process, so a process that is
/// killed leaves a file that ends at a record boundary (a crash of the machine aside). The first
/// write error is kept in `failure`, and later records are dropped (counted as drops).
public final class PacketCapture: Sendable {
    public let path: String
    /// When the file was created, in microseconds since the Unix epoch (wall clock).
    public let createdAt: Int64

    private struct State {
        var descriptor: Int32
        var drops: UInt32 = 0
        var recordCount = 0
        var failure: PacketCaptureError?
    }

    private let state: Locked<State>

    /// Creates (or truncates) the regular file at `path` and writes the btsnoop file header.
    public init(path: String) throws(PacketCaptureError) {
        // A FIFO, a device or a directory at the path is refused, never opened for writing
        // and truncated (nor waited on: a FIFO without a reader would block).
        let descriptor: Int32
        do {
            descriptor = try FileAccess.openForWriting(path, truncate: true)
        } catch {
            throw .cannotCreate(path: path, reason: error.reason)
        }
        if let reason = writeFully(descriptor, BTSnoopWriter.fileHeader(datalink: .h4)) {
            closeDescriptor(descriptor)
            throw .cannotCreate(path: path, reason: reason)
        }
        self.path = path
        createdAt = wallClockMicroseconds()
        state = Locked(State(descriptor: descriptor))
    }

    deinit {
        state.withLock { state in
            if state.descriptor >= 0 { closeDescriptor(state.descriptor) }
        }
    }

    /// Records one packet. Throws the write's error (also kept in `failure`).
    public func record(
        _ packet: H4Packet, direction: BTSnoopDirection, at timestamp: BTSnoopTimestamp
    ) throws(PacketCaptureError) {
        let result: PacketCaptureError? = state.withLock { state in
            guard state.descriptor >= 0 else { return .closed(path: path) }
            if state.failure != nil {
                state.drops &+= 1
                return state.failure
            }
            let record = BTSnoopRecord(
                packet: packet, direction: direction, timestamp: timestamp, cumulativeDrops: state.drops)
            if let reason = writeFully(state.descriptor, record.encoded) {
                state.failure = .writeFailed(path: path, reason: reason)
                state.drops &+= 1
                return state.failure
            }
            state.recordCount += 1
            return nil
        }
        if let result { throw result }
    }

    /// Records one packet stamped with the wall clock now.
    public func record(_ packet: H4Packet, direction: BTSnoopDirection) throws(PacketCaptureError) {
        try record(packet, direction: direction, at: BTSnoopTimestamp(unixMicroseconds: wallClockMicroseconds()))
    }

    /// Records written so far.
    public var recordCount: Int { state.withLock { $0.recordCount } }

    /// The first write error, if any.
    public var failure: PacketCaptureError? { state.withLock { $0.failure } }

    /// Closes the file; later records throw `.closed`. Returns the first write error, if any.
    @discardableResult
    public func close() -> PacketCaptureError? {
        state.withLock { state in
            if state.descriptor >= 0 {
                if fsync(state.descriptor) != 0, state.failure == nil, errno != EINVAL {
                    state.failure = .writeFailed(path: path, reason: errnoDescription())
                }
                closeDescriptor(state.descriptor)
                state.descriptor = -1
            }
            return state.failure
        }
    }
}
