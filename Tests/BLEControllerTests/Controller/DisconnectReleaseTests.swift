import BLESimulation
import BLEWire
import Testing

@testable import BLEController

/// Every way a connection ends gives back every controller resource it held: the host's ACL
/// buffers (Core 5.4 Vol 4 Part E §4.1.1, §7.7.5 — the host counts its packets on a closed
/// handle as flushed, so the controller must too) and the connection itself. Hundreds of
/// connections, each ended with host data in flight both ways at a seeded instant, so some end
/// while an acknowledged packet's completion is still on its way to the host.
@Suite("Ending a connection frees its ACL buffers on every path (Core 5.4 Vol 4 Part E §7.7.5, Vol 6 Part B §4.5.2)")
struct DisconnectReleaseTests {
    /// How a connection ends.
    enum Path: CaseIterable, CustomStringConvertible {
        /// HCI_Disconnect from the central's host (LL_TERMINATE_IND from the central).
        case centralHostDisconnects
        /// HCI_Disconnect from the peripheral's host (LL_TERMINATE_IND from the peripheral).
        case peripheralHostDisconnects
        /// HCI_Reset on the central: it drops the link, the peripheral times out.
        case centralReset
        /// HCI_Reset on the peripheral: it drops the link, the central times out.
        case peripheralReset
        /// The peer goes out of range: both sides time out (supervision, Vol 6 Part B §4.5.2).
        case linkLost

        var description: String {
            switch self {
            case .centralHostDisconnects: "central host disconnects"
            case .peripheralHostDisconnects: "peripheral host disconnects"
            case .centralReset: "central reset"
            case .peripheralReset: "peripheral reset"
            case .linkLost: "link lost"
            }
        }
    }

    /// 7.5 ms interval, 100 ms supervision timeout: each ending is quick in virtual time.
    static let parameters = HCI.ConnectionParameters(
        connectionIntervalMin: 6, connectionIntervalMax: 6, maxLatency: 0, supervisionTimeout: 10)
    static let near = AirPosition(x: 2)
    static let far = AirPosition(x: 100_000)

    /// The host's packets the controller holds, and whether any connection or procedure state is
    /// left: all zero and empty when the controller is idle.
    static func expectIdle(_ host: TestHost, _ label: String, sourceLocation: SourceLocation = #_sourceLocation) {
        let c = host.controller
        #expect(c.aclPacketsInController == 0, "\(label): ACL buffers held", sourceLocation: sourceLocation)
        #expect(
            c.freeACLBuffers == Int(c.configuration.aclBufferCount), "\(label)", sourceLocation: sourceLocation)
        #expect(c.connectionHandles.isEmpty, "\(label): connections left", sourceLocation: sourceLocation)
        #expect(!c.isInitiating, "\(label): still initiating", sourceLocation: sourceLocation)
        #expect(c.statistics.bufferOverflows == 0, "\(label): buffer overflows", sourceLocation: sourceLocation)
    }

    /// Event masks again after a Reset (Reset clears them, §7.3.2).
    static func unmask(_ host: TestHost) {
        host.expectSuccess(HCI.SetEventMask(eventMask: HCI.EventMask.defaultMask.union([.leMeta])))
        host.expectSuccess(HCI.LESetEventMask(leEventMask: TestHost.defaultLEMask))
    }

    static func sendData(_ count: Int, from host: TestHost, on handle: ConnectionHandle, length: Int) {
        for i in 0..<count {
            let payload = [UInt8](repeating: UInt8(truncatingIfNeeded: i), count: length)
            host.send(
                acl: ACLPacket(handle: handle, packetBoundary: .firstNonFlushable, data: ACLDataTests.frame(payload)))
        }
    }

    @Test("300 connections ended on every path with data in flight: buffers and connections back to idle each time")
    func everyPathReleasesEverything() throws {
        let air = VirtualAir()
        let central = TestHost(air: air)
        let peripheral = TestHost(air: air, at: Self.near)
        var random = SeededRandomGenerator(seed: 0x1F12)
        let paths = Path.allCases
        for round in 0..<300 {
            let path = paths[round % paths.count]
            let label = "round \(round), \(path)"
            guard let handles = Scenario.connect(central, peripheral, parameters: Self.parameters) else { return }
            // Data both ways, up to the whole buffer pool, cut into several LL PDUs each.
            Self.sendData(
                Int.random(in: 1...8, using: &random), from: central, on: handles.central,
                length: Int.random(in: 1...200, using: &random))
            Self.sendData(
                Int.random(in: 1...8, using: &random), from: peripheral, on: handles.peripheral,
                length: Int.random(in: 1...200, using: &random))
            // End it somewhere within the first few connection events.
            central.run(for: .microseconds(Int64.random(in: 0..<30_000, using: &random)))
            let centralMark = central.events.count
            let peripheralMark = peripheral.events.count
            switch path {
            case .centralHostDisconnects:
                central.send(HCI.Disconnect(connectionHandle: handles.central))
            case .peripheralHostDisconnects:
                peripheral.send(HCI.Disconnect(connectionHandle: handles.peripheral))
            case .centralReset:
                central.send(HCI.Reset())
            case .peripheralReset:
                peripheral.send(HCI.Reset())
            case .linkLost:
                peripheral.controller.position = Self.far
            }
            let isDisconnected = { (host: TestHost, mark: Int, handle: ConnectionHandle) -> Bool in
                host.events[mark...].contains {
                    if case .disconnectionComplete(let d) = $0.event { d.connectionHandle == handle } else { false }
                }
            }
            let ended = central.run(
                until: {
                    let centralDone = path == .centralReset || isDisconnected(central, centralMark, handles.central)
                    let peripheralDone =
                        path == .peripheralReset || isDisconnected(peripheral, peripheralMark, handles.peripheral)
                    return centralDone && peripheralDone
                }, limit: .seconds(2))
            #expect(ended, "\(label): not disconnected on both sides")
            // Whatever the ending, nothing of the connection is left on either side.
            central.run(for: .milliseconds(20))
            Self.expectIdle(central, "\(label), central")
            Self.expectIdle(peripheral, "\(label), peripheral")
            switch path {
            case .centralReset: Self.unmask(central)
            case .peripheralReset: Self.unmask(peripheral)
            case .linkLost: peripheral.controller.position = Self.near
            case .centralHostDisconnects, .peripheralHostDisconnects: break
            }
            central.clearEvents()
            peripheral.clearEvents()
            guard central.controller.aclPacketsInController == 0, peripheral.controller.aclPacketsInController == 0
            else { return }
        }
    }

    @Test("After many endings the whole buffer pool is usable: a full pool on a new link completes without overflow")
    func fullPoolAfterManyEndings() throws {
        let air = VirtualAir()
        let central = TestHost(air: air)
        let peripheral = TestHost(air: air, at: Self.near)
        // The ending the `ble serve` / `ble read` symptom went through: the peer terminates while
        // this side's response is on air.
        for round in 0..<40 {
            let handles = try #require(Scenario.connect(central, peripheral, parameters: Self.parameters))
            Self.sendData(1, from: central, on: handles.central, length: 10)
            #expect(peripheral.run(until: { !peripheral.acl.isEmpty }, limit: .seconds(1)))
            Self.sendData(1, from: peripheral, on: handles.peripheral, length: 10)
            central.run(for: .microseconds(Int64(round) * 400))
            central.send(HCI.Disconnect(connectionHandle: handles.central))
            #expect(central.waitForDisconnection(handles.central, limit: .seconds(2)) != nil)
            #expect(peripheral.waitForDisconnection(handles.peripheral, limit: .seconds(2)) != nil)
            central.clearEvents()
            peripheral.clearEvents()
        }
        let handles = try #require(Scenario.connect(central, peripheral, parameters: Self.parameters))
        let pool = Int(peripheral.controller.configuration.aclBufferCount)
        Self.sendData(pool, from: peripheral, on: handles.peripheral, length: 20)
        #expect(central.run(until: { central.acl.count == pool }, limit: .seconds(2)))
        #expect(peripheral.controller.statistics.bufferOverflows == 0)
        #expect(!peripheral.events.contains { if case .dataBufferOverflow = $0.event { true } else { false } })
    }
}
