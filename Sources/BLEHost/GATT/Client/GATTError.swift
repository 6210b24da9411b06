import BLEWire

/// Why a GATT client procedure failed (Core 5.4 Vol 3 Part G §4).
///
/// One typed error for every procedure: the server's own answer (`att`), a dead or broken bearer
/// (`bearer`), a server that broke a rule of the procedure (`invalidResponse`: the procedure
/// stops instead of looping or trapping), and API misuse detected before anything is sent
/// (`valueTooLong`, `propertyNotSupported`), as Core Bluetooth reports its own.
public enum GATTError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The server answered with an Error Response (Core 5.4 Vol 3 Part F §3.4.1.1): `handle` is
    /// the Attribute Handle In Error, `request` the Request Opcode In Error.
    case att(ATTErrorCode, handle: UInt16, request: ATTOpcode)
    /// The ATT bearer failed the transaction (disconnection, timeout, protocol violation).
    case bearer(ATTBearerError)
    /// The server's answer breaks the procedure's rules (handles not increasing, a response of
    /// the wrong opcode, a list of the wrong format, a Prepare Write echo that differs …).
    case invalidResponse(String)
    /// The value cannot be written by this procedure: `length` octets where at most `maximum`
    /// fit (ATT_MTU − 3 for a write, ATT_MTU − 15 signed, 512 for a long write). Nothing was sent.
    case valueTooLong(length: Int, maximum: Int)
    /// The characteristic lacks every property the procedure needs (for example neither
    /// notify nor indicate when subscribing). Nothing was sent.
    case propertyNotSupported(required: CharacteristicProperties)

    public var description: String {
        switch self {
        case .att(let code, let handle, let request):
            "ATT error \(code) on handle \(Hex.prefixed(handle, width: 4)) for \(request)"
        case .bearer(let error): "ATT bearer: \(error)"
        case .invalidResponse(let reason): "invalid response: \(reason)"
        case .valueTooLong(let length, let maximum): "value of \(length) octets exceeds \(maximum)"
        case .propertyNotSupported(let required): "characteristic lacks \(required)"
        }
    }
}
