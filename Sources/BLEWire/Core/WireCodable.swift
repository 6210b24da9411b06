/// A value that decodes itself from untrusted bytes.
///
/// `init(from:)` reads what it needs from the reader and leaves the rest; the convenience
/// `init(decoding:)` additionally requires the input to be consumed exactly (a PDU with extra
/// octets is malformed). Decoders never trap and never allocate from an unchecked length.
public protocol WireDecodable: Sendable {
    init(from reader: inout ByteReader) throws(DecodeError)
}

/// A value that appends its wire form to a writer.
public protocol WireEncodable: Sendable {
    func encode(into writer: inout ByteWriter)
}

public typealias WireCodable = WireDecodable & WireEncodable

/// A value with no octets on the wire (ATT Write Response, HCI Reset, …): decoding reads
/// nothing and encoding writes nothing, written once here instead of in every such type.
public protocol WireEmpty: WireCodable {
    init()
}

extension WireEmpty {
    @inlinable
    public init(from reader: inout ByteReader) throws(DecodeError) { self.init() }

    @inlinable
    public func encode(into writer: inout ByteWriter) {}
}

extension WireDecodable {
    /// Decodes a complete value: `bytes` must hold exactly one encoding.
    @inlinable
    public init(decoding bytes: ArraySlice<UInt8>) throws(DecodeError) {
        var reader = ByteReader(bytes)
        try self.init(from: &reader)
        try reader.finish()
    }

    @inlinable
    public init(decoding bytes: [UInt8]) throws(DecodeError) {
        try self.init(decoding: bytes[...])
    }
}

extension WireEncodable {
    /// The wire form as a new array.
    @inlinable
    public var encoded: [UInt8] {
        var writer = ByteWriter()
        encode(into: &writer)
        return writer.bytes
    }
}
