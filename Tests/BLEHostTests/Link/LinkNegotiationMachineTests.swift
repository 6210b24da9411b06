import BLEWire
import Testing

@testable import BLEHost

@Suite(
    "LinkNegotiation: what a central asks after connecting (Core 5.4 Vol 4 Part E §7.8.33, §7.8.49; Vol 3 Part F §3.4.2)"
)
struct LinkNegotiationMachineTests {
    static let allFeatures: LEFeatures = [
        .leDataPacketLengthExtension, .le2MPHY, .connectionParametersRequestProcedure,
    ]

    /// Runs the machine to its end, every step ending with `outcome`; returns the steps asked.
    static func steps(
        _ policy: LinkPolicy, features: LEFeatures = allFeatures, hostMTU: Int = 247,
        outcome: (LinkNegotiation.Step) -> LinkNegotiation.Outcome = { _ in .done }
    ) -> [LinkNegotiation.Step] {
        var machine = LinkNegotiation(policy: policy, localFeatures: features, hostMTU: hostMTU)
        var asked: [LinkNegotiation.Step] = []
        var action = machine.start()
        while case .perform(let step) = action {
            asked.append(step)
            action = machine.completed(step, outcome(step))
        }
        return asked
    }

    @Test("iphone-modern: data length 251 / 2120 µs, then LE 2M, then Exchange MTU 247")
    func iphoneModern() {
        #expect(
            Self.steps(.iphoneModern) == [
                .setDataLength(.init(octets: 251, time: 2120)), .setPHY2M, .exchangeMTU(247),
            ])
    }

    @Test("iphone-ios10 asks no PHY and an ATT_MTU of 185; android-high asks 517 capped by the host, then 11.25–15 ms")
    func otherProfiles() {
        #expect(Self.steps(.iphoneIOS10) == [.setDataLength(.maximum), .exchangeMTU(185)])
        #expect(
            Self.steps(.androidHigh, hostMTU: 247) == [
                .setDataLength(.maximum), .exchangeMTU(247),
                .updateConnection(
                    HCI.ConnectionParameters(
                        connectionIntervalMin: 9, connectionIntervalMax: 12, maxLatency: 0, supervisionTimeout: 500)),
            ])
        #expect(Self.steps(.androidHigh, hostMTU: 517).contains(.exchangeMTU(517)))
    }

    @Test("none asks nothing; a host whose ATT_MTU is 23 exchanges nothing")
    func nothing() {
        #expect(Self.steps(.none).isEmpty)
        #expect(Self.steps(.iphoneModern, hostMTU: 23) == [.setDataLength(.maximum), .setPHY2M])
    }

    @Test("a controller without Data Length Extension or LE 2M: those steps are skipped, not failed")
    func missingFeatures() {
        let machine = LinkNegotiation(policy: .iphoneModern, localFeatures: [], hostMTU: 247)
        #expect(machine.skipped == [.setDataLength(.maximum), .setPHY2M])
        #expect(Self.steps(.iphoneModern, features: []) == [.exchangeMTU(247)])
    }

    @Test("a refused step is recorded and the negotiation goes on; a lost link ends it")
    func refusalsAndLoss() {
        let refused = Self.steps(.iphoneModern) { step in
            step == .setPHY2M ? .refused(.unsupportedRemoteFeature) : .done
        }
        #expect(refused == [.setDataLength(.maximum), .setPHY2M, .exchangeMTU(247)])
        let lost = Self.steps(.iphoneModern) { _ in .linkLost }
        #expect(lost == [.setDataLength(.maximum)])
    }

    @Test("a completion for a step not in progress changes nothing")
    func strayCompletion() {
        var machine = LinkNegotiation(policy: .iphoneModern, localFeatures: Self.allFeatures, hostMTU: 247)
        #expect(machine.start() == .perform(.setDataLength(.maximum)))
        #expect(machine.completed(.setPHY2M, .done) == .perform(.setDataLength(.maximum)))
        #expect(machine.record.isEmpty)
    }
}
