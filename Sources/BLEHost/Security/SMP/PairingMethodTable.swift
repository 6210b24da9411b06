import BLEWire

/// The association model (Core 5.4 Vol 3 Part H §2.3.5.1, Tables 2.6–2.8), seen from this side:
/// `passkeyEntry(displays:)` says whether this side shows the passkey.
enum PairingMethodTable {
    /// The method for this side's and the peer's Pairing Request / Response features.
    /// Out of band wins when the flags allow it (legacy: both have the peer's data; Secure
    /// Connections: either has), then Just Works when neither side asks for MITM protection,
    /// then the IO capabilities decide.
    static func method(
        local: SMP.PairingFeatures, peer: SMP.PairingFeatures, secureConnections: Bool, isInitiator: Bool
    ) -> PairingMethod {
        let localOOB = local.oobDataFlag == .present
        let peerOOB = peer.oobDataFlag == .present
        if secureConnections ? (localOOB || peerOOB) : (localOOB && peerOOB) { return .outOfBand }
        if !local.authReq.contains(.mitm) && !peer.authReq.contains(.mitm) { return .justWorks }
        return method(local: local.ioCapability, peer: peer.ioCapability, secureConnections, isInitiator)
    }

    private enum Cell { case justWorks, input, display, confirm, initiatorDisplays }

    /// Table 2.8 from this side: the row is the peer's capability, the column ours, in the
    /// order DisplayOnly, DisplayYesNo, KeyboardOnly, NoInputNoOutput, KeyboardDisplay.
    private static let legacy: [[Cell]] = [
        [.justWorks, .justWorks, .input, .justWorks, .input],
        [.justWorks, .justWorks, .input, .justWorks, .input],
        [.display, .display, .input, .justWorks, .display],
        [.justWorks, .justWorks, .justWorks, .justWorks, .justWorks],
        [.display, .display, .input, .justWorks, .initiatorDisplays],
    ]
    private static let secureConnectionsTable: [[Cell]] = [
        [.justWorks, .justWorks, .input, .justWorks, .input],
        [.justWorks, .confirm, .input, .justWorks, .confirm],
        [.display, .display, .input, .justWorks, .display],
        [.justWorks, .justWorks, .justWorks, .justWorks, .justWorks],
        [.display, .confirm, .input, .justWorks, .confirm],
    ]

    static func method(
        local: SMP.IOCapability, peer: SMP.IOCapability, _ secureConnections: Bool, _ isInitiator: Bool
    ) -> PairingMethod {
        // Reserved capabilities are refused before this (Invalid Parameters); Just Works is
        // the safe reading anyway.
        guard local.rawValue <= 4, peer.rawValue <= 4 else { return .justWorks }
        let table = secureConnections ? secureConnectionsTable : legacy
        switch table[Int(peer.rawValue)][Int(local.rawValue)] {
        case .justWorks: return .justWorks
        case .input: return .passkeyEntry(displays: false)
        case .display: return .passkeyEntry(displays: true)
        case .confirm: return .numericComparison
        case .initiatorDisplays: return .passkeyEntry(displays: isInitiator)
        }
    }
}
