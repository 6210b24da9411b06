import BLEWire

/// What a central does to a new link before handing it to the app, as a phone does (Core 5.4
/// Vol 4 Part E §7.8.33 LE Set Data Length, §7.8.49 LE Set PHY, Vol 3 Part F §3.4.2 Exchange MTU,
/// Vol 4 Part E §7.8.18 LE Connection Update): one procedure at a time, in that order, each
/// skipped when the policy does not ask for it or the local controller lacks the feature.
///
/// A value: `start()` and `completed(_:_:)` return the next step to perform; the host performs it
/// and reports how it ended. A refused step (the controller or the peer lacks the feature, the
/// peer rejects) is recorded and the negotiation goes on: features missing on either side are
/// not an error, the link simply keeps what it had.
package struct LinkNegotiation: Sendable {
    package enum Step: Sendable, Hashable, CustomStringConvertible {
        case setDataLength(LinkPolicy.DataLength)
        /// LE 2M in both directions.
        case setPHY2M
        /// Exchange MTU asking for this Client Rx MTU.
        case exchangeMTU(Int)
        case updateConnection(HCI.ConnectionParameters)

        package var description: String {
            switch self {
            case .setDataLength(let length): "LE Set Data Length \(length.octets) octets / \(length.time) µs"
            case .setPHY2M: "LE Set PHY (LE 2M)"
            case .exchangeMTU(let mtu): "Exchange MTU \(mtu)"
            case .updateConnection(let p):
                "LE Connection Update \(p.connectionIntervalMin)…\(p.connectionIntervalMax) × 1.25 ms"
            }
        }
    }

    /// How a step ended.
    package enum Outcome: Sendable, Hashable {
        /// The procedure ran (whatever the peer settled on).
        case done
        /// The controller refused the command, or the procedure ended with this status.
        case refused(HCIStatus)
        /// The link went down.
        case linkLost
    }

    package enum Action: Sendable, Hashable {
        case perform(Step)
        case finished
    }

    /// The steps not yet performed, in order.
    private var remaining: [Step]
    /// The step being performed.
    package private(set) var current: Step?
    /// Each step performed and how it ended, in order.
    package private(set) var record: [(step: Step, outcome: Outcome)] = []
    /// Steps the policy asked for that the local controller cannot perform.
    package let skipped: [Step]

    /// The steps `policy` asks for, on a controller with `localFeatures`, for a host whose
    /// buffers take `hostMTU`.
    package init(policy: LinkPolicy, localFeatures: LEFeatures, hostMTU: Int) {
        var steps: [Step] = []
        var skipped: [Step] = []
        if let length = policy.dataLength {
            if localFeatures.contains(.leDataPacketLengthExtension) {
                steps.append(.setDataLength(length))
            } else {
                skipped.append(.setDataLength(length))
            }
        }
        if policy.prefers2M {
            if localFeatures.contains(.le2MPHY) { steps.append(.setPHY2M) } else { skipped.append(.setPHY2M) }
        }
        if let mtu = policy.attMTU {
            let asked = min(mtu, hostMTU)
            if asked > ATTBearer.defaultMTU { steps.append(.exchangeMTU(asked)) }
        }
        if let parameters = policy.connectionUpdate { steps.append(.updateConnection(parameters)) }
        remaining = steps
        self.skipped = skipped
    }

    /// The first step, or `.finished` when there is nothing to ask.
    package mutating func start() -> Action { next() }

    /// `step` ended with `outcome`: the next step, or `.finished`.
    package mutating func completed(_ step: Step, _ outcome: Outcome) -> Action {
        guard current == step else { return current.map { .perform($0) } ?? .finished }
        record.append((step, outcome))
        current = nil
        if outcome == .linkLost {
            remaining = []
            return .finished
        }
        return next()
    }

    private mutating func next() -> Action {
        guard !remaining.isEmpty else { return .finished }
        let step = remaining.removeFirst()
        current = step
        return .perform(step)
    }
}
