extension LEMetaEvent {
    /// HCI_LE_Long_Term_Key_Request (Core 5.4 Vol 4 Part E §7.7.65.5): as peripheral, the
    /// controller needs the LTK for encryption the central started. Rand and EDIV identify a
    /// legacy-pairing key; both are zero for LE Secure Connections keys.
    public struct LongTermKeyRequest: Sendable, Hashable, WireCodable, WireRenderable {
        public var connectionHandle: ConnectionHandle
        public var randomNumber: UInt64
        public var encryptedDiversifier: UInt16

        public init(connectionHandle: ConnectionHandle, randomNumber: UInt64 = 0, encryptedDiversifier: UInt16 = 0) {
            self.connectionHandle = connectionHandle
            self.randomNumber = randomNumber
            self.encryptedDiversifier = encryptedDiversifier
        }

        public init(from reader: inout ByteReader) throws(DecodeError) {
            reader.context = "HCI LE Long Term Key Request event"
            connectionHandle = try HCIEventHandle.read(&reader)
            randomNumber = try reader.u64("Random_Number")
            encryptedDiversifier = try reader.u16("Encrypted_Diversifier")
        }

        public func encode(into writer: inout ByteWriter) {
            HCIEventHandle.write(connectionHandle, into: &writer)
            writer.u64(randomNumber)
            writer.u16(encryptedDiversifier)
        }
    }

    /// HCI_LE_Read_Local_P-256_Public_Key_Complete (Core 5.4 Vol 4 Part E §7.7.65.8): the
    /// controller's new P-256 public key, coordinates little-endian as on the wire.
    ///
    /// The coordinates are 32-octet slices of the input (no copy). Encoding writes exactly 32
    /// octets each: shorter values are padded with zeros and longer ones cut, so give 32.
    public struct ReadLocalP256PublicKeyComplete: Sendable, Hashable, WireCodable, WireRenderable {
        public var status: HCIStatus
        public var keyXCoordinate: ArraySlice<UInt8>
        public var keyYCoordinate: ArraySlice<UInt8>

        public init(
            status: HCIStatus = .success, keyXCoordinate: ArraySlice<UInt8>, keyYCoordinate: ArraySlice<UInt8>
        ) {
            self.status = status
            self.keyXCoordinate = keyXCoordinate
            self.keyYCoordinate = keyYCoordinate
        }

        public init(from reader: inout ByteReader) throws(DecodeError) {
            reader.context = "HCI LE Read Local P-256 Public Key Complete event"
            status = HCIStatus(try reader.u8("Status"))
            keyXCoordinate = try reader.take(32, "Key_X_Coordinate")
            keyYCoordinate = try reader.take(32, "Key_Y_Coordinate")
        }

        public func encode(into writer: inout ByteWriter) {
            writer.u8(status.rawValue)
            LEMetaEvent.writeFixed(keyXCoordinate, count: 32, into: &writer)
            LEMetaEvent.writeFixed(keyYCoordinate, count: 32, into: &writer)
        }
    }

    /// HCI_LE_Generate_DHKey_Complete (Core 5.4 Vol 4 Part E §7.7.65.9): the Diffie-Hellman
    /// key computed from the peer's public key, little-endian as on the wire.
    ///
    /// The key is a 32-octet slice of the input; encoding pads or cuts it to 32 octets.
    public struct GenerateDHKeyComplete: Sendable, Hashable, WireCodable, WireRenderable {
        public var status: HCIStatus
        public var dhKey: ArraySlice<UInt8>

        public init(status: HCIStatus = .success, dhKey: ArraySlice<UInt8>) {
            self.status = status
            self.dhKey = dhKey
        }

        public init(from reader: inout ByteReader) throws(DecodeError) {
            reader.context = "HCI LE Generate DHKey Complete event"
            status = HCIStatus(try reader.u8("Status"))
            dhKey = try reader.take(32, "DH_Key")
        }

        public func encode(into writer: inout ByteWriter) {
            writer.u8(status.rawValue)
            LEMetaEvent.writeFixed(dhKey, count: 32, into: &writer)
        }
    }

    /// Writes exactly `count` octets of a fixed-size field: `bytes` cut or zero-padded.
    static func writeFixed(_ bytes: ArraySlice<UInt8>, count: Int, into writer: inout ByteWriter) {
        writer.append(bytes.prefix(count))
        var missing = count - min(bytes.count, count)
        while missing > 0 {
            writer.u8(0)
            missing -= 1
        }
    }
}
