import BLE
import BLEPhone
import BLESimulation

/// A day in the background (issue 15's "must reach"): the headset's phone app, with the
/// `bluetooth-central` mode, connected to a virtual headset that sends a heartbeat every second,
/// left in the background for `duration` of virtual time on a simulated phone — every heartbeat
/// crossing the air, the phone's host, the system Bluetooth service and the phone's inbox, waking
/// the app when it is suspended. Timed on the wall clock; what happened is counted.
///
/// The headset asks for about a second between connection events once connected (what a
/// wearable sending one heartbeat a second does, within Apple's accessory bounds): the air then
/// carries one connection event per heartbeat instead of 33 at 30 ms.
public enum PhoneBackgroundBenchmark {
    public struct Parameters: Sendable {
        /// Virtual time in the background.
        public var duration: Duration = .seconds(24 * 3600)
        public var profile: PhoneProfile = .ios17
        /// The phone's wake window (nil: the profile's, 10 s — longer than the heartbeat period,
        /// so the app stays awake; below a second the app is suspended and woken for every one).
        public var wakeWindow: Duration?
        public var heartbeatPeriod: Duration = .seconds(1)
        /// The connection parameters the headset asks for (nil: keep the phone's 30 ms).
        public var connectionParameters: ConnectionParameters? = VirtualHeadsetConfiguration
            .heartbeatConnectionParameters

        public init() {}
    }

    public struct Result: Sendable {
        public var parameters: Parameters
        /// Wall time of the background part (setup excluded).
        public var wall: Duration
        public var heartbeatsSent: Int
        public var counts: HeadsetAppObserver.Counts
        public var phone: PhoneCounters
        public var traceEntries: Int
        /// What the simulation thread ran in the background part.
        public var scheduling: SimulationExecutor.Statistics
        /// The link the headset and the phone settled on.
        public var link: LinkParameters?
    }

    public enum Failure: Error, CustomStringConvertible {
        case setup(String)

        public var description: String {
            switch self {
            case .setup(let what): "benchmark setup failed: \(what)"
            }
        }
    }

    public static func run(_ parameters: Parameters = Parameters()) async throws -> Result {
        let radio = VirtualRadio()
        let simulation = radio.simulation
        return try await simulation.run {
            var headsetConfiguration = VirtualHeadsetConfiguration(heartbeatPeriod: parameters.heartbeatPeriod)
            headsetConfiguration.preferredConnectionParameters = parameters.connectionParameters
            let headset = try await VirtualHeadset.start(on: radio, configuration: headsetConfiguration)
            var profile = parameters.profile
            if let window = parameters.wakeWindow { profile.wakeWindow = window }
            let phone = await Phone(profile: profile, radio: radio, position: AirPosition(x: 2))
            let observer = HeadsetAppObserver()
            let app = HeadsetAppConfiguration.bluetoothCentral(headsetMAC: headsetConfiguration.macAddress)
            await phone.install(app.declaration) { context in
                HeadsetPhoneApp(context: context, configuration: app, observer: observer)
            }
            let identifier = AppIdentifier(app.declaration.bundleIdentifier)
            await phone.open(identifier)
            // Connected, subscribed and on the headset's parameters well within a minute.
            try await simulation.clock.sleep(for: .seconds(30))
            guard observer.counts.heartbeats > 0 else {
                throw Failure.setup("no heartbeat reached the app in 30 s: \(observer.counts)")
            }
            var link: LinkParameters?
            if let central = await headset.manager.connectedCentrals.first {
                link = await headset.manager.linkParameters(for: central)
            }
            await phone.home()
            let sentBefore = headset.statistics.heartbeatsSent
            let countsBefore = observer.counts
            let schedulingBefore = simulation.executor.statistics
            let wallStart = ContinuousClock.now
            try await simulation.clock.sleep(for: parameters.duration)
            let wall = wallStart.duration(to: .now)
            var counts = observer.counts
            counts.heartbeats -= countsBefore.heartbeats
            counts.jobRuns -= countsBefore.jobRuns
            counts.appTimerFirings -= countsBefore.appTimerFirings
            counts.deviceEvents -= countsBefore.deviceEvents
            let result = Result(
                parameters: parameters, wall: wall, heartbeatsSent: headset.statistics.heartbeatsSent - sentBefore,
                counts: counts, phone: await phone.counters, traceEntries: await phone.trace.count,
                scheduling: simulation.executor.statistics - schedulingBefore, link: link)
            await headset.stop()
            await headset.manager.close()
            return result
        }
    }
}
