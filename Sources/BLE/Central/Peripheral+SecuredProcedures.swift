import BLEHost
import BLEWire

/// Core Bluetooth's answer to a server that wants more security: a request met with
/// Insufficient Authentication (0x05), Insufficient Encryption (0x0F) or Encryption Key Size
/// Too Short (0x0C) (Core 5.4 Vol 3 Part F §3.4.1.1; Part C §10.3.1–§10.3.2 tell the client to
/// encrypt with its bond or pair) makes the central raise the link's security — encrypt with
/// the bond's key, or pair — and send the request again, once. Raising it fails: the ATT error
/// surfaces with the pairing error (`BLEError.insufficientSecurity`).
extension Peripheral {
    /// ATT errors that a stronger link can cure.
    static func isSecurityError(_ code: ATTErrorCode) -> Bool {
        code == .insufficientAuthentication || code == .insufficientEncryption
            || code == .encryptionKeySizeTooShort
    }

    /// Runs the procedure `body` (one at a time, `serialised`); when the server answers it
    /// with a security error, raises the link's security and runs it once more.
    func secured<T>(_ body: nonisolated(nonsending) () async throws(GATTError) -> T) async throws(BLEError) -> T {
        let firstError: GATTError
        do {
            return try await serialised(body)
        } catch {
            firstError = error
        }
        guard case .att(let code, let handle, _) = firstError, Self.isSecurityError(code),
            case .connected(let connection) = link
        else { throw BLEError(firstError) }
        do {
            _ = try await stack.host.raiseSecurity(connection, after: code)
        } catch {
            throw .insufficientSecurity(code, handle: handle, pairing: error)
        }
        do {
            return try await serialised(body)
        } catch {
            throw BLEError(error)
        }
    }

    /// Signed Write Without Response (Core 5.4 Vol 3 Part G §4.9.2): on an unencrypted link to
    /// a bonded peer that holds this host's CSRK, the Write Command is signed with the CSRK and
    /// the bond's next SignCounter (Part H §2.4.5), at most ATT_MTU − 15 octets.
    func writeSigned(
        _ data: [UInt8], handle: UInt16, client: GATTClient<HostATTBearer>, on connection: ConnectionHandle
    ) async throws(BLEError) {
        let host = stack.host
        do {
            try await client.signedWriteValueWithoutResponse(data, handle: handle) { message in
                await host.sign(message, on: connection)
            }
        } catch {
            throw BLEError(error)
        }
    }
}
