/// Reassembles frames from a stream of arbitrary chunks (notifications or writes, each at most
/// ATT_MTU − 3 octets, Core 5.4 Vol 3 Part F §3.4.7.1, §3.4.5.3), and finds its way back to
/// frame boundaries after garbage.
///
/// Every octet appended is, in the end, either part of a frame returned, counted in
/// `discardedOctets`, or still buffered (`bufferedOctets`) waiting for the rest of a frame.
/// After a failed header check or CRC the parser discards only the sync octet and looks for
/// the next one, so a valid frame that follows garbage is found.
public struct DeviceFrameParser: Sendable {
    /// The longest payload accepted; a longer length field is a false start.
    public let maximumPayloadLength: Int
    /// Octets skipped so far.
    public private(set) var discardedOctets = 0
    /// Frames returned so far.
    public private(set) var framesParsed = 0
    private var buffer: [UInt8] = []
    private var start = 0

    public init(maximumPayloadLength: Int = DeviceFrame.defaultMaximumPayloadLength) {
        self.maximumPayloadLength = max(0, min(maximumPayloadLength, Int(UInt16.max)))
    }

    /// Octets held for a frame not yet complete.
    public var bufferedOctets: Int { buffer.count - start }

    /// Adds a chunk; returns, in stream order, each frame completed and each failure met
    /// (skipped garbage as `.unsynchronised`, false starts and corrupted frames with their
    /// header or checksum error).
    public mutating func append(_ chunk: some Sequence<UInt8>) -> [Result<DeviceFrame, DeviceProtocolError>] {
        buffer.append(contentsOf: chunk)
        return takeFrames()
    }

    /// `append` for an array, what a notification's value is: a call another module makes
    /// without generic metadata to look up at run time.
    public mutating func append(_ chunk: [UInt8]) -> [Result<DeviceFrame, DeviceProtocolError>] {
        buffer.append(contentsOf: chunk)
        return takeFrames()
    }

    /// The frames and failures the buffer holds now, taken out of it.
    private mutating func takeFrames() -> [Result<DeviceFrame, DeviceProtocolError>] {
        var results: [Result<DeviceFrame, DeviceProtocolError>] = []
        while start < buffer.count {
            let syncIndex = buffer[start...].firstIndex(of: DeviceFrame.sync) ?? buffer.count
            if syncIndex > start {
                let skipped = syncIndex - start
                discard(skipped)
                results.append(.failure(.unsynchronised(discarded: skipped)))
                continue
            }
            let available = buffer[start...]
            let header: DeviceFrame.Header
            do {
                header = try DeviceFrame.header(of: available, maximumPayloadLength: maximumPayloadLength)
            } catch .frameTruncated {
                break
            } catch {
                discard(1)
                results.append(.failure(error))
                continue
            }
            let total = DeviceFrame.overhead + header.length
            guard available.count >= total else { break }
            do {
                let frame = try DeviceFrame(checking: buffer[start..<(start + total)], header: header)
                start += total
                framesParsed += 1
                results.append(.success(frame))
            } catch {
                discard(1)
                results.append(.failure(error))
            }
        }
        compact()
        return results
    }

    private mutating func discard(_ count: Int) {
        start += count
        discardedOctets += count
    }

    /// Drops consumed octets once they are the larger part of the buffer.
    private mutating func compact() {
        if start == buffer.count {
            buffer.removeAll(keepingCapacity: true)
            start = 0
        } else if start > 512 && start * 2 > buffer.count {
            buffer.removeSubrange(0..<start)
            start = 0
        }
    }
}

/// Splits frames into chunks that fit one ATT Write Command or Handle Value Notification:
/// at most ATT_MTU − 3 octets (Core 5.4 Vol 3 Part F §3.4.5.3, §3.4.7.1).
public enum DeviceFrameSegmenter {
    /// The octets of `frame` in consecutive chunks of at most `maximumLength` (at least 1).
    public static func segments(of frame: [UInt8], maximumLength: Int) -> [ArraySlice<UInt8>] {
        let size = max(1, maximumLength)
        return stride(from: 0, to: frame.count, by: size).map { frame[$0..<min($0 + size, frame.count)] }
    }

    /// The longest chunk for an ATT_MTU: ATT_MTU − 3 (the Write Command and notification
    /// headers), at least 1.
    public static func maximumChunkLength(forATTMTU mtu: Int) -> Int { max(1, mtu - 3) }
}
