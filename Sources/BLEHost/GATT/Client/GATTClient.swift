import BLEWire

/// The GATT client procedures (Core 5.4 Vol 3 Part G §4) over an ATT bearer.
///
/// A value holding the bearer and nothing else: every procedure is an `async` method that runs
/// its requests one after another through `bearer`, so the procedures run over the host's real
/// bearer and over test fakes alike. It keeps no state between procedures: the bearer owns the
/// ATT_MTU (Exchange MTU, §4.3.1, is the bearer's) and the one-outstanding-request rule
/// (Vol 3 Part F §3.3.2), and what discovery finds is returned to the caller, who may keep it in
/// a `GATTDatabaseCache`. Copies share the bearer, so a client can be passed around freely.
///
/// Every failure is a `GATTError`. A server that breaks a procedure's rules — handles that do
/// not increase, a response of the wrong opcode, a list of the wrong format — ends the procedure
/// with `.invalidResponse`; no procedure loops on a server's say-so or traps on its input.
/// Values that cannot fit are refused with `.valueTooLong` before anything is sent.
public struct GATTClient<Bearer: ATTClientBearer>: Sendable {
    public let bearer: Bearer

    public init(bearer: Bearer) { self.bearer = bearer }
}

// MARK: - One transaction

extension GATTClient {
    /// Sends `request` and returns the server's answer. An Error Response carrying one of
    /// `endingCodes` returns nil: for the discoveries Attribute Not Found is the normal end
    /// (§4.4.1), for Read Long it is Invalid Offset (§4.8.3). Any other Error Response is
    /// thrown as `.att`; one naming a different request is a broken rule.
    nonisolated(nonsending) func send(_ request: ATTPDU, endingOn endingCodes: [ATTErrorCode]) async throws(GATTError) -> ATTPDU? {
        let response: ATTPDU
        do {
            response = try await bearer.request(request)
        } catch {
            throw .bearer(error)
        }
        guard case .errorResponse(let error) = response else { return response }
        guard error.requestOpcode == request.opcode else {
            throw .invalidResponse("Error Response for \(error.requestOpcode) answers \(request.opcode)")
        }
        if endingCodes.contains(error.errorCode) { return nil }
        throw .att(error.errorCode, handle: error.handle, request: error.requestOpcode)
    }

    /// Sends `request`; every Error Response is thrown.
    nonisolated(nonsending) func send(_ request: ATTPDU) async throws(GATTError) -> ATTPDU {
        // With no ending codes an Error Response is always thrown, so nil cannot come back.
        guard let response = try await send(request, endingOn: []) else {
            throw .invalidResponse("no response to \(request.opcode)")
        }
        return response
    }

    /// Sends a command: no answer, only the bearer's flow control.
    nonisolated(nonsending) func sendCommand(_ command: ATTPDU) async throws(GATTError) {
        do {
            try await bearer.command(command)
        } catch {
            throw .bearer(error)
        }
    }

    /// The bearer's current ATT_MTU, never below the LE default of 23 (Vol 3 Part F §3.2.8), so
    /// that the part sizes derived from it stay positive even over a broken bearer.
    var currentMTU: Int {
        get async { max(await bearer.mtu, ATTBearer.defaultMTU) }
    }
}

extension GATTClient {
    /// The requests of a discovery through `range` (§4.4–§4.7): one from each step's starting
    /// handle (`request`), until Attribute Not Found or the range is covered. `response` takes
    /// the answer's list, nil for an opcode that does not answer the request (a broken rule);
    /// `step` reads the list and accepts its handles on the walk.
    nonisolated(nonsending) func walk<List>(
        _ range: ClosedRange<UInt16>, what: String, request: (UInt16) -> ATTPDU, response: (ATTPDU) -> List?,
        _ step: (List, inout HandleWalk) async throws(GATTError) -> Void
    ) async throws(GATTError) {
        var walk = HandleWalk(range, what: what)
        while let start = walk.start {
            let pdu = request(start)
            guard let answer = try await send(pdu, endingOn: [.attributeNotFound]) else { return }
            guard let list = response(answer) else { throw .unexpected(answer, to: pdu.opcode) }
            try await step(list, &walk)
        }
    }

    /// The walk of Read By Type Requests for `type` through `range` (§4.5.1, §4.6.1, §4.8.2).
    nonisolated(nonsending) func walkReadByType(
        _ type: BluetoothUUID, in range: ClosedRange<UInt16>, what: String,
        _ step: (ATT.ReadByTypeResponse, inout HandleWalk) async throws(GATTError) -> Void
    ) async throws(GATTError) {
        try await walk(range, what: what) {
            ATT.ReadByTypeRequest(startingHandle: $0, endingHandle: range.upperBound, attributeType: type).pdu
        } response: {
            if case .readByTypeResponse(let list) = $0 { list } else { nil }
        } _: { (list, walk) async throws(GATTError) in
            try await step(list, &walk)
        }
    }
}

extension GATTError {
    /// A response whose opcode does not answer `request`.
    static func unexpected(_ response: ATTPDU, to request: ATTOpcode) -> GATTError {
        .invalidResponse("\(response.opcode) does not answer \(request)")
    }
}

/// The walk of a discovery through a handle range (Core 5.4 Vol 3 Part G §4.4–§4.7): each
/// response must name handles inside the range and above every handle seen so far, and the next
/// request starts after the last one. The procedure therefore ends after at most one request
/// per handle, whatever the server answers.
struct HandleWalk {
    /// The range being discovered.
    let range: ClosedRange<UInt16>
    /// The lowest handle the next entry may name (an `Int`: it may pass 0xFFFF).
    private(set) var next: Int
    /// What the walk looks for, for the error text ("service", "characteristic" …).
    let what: String

    init(_ range: ClosedRange<UInt16>, what: String) {
        self.range = range
        self.next = Int(range.lowerBound)
        self.what = what
    }

    /// The next request's starting handle, nil when the range is exhausted.
    var start: UInt16? { next <= Int(range.upperBound) ? UInt16(next) : nil }

    /// Accepts an entry covering `first…last` (a group, or one handle when equal): it must lie
    /// at or above `next`, start inside the range, and not end before it starts.
    mutating func accept(_ first: UInt16, through last: UInt16) throws(GATTError) {
        guard Int(first) >= next, first <= range.upperBound else {
            throw .invalidResponse(
                "\(what) handle \(Hex.prefixed(first, width: 4)) is not within "
                    + "\(Hex.prefixed(next, width: 4))…\(Hex.prefixed(range.upperBound, width: 4))"
                    + " (handles must increase)")
        }
        guard last >= first else {
            throw .invalidResponse(
                "\(what) end handle \(Hex.prefixed(last, width: 4))"
                    + " is before its start \(Hex.prefixed(first, width: 4))"
            )
        }
        next = Int(last) + 1
    }
}
