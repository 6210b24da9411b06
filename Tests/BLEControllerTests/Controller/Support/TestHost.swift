import BLESimulation
import BLEWire
import Testing

@testable import BLEController

/// A minimal host for tests: it speaks to one virtual controller only in H4 bytes built with
/// BLEWire, and decodes everything that comes back, stamped with the virtual time.
final class TestHost {
    let controller: VirtualController
    var air: VirtualAir { controller.air }
    private(set) var events: [(time: VirtualInstant, event: HCIEvent)] = []
    private(set) var acl: [(time: VirtualInstant, packet: ACLPacket)] = []
    private(set) var failures: [VirtualController.TransportFailure] = []
    private var parser = H4StreamParser()

    /// The LE subevents the helper unmasks by default: every 4.x/5.x one except the enhanced
    /// connection complete events (tests that want those unmask them).
    static let defaultLEMask = HCI.LEEventMask([
        .connectionComplete, .advertisingReport, .connectionUpdateComplete, .readRemoteFeaturesComplete,
        .longTermKeyRequest, .remoteConnectionParameterRequest, .dataLengthChange, .phyUpdateComplete,
        .extendedAdvertisingReport, .scanTimeout, .advertisingSetTerminated, .scanRequestReceived,
        .channelSelectionAlgorithm,
    ])

    init(
        air: VirtualAir, at position: AirPosition = .origin,
        configuration: VirtualController.Configuration = .init(), unmaskEvents: Bool = true
    ) {
        controller = VirtualController(air: air, position: position, configuration: configuration)
        controller.onPacket = { [unowned self] bytes in self.collect(bytes) }
        controller.onTransportFailure = { [unowned self] failure in self.failures.append(failure) }
        if unmaskEvents {
            let page1 = HCI.EventMask.defaultMask.union([.leMeta, .encryptionKeyRefreshComplete])
            expectSuccess(HCI.SetEventMask(eventMask: page1))
            expectSuccess(HCI.LESetEventMask(leEventMask: Self.defaultLEMask))
        }
    }

    private func collect(_ bytes: [UInt8]) {
        parser.feed(bytes)
        while let packet = try? parser.next() {
            switch packet.type {
            case .event:
                do {
                    events.append((air.now, try HCIEvent(decoding: packet.payload)))
                } catch {
                    Issue.record("controller sent an undecodable event: \(error)")
                }
            case .acl:
                do {
                    acl.append((air.now, try ACLPacket(decoding: packet.payload)))
                } catch {
                    Issue.record("controller sent an undecodable ACL packet: \(error)")
                }
            default:
                Issue.record("controller sent a \(packet.type) packet")
            }
        }
    }

    // MARK: Sending

    func send(bytes: [UInt8]) { controller.receive(h4: bytes) }

    func send(_ command: some HCICommand) { send(bytes: H4Packet(command: command.packet).encoded) }

    func send(acl packet: ACLPacket) { send(bytes: H4Packet(acl: packet).encoded) }

    /// Sends a Command Complete command, runs the air until its completion, and returns it.
    @discardableResult
    func complete<C: HCICommandWithCompleteEvent>(_ command: C) -> HCIEvent.CommandComplete {
        let mark = events.count
        send(command)
        return waitFor(after: mark) { event -> HCIEvent.CommandComplete? in
            guard case .commandComplete(let complete) = event, complete.opcode == C.opcode else { return nil }
            return complete
        }!
    }

    func returnParameters<C: HCICommandWithCompleteEvent>(_ command: C) throws -> C.ReturnParameters {
        try complete(command).returnParameters(for: C.self)
    }

    func expectSuccess<C: HCICommandWithCompleteEvent>(
        _ command: C, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let status = complete(command).status
        #expect(status == .success, "\(C.name)", sourceLocation: sourceLocation)
    }

    /// Sends a Command Status command and returns its status.
    @discardableResult
    func status<C: HCICommandWithStatusEvent>(_ command: C) -> HCIStatus {
        let mark = events.count
        send(command)
        return waitFor(after: mark) { event -> HCIStatus? in
            guard case .commandStatus(let status) = event, status.opcode == C.opcode else { return nil }
            return status.status
        }!
    }

    // MARK: Time

    func run(for duration: Duration) { air.queue.run(until: air.now.advanced(by: duration)) }

    /// Runs the air in small steps until an event after index `mark` satisfies `match`, or
    /// `limit` of virtual time passes.
    @discardableResult
    func waitFor<T>(
        after mark: Int? = nil, limit: Duration = .seconds(30), _ match: (HCIEvent) -> T?
    ) -> T? {
        let start = mark ?? events.count
        let deadline = air.now.advanced(by: limit)
        var checked = start
        while true {
            while checked < events.count {
                if let found = match(events[checked].event) { return found }
                checked += 1
            }
            if air.now >= deadline { return nil }
            let next = air.queue.nextTime ?? deadline
            air.queue.run(until: min(deadline, max(next, air.now)))
            if air.queue.nextTime == nil && checked == events.count && air.now < deadline {
                air.queue.run(until: deadline)
            }
        }
    }

    /// Runs the air until `condition` holds (checked after every step), or `limit` passes.
    @discardableResult
    func run(until condition: () -> Bool, limit: Duration = .seconds(30)) -> Bool {
        let deadline = air.now.advanced(by: limit)
        while !condition() {
            guard air.now < deadline else { return false }
            let next = air.queue.nextTime ?? deadline
            air.queue.run(until: min(deadline, max(next, air.now)))
        }
        return true
    }

    /// Waits for an LE subevent.
    @discardableResult
    func waitForLE<T>(after mark: Int? = nil, limit: Duration = .seconds(30), _ match: (LEMetaEvent) -> T?) -> T? {
        waitFor(after: mark, limit: limit) { event in
            guard case .le(let le) = event else { return nil }
            return match(le)
        }
    }

    // MARK: Inspection

    var leEvents: [LEMetaEvent] {
        events.compactMap { if case .le(let le) = $0.event { le } else { nil } }
    }

    var advertisingReports: [LEMetaEvent.AdvertisingReport.Report] {
        leEvents.flatMap { event -> [LEMetaEvent.AdvertisingReport.Report] in
            if case .advertisingReport(let report) = event { Array(report.reports) } else { [] }
        }
    }

    var extendedReports: [LEMetaEvent.ExtendedAdvertisingReport.Report] {
        leEvents.flatMap { event -> [LEMetaEvent.ExtendedAdvertisingReport.Report] in
            if case .extendedAdvertisingReport(let report) = event { report.reports } else { [] }
        }
    }

    var disconnections: [HCIEvent.DisconnectionComplete] {
        events.compactMap { if case .disconnectionComplete(let d) = $0.event { d } else { nil } }
    }

    var connectionCompletes: [LEMetaEvent.ConnectionComplete] {
        leEvents.compactMap { if case .connectionComplete(let c) = $0 { c } else { nil } }
    }

    func clearEvents() {
        events.removeAll()
        acl.removeAll()
    }
}
