import BLEHost
import BLEWire

/// Centrals' reads and writes the app answers (Core 5.4 Vol 3 Part F §3.4.4–§3.4.6; Core
/// Bluetooth's `didReceiveRead`, `didReceiveWrite`, `respond(to:withResult:)`).
extension PeripheralManager {
    /// Answers a request from `readRequests` or `writeRequests`: `.success` (a read answers
    /// `request.value`, the value from `request.offset` on) or an ATT error. For an Execute
    /// Write's queue, answer its first request. A Write Command's request needs no answer;
    /// answering it, or a request already answered, does nothing.
    public func respond(to request: ATTRequest, withResult result: ATTResult) {
        switch request.kind {
        case .read(let token):
            guard let continuation = pendingReads.removeValue(forKey: token) else { return }
            unanswered.answered(token)
            switch result {
            case .success: continuation.resume(returning: .value(request.value ?? []))
            case .error(let code): continuation.resume(returning: .error(code))
            }
        case .write(let token):
            guard let continuation = pendingWrites.removeValue(forKey: token) else { return }
            unanswered.answered(token)
            switch result {
            case .success: continuation.resume(returning: .success)
            case .error(let code): continuation.resume(returning: .error(code))
            }
        case .writeWithoutResponse:
            return
        }
    }

    /// Answers a read with the whole value: the part from the request's offset on, or Invalid
    /// Offset when the offset lies past the value's end (Core 5.4 Vol 3 Part F §3.4.4.5).
    public func respond(to request: ATTRequest, withValue value: [UInt8]) {
        guard request.offset <= value.count else {
            respond(to: request, withResult: .error(.invalidOffset))
            return
        }
        var answered = request
        answered.value = Array(value[request.offset...])
        respond(to: answered, withResult: .success)
    }

    /// A read of a dynamic value: handed to the app, answered when it responds.
    func receivedRead(_ read: GATTReadRequest) async -> GATTReadResult {
        let handle = read.connection.handle
        let reference = read.attribute
        guard let characteristic = characteristicSnapshot(valueHandle: reference.characteristicValueHandle) else {
            return .error(.unlikelyError)
        }
        let request = ATTRequest(
            central: central(handle), characteristic: characteristic, descriptorUUID: reference.descriptorUUID,
            offset: read.offset, value: nil, kind: .read(read.token))
        return await withCheckedContinuation { continuation in
            // The link may have gone while the request was being built.
            guard centrals[handle] != nil else { return continuation.resume(returning: .error(.unlikelyError)) }
            pendingReads[read.token] = continuation
            offer(request, token: read.token, to: readSink)
        }
    }

    /// A Write Request, or an Execute Write Request's queue: handed to the app, answered when
    /// it responds.
    func receivedWrite(_ write: GATTWriteRequest) async -> GATTWriteResult {
        let handle = write.connection.handle
        var requests: [ATTRequest] = []
        for part in write.writes {
            guard let request = request(for: part, on: handle, kind: .write(write.token)) else {
                return .error(.unlikelyError)
            }
            requests.append(request)
        }
        guard !requests.isEmpty else { return .success }
        return await withCheckedContinuation { continuation in
            guard centrals[handle] != nil else { return continuation.resume(returning: .error(.unlikelyError)) }
            pendingWrites[write.token] = continuation
            offer(requests, token: write.token, to: writeSink)
        }
    }

    /// The request for one write.
    func request(for write: GATTWrite, on handle: ConnectionHandle, kind: ATTRequest.Kind) -> ATTRequest? {
        guard let characteristic = characteristicSnapshot(valueHandle: write.attribute.characteristicValueHandle)
        else { return nil }
        return ATTRequest(
            central: central(handle), characteristic: characteristic,
            descriptorUUID: write.attribute.descriptorUUID, offset: write.offset, value: write.value, kind: kind)
    }
}
