import BLESimulation
import BLEWire

/// One device in the resolving list (Core 5.4 Vol 6 Part B §4.7; Vol 4 Part E §7.8.38): the
/// peer's identity and IRK, this device's IRK toward it, and the addresses currently in use.
struct ResolvingListEntry {
    /// The peer's identity address: public or random static, typed `.public` or `.random`.
    let identity: LEAddress
    let peerIRK: HCI.Key128
    let localIRK: HCI.Key128
    /// Network privacy until the host says otherwise (§7.8.77).
    var privacyMode = HCI.LESetPrivacyMode.PrivacyMode.network
    /// The RPA this device uses toward the peer, from the local IRK; nil until first needed and
    /// again after each RPA timeout.
    var localRPA: BluetoothAddress?
    /// The TargetA of directed advertising toward the peer, from the peer IRK (Vol 6 Part B
    /// §6.2); renewed like `localRPA`.
    var targetRPA: BluetoothAddress?
    /// The peer's current RPA: the last one resolved from the air, or the TargetA generated for
    /// it (what HCI_LE_Read_Peer_Resolvable_Address reports, §7.8.42).
    var peerRPA: BluetoothAddress?

    /// An all-zero IRK means "no key": such a peer uses its identity address, and a zero local
    /// IRK keeps this device on its public or random address.
    var hasPeerIRK: Bool { peerIRK != .zero }
    var hasLocalIRK: Bool { localIRK != .zero }

    /// Whether `address` names this entry's identity (address and public/random kind).
    func isIdentity(_ address: LEAddress) -> Bool {
        address.address == identity.address && address.type.isRandom == identity.type.isRandom
    }
}

/// LL privacy as the host configured it (Core 5.4 Vol 4 Part E §7.8.38–§7.8.45, §7.8.77).
struct PrivacyState {
    var resolvingList: [ResolvingListEntry] = []
    /// Address_Resolution_Enable (§7.8.44): off after power-on and Reset.
    var resolutionEnabled = false
    /// RPA_Timeout (§7.8.45): 900 s after power-on and Reset.
    var rpaTimeout = Duration.seconds(900)
    /// The running RPA timer and when it started; it runs while controller-generated RPAs are
    /// in use.
    var rpaTimer: (token: EventQueue.Token, started: VirtualInstant)?

    func index(of identity: LEAddress) -> Int? {
        resolvingList.firstIndex { $0.isIdentity(identity) }
    }
}

/// A peer's device address as received on air and what the controller made of it (Core 5.4
/// Vol 6 Part B §6.2–§6.4).
struct ReceivedAddress: Hashable {
    /// The address as it was on air.
    let onAir: LEAddress
    /// The identity (typed `.public` / `.random`) of the resolving-list entry the address
    /// belongs to: by resolution of its RPA, or because it is that identity address.
    let identity: LEAddress?
    /// An RPA on air resolved with the entry's peer IRK.
    let resolved: Bool

    static func unresolved(_ address: LEAddress) -> ReceivedAddress {
        ReceivedAddress(onAir: address, identity: nil, resolved: false)
    }

    /// What the host is told: a resolved RPA becomes the identity address typed 0x02 / 0x03
    /// (Vol 4 Part E §7.7.65.2, §7.7.65.10); anything else is reported as received.
    var reported: LEAddress {
        guard resolved, let identity else { return onAir }
        return LEAddress(identity.address, type: identity.type.isRandom ? .randomIdentity : .publicIdentity)
    }

    /// What the Filter Accept List and the peer addresses a host names are compared with: the
    /// identity address once resolved (Vol 6 Part B §4.3).
    var filterAddress: LEAddress { resolved ? (identity ?? onAir) : onAir }

    /// The RPA the peer used when it was resolved; zeros otherwise (§7.7.65.10).
    var resolvablePrivateAddress: BluetoothAddress { resolved ? onAir.address : .zero }

    /// Whether this is the device the host named by `address` (an identity, or an address on
    /// air for a host that resolves by itself).
    func names(_ address: LEAddress) -> Bool {
        for candidate in [filterAddress, onAir]
        where candidate.address == address.address && candidate.type.isRandom == address.type.isRandom {
            return true
        }
        return false
    }
}

extension HCI.OwnAddressType {
    /// 0x02 and 0x03: a resolvable private address when the resolving list allows it (Core 5.4
    /// Vol 4 Part E §7.8.5).
    var isResolvable: Bool { self == .resolvableOrPublic || self == .resolvableOrRandom }
}
