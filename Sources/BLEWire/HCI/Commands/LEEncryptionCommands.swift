// LE security commands (Core 5.4 Vol 4 Part E §7.8.22–§7.8.26, §7.8.36, §7.8.37): the AES block,
// random numbers, link encryption and the P-256 operations that LE Secure Connections uses.

extension HCI {
    /// HCI_LE_Encrypt (Core 5.4 Vol 4 Part E §7.8.22): AES-128 of one block with the given key.
    public struct LEEncrypt: HCICommandWithCompleteEvent, Hashable {
        public static let opcode = HCIOpcode(ogf: HCIOpcode.leController, ocf: 0x0017)
        public static let name = "LE Encrypt"

        public var key: Key128
        public var plaintextData: Key128

        public init(key: Key128, plaintextData: Key128) {
            self.key = key
            self.plaintextData = plaintextData
        }

        public init(from reader: inout ByteReader) throws(DecodeError) {
            reader.context = "LE Encrypt"
            key = try Key128(from: &reader, "Key")
            plaintextData = try Key128(from: &reader, "Plaintext_Data")
        }

        public func encode(into writer: inout ByteWriter) {
            key.encode(into: &writer)
            plaintextData.encode(into: &writer)
        }

        /// Command Complete return parameters (Core 5.4 Vol 4 Part E §7.8.22).
        public struct ReturnParameters: HCIReturnParameters, Hashable {
            public var status: HCIStatus
            public var encryptedData: Key128 = .zero

            public init(status: HCIStatus = .success, encryptedData: Key128) {
                self.status = status
                self.encryptedData = encryptedData
            }

            public init(from reader: inout ByteReader) throws(DecodeError) {
                reader.context = "LE Encrypt return parameters"
                status = HCIStatus(try reader.u8("Status"))
                if HCI.endsAfterFailure(status, reader) { return }
                encryptedData = try Key128(from: &reader, "Encrypted_Data")
            }

            public func encode(into writer: inout ByteWriter) {
                writer.u8(status.rawValue)
                encryptedData.encode(into: &writer)
            }
        }
    }

    /// HCI_LE_Rand (Core 5.4 Vol 4 Part E §7.8.23): 8 octets from the controller's random
    /// number generator.
    public struct LERand: HCICommandWithCompleteEvent, Hashable {
        public static let opcode = HCIOpcode(ogf: HCIOpcode.leController, ocf: 0x0018)
        public static let name = "LE Rand"

        public init() {}
        public init(from reader: inout ByteReader) throws(DecodeError) {}
        public func encode(into writer: inout ByteWriter) {}

        /// Command Complete return parameters (Core 5.4 Vol 4 Part E §7.8.23).
        public struct ReturnParameters: HCIReturnParameters, Hashable {
            public var status: HCIStatus
            public var randomNumber: UInt64 = 0

            public init(status: HCIStatus = .success, randomNumber: UInt64) {
                self.status = status
                self.randomNumber = randomNumber
            }

            public init(from reader: inout ByteReader) throws(DecodeError) {
                reader.context = "LE Rand return parameters"
                status = HCIStatus(try reader.u8("Status"))
                if HCI.endsAfterFailure(status, reader) { return }
                randomNumber = try reader.u64("Random_Number")
            }

            public func encode(into writer: inout ByteWriter) {
                writer.u8(status.rawValue)
                writer.u64(randomNumber)
            }
        }
    }

    /// HCI_LE_Enable_Encryption (Core 5.4 Vol 4 Part E §7.8.24): the central starts or refreshes
    /// encryption. Command Status, then HCI_Encryption_Change or
    /// HCI_Encryption_Key_Refresh_Complete.
    public struct LEEnableEncryption: HCICommandWithStatusEvent, Hashable {
        public static let opcode = HCIOpcode(ogf: HCIOpcode.leController, ocf: 0x0019)
        public static let name = "LE Enable Encryption"

        public var connectionHandle: ConnectionHandle
        /// Rand of the legacy-pairing key distribution (0 for LE Secure Connections keys).
        public var randomNumber: UInt64
        /// EDIV (0 for LE Secure Connections keys).
        public var encryptedDiversifier: UInt16
        public var longTermKey: Key128

        public init(
            connectionHandle: ConnectionHandle, randomNumber: UInt64 = 0, encryptedDiversifier: UInt16 = 0,
            longTermKey: Key128
        ) {
            self.connectionHandle = connectionHandle
            self.randomNumber = randomNumber
            self.encryptedDiversifier = encryptedDiversifier
            self.longTermKey = longTermKey
        }

        public init(from reader: inout ByteReader) throws(DecodeError) {
            reader.context = "LE Enable Encryption"
            connectionHandle = ConnectionHandle(try reader.u16("Connection_Handle"))
            randomNumber = try reader.u64("Random_Number")
            encryptedDiversifier = try reader.u16("Encrypted_Diversifier")
            longTermKey = try Key128(from: &reader, "Long_Term_Key")
        }

        public func encode(into writer: inout ByteWriter) {
            writer.u16(connectionHandle.rawValue)
            writer.u64(randomNumber)
            writer.u16(encryptedDiversifier)
            longTermKey.encode(into: &writer)
        }
    }

    /// HCI_LE_Long_Term_Key_Request_Reply (Core 5.4 Vol 4 Part E §7.8.25): the peripheral's
    /// answer to HCI_LE_Long_Term_Key_Request.
    public struct LELongTermKeyRequestReply: HCICommandWithCompleteEvent, Hashable {
        public typealias ReturnParameters = ConnectionHandleReturnParameters
        public static let opcode = HCIOpcode(ogf: HCIOpcode.leController, ocf: 0x001A)
        public static let name = "LE Long Term Key Request Reply"

        public var connectionHandle: ConnectionHandle
        public var longTermKey: Key128

        public init(connectionHandle: ConnectionHandle, longTermKey: Key128) {
            self.connectionHandle = connectionHandle
            self.longTermKey = longTermKey
        }

        public init(from reader: inout ByteReader) throws(DecodeError) {
            reader.context = "LE Long Term Key Request Reply"
            connectionHandle = ConnectionHandle(try reader.u16("Connection_Handle"))
            longTermKey = try Key128(from: &reader, "Long_Term_Key")
        }

        public func encode(into writer: inout ByteWriter) {
            writer.u16(connectionHandle.rawValue)
            longTermKey.encode(into: &writer)
        }
    }

    /// HCI_LE_Long_Term_Key_Request_Negative_Reply (Core 5.4 Vol 4 Part E §7.8.26).
    public struct LELongTermKeyRequestNegativeReply: HCICommandWithCompleteEvent, Hashable {
        public typealias ReturnParameters = ConnectionHandleReturnParameters
        public static let opcode = HCIOpcode(ogf: HCIOpcode.leController, ocf: 0x001B)
        public static let name = "LE Long Term Key Request Negative Reply"

        public var connectionHandle: ConnectionHandle

        public init(connectionHandle: ConnectionHandle) { self.connectionHandle = connectionHandle }

        public init(from reader: inout ByteReader) throws(DecodeError) {
            reader.context = "LE Long Term Key Request Negative Reply"
            connectionHandle = ConnectionHandle(try reader.u16("Connection_Handle"))
        }

        public func encode(into writer: inout ByteWriter) { writer.u16(connectionHandle.rawValue) }
    }

    /// HCI_LE_Read_Local_P-256_Public_Key (Core 5.4 Vol 4 Part E §7.8.36). Command Status, then
    /// HCI_LE_Read_Local_P-256_Public_Key_Complete.
    public struct LEReadLocalP256PublicKey: HCICommandWithStatusEvent, Hashable {
        public static let opcode = HCIOpcode(ogf: HCIOpcode.leController, ocf: 0x0025)
        public static let name = "LE Read Local P-256 Public Key"

        public init() {}
        public init(from reader: inout ByteReader) throws(DecodeError) {}
        public func encode(into writer: inout ByteWriter) {}
    }

    /// HCI_LE_Generate_DHKey [v1] (Core 5.4 Vol 4 Part E §7.8.37): Diffie-Hellman with the
    /// peer's P-256 public key. Command Status, then HCI_LE_Generate_DHKey_Complete.
    ///
    /// The coordinates are slices of the input (32 octets each, little-endian as on the wire);
    /// encoding sends exactly 32 octets of each, zero-padded if shorter.
    public struct LEGenerateDHKey: HCICommandWithStatusEvent, Hashable {
        public static let opcode = HCIOpcode(ogf: HCIOpcode.leController, ocf: 0x0026)
        public static let name = "LE Generate DHKey"

        public static let coordinateLength = 32

        public var keyXCoordinate: ArraySlice<UInt8>
        public var keyYCoordinate: ArraySlice<UInt8>

        public init(keyXCoordinate: ArraySlice<UInt8>, keyYCoordinate: ArraySlice<UInt8>) {
            self.keyXCoordinate = keyXCoordinate
            self.keyYCoordinate = keyYCoordinate
        }

        public init(from reader: inout ByteReader) throws(DecodeError) {
            reader.context = "LE Generate DHKey"
            keyXCoordinate = try reader.take(Self.coordinateLength, "Key_X_Coordinate")
            keyYCoordinate = try reader.take(Self.coordinateLength, "Key_Y_Coordinate")
        }

        public func encode(into writer: inout ByteWriter) {
            HCI.writeFixed(keyXCoordinate, count: Self.coordinateLength, into: &writer)
            HCI.writeFixed(keyYCoordinate, count: Self.coordinateLength, into: &writer)
        }
    }
}

extension HCI {
    /// Writes exactly `count` octets: `data` truncated or zero-padded, so a fixed-size field stays
    /// fixed-size whatever the caller supplied.
    static func writeFixed(_ data: ArraySlice<UInt8>, count: Int, into writer: inout ByteWriter) {
        let part = data.prefix(count)
        writer.append(part)
        for _ in part.count..<count { writer.u8(0) }
    }
}
