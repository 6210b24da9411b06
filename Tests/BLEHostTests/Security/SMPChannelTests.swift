import BLEController
import BLESimulation
import BLEWire
import Testing

@testable import BLEHost

/// What the SMP channel (CID 0x0006) does with PDUs no pairing expects (Core 5.4 Vol 3 Part H
/// §3.3, §3.5.5): answered with Pairing Failed and counted, never a trap or silence.
@Suite("The SMP fixed channel: malformed, unknown and out-of-sequence commands (Vol 3 Part H §3.3)")
struct SMPChannelTests {
    @Test(
        "A reserved code gets Command Not Supported, a truncated Pairing Request Invalid Parameters, a Pairing Request to the central Command Not Supported; each counted"
    )
    func malformedAndUnexpected() async throws {
        let pair = await PairingHosts.make()
        try await pair.simulation.run {
            var peripheralEvents = pair.peripheral.events.makeAsyncIterator()
            var centralEvents = pair.central.events.makeAsyncIterator()
            let (peripheralHandle, centralHandle) = try await pair.connect(
                peripheralEvents: &peripheralEvents, centralEvents: &centralEvents)
            // From the central's host, raw: a reserved code, then a Pairing Request cut short.
            await pair.central.sendL2CAP([0x0F, 0x01], channel: .smp, on: centralHandle, priority: .signaling)
            await pair.central.sendL2CAP([0x01, 0x03], channel: .smp, on: centralHandle, priority: .signaling)
            // From the peripheral's host: a Pairing Request, which only a responder takes.
            let request = SMPCommand.pairingRequest(
                SMP.PairingRequest(
                    features: SMP.PairingFeatures(
                        ioCapability: .noInputNoOutput, oobDataFlag: .notPresent, authReq: [],
                        maximumEncryptionKeySize: 16, initiatorKeyDistribution: [], responderKeyDistribution: [])))
            await pair.peripheral.sendL2CAP(request.encoded, channel: .smp, on: peripheralHandle, priority: .signaling)

            // Each side answered with Pairing Failed, which the other drops (no pairing runs
            // there) and counts: two at the central, one at the peripheral.
            let clock = pair.simulation.clock
            try await clock.sleep(for: .seconds(1))
            let peripheral = await pair.peripheral.statistics
            let central = await pair.central.statistics
            #expect(peripheral.undecodableSMPPDUs == 2)
            #expect(central.unexpectedSMPCommands == 1 + 2)
            #expect(central.undecodableSMPPDUs == 0)
            #expect(peripheral.unexpectedSMPCommands == 1)
            // Nothing of this started a pairing or changed the link.
            #expect(await pair.central.security(of: centralHandle) == .none)
            #expect(await pair.peripheral.connection(peripheralHandle) != nil)
            await pair.central.stop()
            await pair.peripheral.stop()
        }
    }
}
