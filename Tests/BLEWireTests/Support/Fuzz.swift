import BLEWire
import PropertyBased
import Testing

/// Random byte strings for "decoders never trap" properties.
let randomBytes = Gen.uint8().array(of: 0...80)

/// Decodes `bytes` with `decode`; a decoder may throw `DecodeError` but must not trap, and a
/// value it accepts must re-encode to bytes that decode to the same value.
func expectNoTrap<T: WireCodable & Equatable>(
    _ type: T.Type, _ bytes: [UInt8], sourceLocation: SourceLocation = #_sourceLocation
) {
    do {
        let value = try T(decoding: bytes)
        let again = try T(decoding: value.encoded)
        #expect(again == value, sourceLocation: sourceLocation)
    } catch {
        // A typed DecodeError is the expected outcome for most random input.
    }
}

/// Round trip: encode, decode, compare; and the decoded value re-encodes to the same bytes.
func expectRoundTrip<T: WireCodable & Equatable>(
    _ value: T, sourceLocation: SourceLocation = #_sourceLocation
) throws {
    let bytes = value.encoded
    let decoded = try T(decoding: bytes)
    #expect(decoded == value, sourceLocation: sourceLocation)
    #expect(decoded.encoded == bytes, sourceLocation: sourceLocation)
}

/// Decodes `bytes` and expects exactly `expected` as the typed error.
func expectDecodeError<T: WireDecodable>(
    _ type: T.Type, _ bytes: [UInt8], _ expected: DecodeError.Reason, field: String? = nil,
    sourceLocation: SourceLocation = #_sourceLocation
) {
    do {
        _ = try T(decoding: bytes)
        Issue.record("expected \(expected), decoded successfully", sourceLocation: sourceLocation)
    } catch {
        #expect(error.reason == expected, sourceLocation: sourceLocation)
        if let field {
            #expect(error.field.description == field, sourceLocation: sourceLocation)
        }
    }
}

/// Parses hex test vectors ("04 0e 04 01 03 0c 00").
func hex(_ text: String) -> [UInt8] {
    guard let bytes = Hex.bytes(text) else { fatalError("bad test vector \(text)") }
    return bytes
}
