import BLEWire

// Signing Write Commands as a client (Core 5.4 Vol 3 Part G §4.9.2; Part F §3.4.5.4; Part H
// §2.4.5): with the CSRK this host gave the peer (the bond's `localCSRK`) and its SignCounter,
// which goes up with each signed command and is kept in the bond so that the peer never sees
// a counter again after a restart.
extension Host {
    /// Whether a write without response on `handle` goes as a Signed Write Command: the link is
    /// not encrypted (§4.9.2: an encrypted link authenticates every packet, and Write Without
    /// Response is used) and the peer's bond holds the CSRK this host distributed.
    package func signsWrites(on handle: ConnectionHandle) -> Bool {
        guard let link = encryption[handle], !link.security.isEncrypted, let bond = bond(forPeer: link.peer) else {
            return false
        }
        return bond.localCSRK != nil && bond.localSignCounter < .max
    }

    /// The Authentication Signature of `message` (opcode, handle and value) with the bond's
    /// CSRK and next SignCounter, which is then advanced and saved. Without a CSRK (the bond
    /// went meanwhile) the signature is zero, and the server drops the command (logged here).
    package func sign(_ message: [UInt8], on handle: ConnectionHandle) -> ATT.AuthenticationSignature {
        guard let link = encryption[handle], var bond = bond(forPeer: link.peer), let csrk = bond.localCSRK,
            bond.localSignCounter < .max
        else {
            logger.notice("no CSRK to sign a write on \(handle): the Signed Write Command will be dropped")
            return ATT.AuthenticationSignature(signCounter: 0, mac: 0)
        }
        let counter = bond.localSignCounter
        let mac = SignedWrite.mac(message: message, signCounter: counter, csrk: csrk.littleEndianBytes)
        bond.localSignCounter = counter + 1
        saveBond(bond)
        return ATT.AuthenticationSignature(signCounter: counter, mac: mac)
    }
}
