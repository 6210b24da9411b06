import BLEWire

/// Verification of the Authentication Signature of a Signed Write Command (Core 5.4 Vol 3
/// Part F §3.3.1, §3.4.5.4; Part H §2.4.5).
enum SignedWrite {
    /// The signature is the SignCounter and the 64 most significant bits of
    /// AES-CMAC(CSRK, m ‖ SignCounter), where m is the opcode, handle and value. Part H's
    /// functions treat octet strings as integers written most significant octet first, while
    /// the PDU is little-endian: the CMAC runs over the reversed message with the CSRK's octets
    /// reversed (Part F §3.4.5.4's example: key 0x611B…5E50, m ‘D212001337’, counter 1 give the
    /// signature ‘01000000F1871E933C900FF2’).
    static func mac(handle: UInt16, value: ArraySlice<UInt8>, signCounter: UInt32, csrk: [UInt8]) -> UInt64 {
        var message = ByteWriter(capacity: 3 + value.count)
        message.u8(ATTOpcode.signedWriteCommand.rawValue)
        message.u16(handle)
        message.append(value)
        return mac(message: message.bytes, signCounter: signCounter, csrk: csrk)
    }

    /// The MAC of `message` (opcode, handle and value as sent) with `signCounter`: what the
    /// client signs (Part G §4.9.2) and the server checks.
    static func mac(message: [UInt8], signCounter: UInt32, csrk: [UInt8]) -> UInt64 {
        var signed = ByteWriter(capacity: message.count + 4)
        signed.append(message[...])
        signed.u32(signCounter)
        let cmac = SecurityFunctions.aesCMAC(key: csrk.reversed(), signed.bytes.reversed())
        // The most significant 64 bits, read as an integer (first CMAC octet most significant).
        return cmac.prefix(8).reduce(0) { $0 << 8 | UInt64($1) }
    }

    static func verify(_ command: ATT.SignedWriteCommand, csrk: [UInt8]) -> Bool {
        guard csrk.count == 16 else { return false }
        let expected = mac(
            handle: command.handle, value: command.value, signCounter: command.signature.signCounter, csrk: csrk)
        return expected == command.signature.mac
    }
}
