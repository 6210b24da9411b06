import BLEWire

/// The central's pending connection attempts and its controller's initiator, one input at a
/// time (Core Bluetooth's `connect`: an attempt waits until the device appears or the app gives
/// up, and any number wait at once).
///
/// The controller initiates one LE Create Connection at a time (Core 5.4 Vol 4 Part E §7.8.12:
/// Command Disallowed while one is pending). One pending device is initiated directly
/// (Initiator_Filter_Policy 0: the peer address); several are initiated together through the
/// Filter Accept List (Initiator_Filter_Policy 1, Vol 6 Part B §4.3.5: the initiator answers the
/// first listed device it hears), so no attempt waits behind another. The list cannot change
/// while the initiator uses it (Vol 6 Part B §4.3.1; Vol 4 Part E §7.8.16, §7.8.17), so a device
/// added or removed means: cancel LE Create Connection (§7.8.13), wait for its LE Connection
/// Complete, edit the list (§7.8.14–§7.8.17), create again.
///
/// A value that does no I/O: `nextAction()` says what to send, the `…Completed` / `…Failed`
/// inputs say how it went, and the controller's events come in through `connected(to:)` and
/// `initiationEnded(status:)`. The manager performs one action at a time.
struct PendingConnections {
    struct Attempt: Equatable {
        let id: UInt64
        let address: LEAddress
        let parameters: HCI.ConnectionParameters
    }

    /// What the initiator is aiming at: one device, or the devices on the Filter Accept List.
    struct Targets: Equatable {
        var addresses: Set<LEAddress>
        var usesFilterAcceptList: Bool
    }

    /// The controller's initiator as this host knows it.
    enum Initiator: Equatable {
        case idle
        /// LE Create Connection is on its way (its Command Status not yet back).
        case starting(Targets)
        case initiating(Targets)
        /// LE Create Connection Cancel was sent: an LE Connection Complete is due — with
        /// Unknown Connection Identifier (0x02), or the connection made meanwhile.
        case cancelling
    }

    enum Action: Equatable {
        /// LE Create Connection toward `peer`, or (nil) toward the Filter Accept List.
        case createConnection(peer: LEAddress?, parameters: HCI.ConnectionParameters)
        case cancelCreateConnection
        /// LE Read Filter Accept List Size (§7.8.14).
        case readFilterAcceptListSize
        case clearFilterAcceptList
        case addToFilterAcceptList(LEAddress)
        case removeFromFilterAcceptList(LEAddress)
    }

    /// An attempt that failed for good (the others keep waiting).
    struct Failure: Equatable {
        let id: UInt64
        let status: HCIStatus
    }

    /// Oldest first: the oldest attempt's connection parameters are the ones asked for, and
    /// when the list holds fewer devices than wait, the oldest are listed.
    private(set) var attempts: [Attempt] = []
    private(set) var initiator = Initiator.idle
    /// The Filter Accept List as this host last left it; nil when unknown (then it is cleared
    /// before use).
    private(set) var filterAcceptList: [LEAddress]?
    /// The controller's list size, once read.
    private(set) var filterAcceptListSize: Int?
    /// False once the controller refused a list command: from then on, one device at a time.
    private(set) var filterAcceptListUsable = true

    var isEmpty: Bool { attempts.isEmpty }

    // MARK: Inputs from the manager

    mutating func add(_ attempt: Attempt) {
        attempts.append(attempt)
    }

    /// The attempt ended without a link (cancelled, timed out): the initiator is restarted
    /// without it when it was a target.
    mutating func remove(_ id: UInt64) {
        attempts.removeAll { $0.id == id }
    }

    /// Every attempt ends (power off): the ids, oldest first. The initiator is cancelled by the
    /// next action.
    mutating func removeAll() -> [UInt64] {
        defer { attempts = [] }
        return attempts.map(\.id)
    }

    /// The controller is gone: nothing it was doing is known any more.
    mutating func controllerLost() -> [UInt64] {
        initiator = .idle
        filterAcceptList = nil
        filterAcceptListSize = nil
        filterAcceptListUsable = true
        return removeAll()
    }

    // MARK: What to do next

    /// What the initiator should aim at now: nothing, the oldest device alone, or up to the
    /// list's size of devices through the list.
    var wanted: Targets? {
        var addresses: [LEAddress] = []
        for attempt in attempts where !addresses.contains(attempt.address) { addresses.append(attempt.address) }
        guard let first = addresses.first else { return nil }
        guard addresses.count > 1, filterAcceptListUsable else {
            return Targets(addresses: [first], usesFilterAcceptList: false)
        }
        let size = max(1, filterAcceptListSize ?? addresses.count)
        return Targets(addresses: Set(addresses.prefix(size)), usesFilterAcceptList: true)
    }

    /// The next command to send, or nil when the initiator is as it should be (or an event is
    /// awaited). Sending it is the manager's; the result comes back through the inputs below.
    mutating func nextAction() -> Action? {
        switch initiator {
        case .starting, .cancelling:
            return nil
        case .initiating(let running):
            guard running != wanted else { return nil }
            initiator = .cancelling
            return .cancelCreateConnection
        case .idle:
            guard let wanted, let oldest = attempts.first else { return nil }
            guard wanted.usesFilterAcceptList else {
                initiator = .starting(wanted)
                return .createConnection(peer: wanted.addresses.first, parameters: oldest.parameters)
            }
            if filterAcceptListSize == nil { return .readFilterAcceptListSize }
            guard let listed = filterAcceptList else { return .clearFilterAcceptList }
            if let extra = listed.first(where: { !wanted.addresses.contains($0) }) {
                return .removeFromFilterAcceptList(extra)
            }
            // Added in the attempts' order, so that the list's contents are deterministic.
            if let missing = attempts.first(where: {
                wanted.addresses.contains($0.address) && !listed.contains($0.address)
            }) {
                return .addToFilterAcceptList(missing.address)
            }
            initiator = .starting(wanted)
            return .createConnection(peer: nil, parameters: oldest.parameters)
        }
    }

    // MARK: How the actions went

    /// `action` was accepted by the controller.
    mutating func completed(_ action: Action) {
        switch action {
        case .createConnection:
            if case .starting(let targets) = initiator { initiator = .initiating(targets) }
        case .cancelCreateConnection:
            break  // LE Connection Complete ends the initiation.
        case .readFilterAcceptListSize:
            break  // `listSizeRead(_:)` carries the answer.
        case .clearFilterAcceptList:
            filterAcceptList = []
        case .addToFilterAcceptList(let address):
            filterAcceptList?.append(address)
        case .removeFromFilterAcceptList(let address):
            filterAcceptList?.removeAll { $0 == address }
        }
    }

    mutating func listSizeRead(_ size: Int) {
        filterAcceptListSize = size
        if size == 0 { filterAcceptListUsable = false }
    }

    /// `action` was refused with `status` (or not answered). A refused create fails the
    /// attempts it aimed at, so that none is retried for ever; a refused list command leaves
    /// the list unknown and the central initiating one device at a time.
    mutating func failed(_ action: Action, status: HCIStatus) -> [Failure] {
        switch action {
        case .createConnection:
            guard case .starting(let targets) = initiator else { return [] }
            initiator = .idle
            let failed = attempts.filter { targets.addresses.contains($0.address) }
            attempts.removeAll { targets.addresses.contains($0.address) }
            return failed.map { Failure(id: $0.id, status: status) }
        case .cancelCreateConnection:
            // Command Disallowed: the initiation had already ended; its LE Connection Complete
            // is on its way or was taken.
            return []
        case .readFilterAcceptListSize, .clearFilterAcceptList, .addToFilterAcceptList,
            .removeFromFilterAcceptList:
            filterAcceptList = nil
            filterAcceptListUsable = false
            return []
        }
    }

    // MARK: The controller's events

    /// LE Connection Complete with success from `address` (Vol 4 Part E §7.7.65.1): the
    /// attempts for it that are settled (empty when nobody here waits for it any more — the
    /// manager then disconnects it). The initiator has stopped.
    mutating func connected(to address: LEAddress) -> [UInt64] {
        initiator = .idle
        let settled = attempts.filter { $0.address.matches(address) }.map(\.id)
        attempts.removeAll { $0.address.matches(address) }
        return settled
    }

    /// LE Connection Complete with a failure status: after a cancel (0x02) nothing more; a
    /// direct initiation that failed on its own fails its attempt; one through the list is
    /// started again.
    mutating func initiationEnded(status: HCIStatus) -> [Failure] {
        let previous = initiator
        initiator = .idle
        guard case .initiating(let targets) = previous, !targets.usesFilterAcceptList,
            status != .unknownConnectionIdentifier
        else { return [] }
        let failed = attempts.filter { targets.addresses.contains($0.address) }
        attempts.removeAll { targets.addresses.contains($0.address) }
        return failed.map { Failure(id: $0.id, status: status) }
    }
}

extension LEAddress {
    /// The same device as `other` in an LE Connection Complete: the address, and public or
    /// random (an identity type reported after resolution counts as its base type).
    func matches(_ other: LEAddress) -> Bool {
        address == other.address && type.isRandom == other.type.isRandom
    }
}
