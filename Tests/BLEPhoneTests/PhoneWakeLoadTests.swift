import BLEController
import BLELocking
import BLESimulation
import Testing

@testable import BLEPhone

/// The phone's per-event work stays small: a background app woken by a notification every
/// second (the benchmark's load, here for an hour of virtual time) costs no scan of the trace
/// or of other apps per event.
@Suite("Phone: wake load")
struct PhoneWakeLoadTests {
    @Test(
        "An hour of one notification per second to a bluetooth-central app: every event delivered, the window restarted by each"
    )
    func hourOfNotifications() async throws {
        let radio = VirtualRadio()
        let seconds = 3600
        let delivered = Locked(0)
        let (counters, states) = try await radio.simulation.run {
            let world = await PhoneWorld.make(.ios17, radio: radio)
            let app = await world.install("com.example.headset", modes: [.bluetoothCentral])
            await world.phone.open(app)
            await world.phone.home()
            for second in 0..<seconds {
                try await world.at(Double(100 + second))
                await world.phone.offer(
                    AppBluetoothDelivery(
                        manager: ManagerID(role: .central, restoreIdentifier: nil, serial: 1), kind: .valueUpdate,
                        summary: "heart rate", coalescingKey: "hr"
                    ) { delivered.withLock { $0 += 1 } }, to: app)
            }
            try await world.at(Double(100 + seconds + 60))
            let states = await world.trace(of: app).filter { $0.hasPrefix("suspended") || $0.hasPrefix("background") }
            return (await world.phone.counters, states)
        }
        #expect(delivered.withLock { $0 } == seconds)
        #expect(counters.eventsDelivered == seconds)
        // One wake: each event restarts the 10 s window, so the app stays up until 10 s after
        // the last one.
        #expect(counters.wakes == 1)
        #expect(states == ["background@0", "suspended@1", "background@100", "suspended@\(100 + seconds - 1 + 10)"])
    }
}
