import BLEController
import BLESimulation
import Testing

@testable import BLEPhone

/// What the phone does with a Bluetooth event for an app (Core Bluetooth Programming Guide,
/// "Core Bluetooth Background Processing for iOS Apps"; TN3115).
@Suite("Phone: Bluetooth events for apps")
struct PhoneInboxTests {
    @Test("Foreground-only app: events queued while suspended, delivered in order when it comes to the front")
    func queuedInOrder() async throws {
        let radio = VirtualRadio()
        let (log, trace) = try await radio.simulation.run {
            let world = await PhoneWorld.make(.ios17, radio: radio)
            let app = await world.install("com.example.fg")
            await world.phone.open(app)
            try await world.at(1)
            await world.phone.home()
            try await world.at(10)
            for (index, name) in ["e1", "e2", "e3"].enumerated() {
                try await world.at(Double(20 + index))
                await world.phone.offer(world.delivery(name, for: app), to: app)
            }
            try await world.at(50)
            #expect(await world.phone.state(of: app) == .suspended)
            #expect(!world.log.names().contains { $0.hasPrefix("event") })
            await world.phone.open(app)
            try await world.at(51)
            return (world.log.names("event"), await world.trace(of: app))
        }
        #expect(log == ["event e1", "event e2", "event e3"])
        #expect(trace.filter { $0.hasPrefix("queued") } == ["queued e1@20", "queued e2@21", "queued e3@22"])
        #expect(
            trace.filter { $0.hasPrefix("delivered") } == ["delivered e1@50", "delivered e2@50", "delivered e3@50"])
    }

    @Test("Coalescing policies: latest per key, bounded(n) keeps the last n")
    func coalescing() async throws {
        for (policy, expected, coalesced) in [
            (EventCoalescing.latestPerKey, ["event b1", "event a2"], ["coalesced a1"]),
            (.bounded(2), ["event b1", "event a2"], ["coalesced a1"]),
            (.none, ["event a1", "event b1", "event a2"], []),
        ] {
            let radio = VirtualRadio()
            let (log, trace) = try await radio.simulation.run {
                let world = await PhoneWorld.make(.ios17, radio: radio)
                await world.phone.setEventCoalescing(policy)
                let app = await world.install("com.example.fg")
                await world.phone.open(app)
                await world.phone.home()
                try await world.at(10)
                for (name, key) in [("a1", "a"), ("b1", "b"), ("a2", "a")] {
                    await world.phone.offer(world.delivery(name, for: app, key: key), to: app)
                }
                await world.phone.open(app)
                try await world.at(11)
                return (world.log.names("event"), await world.trace(of: app))
            }
            #expect(log == expected, "\(policy)")
            #expect(trace.filter { $0.hasPrefix("coalesced") }.map { String($0.split(separator: "@")[0]) } == coalesced)
        }
    }

    @Test(
        "bluetooth-central: a suspended app is woken for the wake window (10 s), the event delivered, then suspended; a foreground-only app is not woken"
    )
    func wakes() async throws {
        let radio = VirtualRadio()
        let (central, foregroundOnly) = try await radio.simulation.run {
            let world = await PhoneWorld.make(.ios17, radio: radio)
            let central = await world.install("com.example.central", modes: [.bluetoothCentral])
            let plain = await world.install("com.example.plain")
            await world.phone.open(central)
            await world.phone.open(plain)
            await world.phone.home()
            try await world.at(100)
            await world.phone.offer(world.delivery("n1", for: central), to: central)
            await world.phone.offer(world.delivery("n1", for: plain), to: plain)
            try await world.at(101)
            #expect(await world.phone.state(of: central) == .background)
            #expect(await world.phone.state(of: plain) == .suspended)
            try await world.at(120)
            return (await world.trace(of: central), await world.trace(of: plain))
        }
        #expect(central.contains("woken@100"))
        #expect(central.contains("delivered n1@100"))
        #expect(central.filter { $0.hasPrefix("suspended") } == ["suspended@1", "suspended@110"])
        #expect(!foregroundOnly.contains { $0.hasPrefix("woken") })
        #expect(foregroundOnly.contains("queued n1@100"))
    }

    @Test(
        "The mode must match the manager's role: bluetooth-peripheral wakes for peripheral-manager events, not for central ones"
    )
    func modeMatchesRole() async throws {
        let radio = VirtualRadio()
        let trace = try await radio.simulation.run {
            let world = await PhoneWorld.make(.ios12, radio: radio)
            let app = await world.install("com.example.peripheral", modes: [.bluetoothPeripheral])
            await world.phone.open(app)
            await world.phone.home()
            try await world.at(10)
            await world.phone.offer(world.delivery("scan result", for: app, role: .central, kind: .discovery), to: app)
            try await world.at(20)
            await world.phone.offer(world.delivery("write", for: app, role: .peripheral, kind: .writeRequest), to: app)
            try await world.at(21)
            return await world.trace(of: app)
        }
        #expect(trace.contains("queued scan result@10"))
        #expect(trace.contains("woken@20"))
        #expect(trace.contains("delivered write@20"))
    }

    @Test(
        "Each event restarts the wake window; work past the window without a task is frozen and continues at the next wake"
    )
    func frozenWork() async throws {
        let radio = VirtualRadio()
        let (log, trace) = try await radio.simulation.run {
            let world = await PhoneWorld.make(.ios17, radio: radio)
            let app = await world.install(
                "com.example.central", modes: [.bluetoothCentral], behaviour: AppBehaviour(workPerEvent: .seconds(15)))
            await world.phone.open(app)
            await world.phone.home()
            try await world.at(100)
            await world.phone.offer(world.delivery("n1", for: app), to: app)
            try await world.at(105)
            // A second event 5 s in: the window now ends at 115.
            await world.phone.offer(world.delivery("n2", for: app, kind: .connection), to: app)
            try await world.at(200)
            await world.phone.offer(world.delivery("n3", for: app), to: app)
            try await world.at(300)
            return (
                world.log.all.filter { $0.hasPrefix("event") || $0.hasPrefix("worked") }, await world.trace(of: app)
            )
        }
        #expect(trace.filter { $0.hasPrefix("suspended") } == ["suspended@1", "suspended@115", "suspended@210"])
        // n1's work ends at 115, as the window closes (its sleep was set first); n2's is due at
        // 120, while suspended: it finishes at the next wake (200), in the same instant as the
        // event that woke the app, which is handed over first (the app's clock starts again and
        // fires the overdue sleep after the delivery). n3's is due at 215, after that window
        // (210), and no wake follows: it stays frozen.
        #expect(log == ["event n1@100", "event n2@105", "worked n1@115", "event n3@200", "worked n2@200"])
    }

    @Test("An alert goes to the most recently foregrounded of the apps asking for alerts")
    func alerts() async throws {
        let radio = VirtualRadio()
        let trace = try await radio.simulation.run {
            let world = await PhoneWorld.make(.ios17, radio: radio)
            let older = await world.install("com.example.older")
            let newer = await world.install("com.example.newer")
            await world.phone.open(older)
            await world.phone.open(newer)
            await world.phone.home()
            try await world.at(10)
            await world.phone.offer(
                world.delivery("c", for: newer, kind: .connection, alert: "Headset connected"), to: newer)
            await world.phone.offer(
                world.delivery("c", for: older, kind: .connection, alert: "Watch connected"), to: older)
            try await world.at(11)
            return await world.trace(of: nil)
        }
        #expect(trace.filter { $0.hasPrefix("alert") } == ["alert Headset connected@10"])
        #expect(trace.contains { $0.hasPrefix("note alert not shown") })
    }
}
