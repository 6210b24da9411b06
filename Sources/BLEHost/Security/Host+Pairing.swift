import BLEWire

// PLACEHOLDER of the SMP work (replaced wholesale by it): the hooks the rest of the host calls.
extension Host {
    /// Pairs on `handle` as central (Pairing Request) or peripheral (Security Request) and
    /// returns the link's security once encrypted with the new key.
    func startPairing(_ handle: ConnectionHandle) async throws(PairingError) -> LinkSecurity {
        throw .failed(.pairingNotSupported, byPeer: false)
    }

    /// A PDU on the SMP fixed channel (CID 0x0006).
    func receivedSMP(_ payload: ArraySlice<UInt8>, on handle: ConnectionHandle) {
        statistics.framesOnUnservedChannels += 1
        logger.notice("dropped an SMP PDU on handle \(handle): pairing is not built")
    }

    func smpLinkUp(_ info: ConnectionInfo) {}
    func smpLinkDown(_ handle: ConnectionHandle, reason: HCIStatus) {}

    /// The key (and the security it gives) for an LE Long Term Key Request that pairing in
    /// progress answers (the STK of legacy pairing, the LTK of Secure Connections).
    func pairingKey(forLongTermKeyRequestOn handle: ConnectionHandle) -> (LongTermKey, LinkSecurity)? { nil }

    /// Encryption started (`security`) or failed (nil) on a link pairing may be waiting for.
    func smpEncryptionChanged(_ handle: ConnectionHandle, security: LinkSecurity?) {}
}
