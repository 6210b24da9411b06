import BLE
import BLECompanion
import BLEPhone

/// A scenario's device on the virtual radio: for now the sample headset, whose heartbeat is its
/// notification, placed at its distance from the phone; the timeline's device actions move it
/// or start and stop its heartbeat.
struct ScenarioDevice: Sendable {
    let spec: PhoneScenario.Device
    let headset: VirtualHeadset
    /// Moves its controller on the air (nil when it could not be told apart from the others).
    let move: (@Sendable (AirPosition) async -> Void)?
    let position: AirPosition

    /// Beyond the propagation model's range (100 m by default): packets no longer arrive.
    static let faraway = AirPosition(x: 100_000)

    /// Starts the device numbered `index` (its MAC address is the headset's plus the index).
    static func start(_ spec: PhoneScenario.Device, index: Int, on radio: VirtualRadio) async throws -> ScenarioDevice {
        let before = Set(await radio.withAir { air in air.radioIDs })
        let position = AirPosition(x: spec.distance)
        var configuration = VirtualHeadsetConfiguration(
            name: spec.name, macAddress: BluetoothAddress(0x0000_5E00_5340 &+ UInt64(index)),
            heartbeatPeriod: spec.notifyPeriod)
        configuration.seed = UInt64(index + 1)
        let headset = try await VirtualHeadset.start(on: radio, position: position, configuration: configuration)
        // The controller the headset added is the one radio the air did not have before.
        let after = await radio.withAir { air in air.radioIDs }
        var move: (@Sendable (AirPosition) async -> Void)?
        if let id = after.first(where: { !before.contains($0) }) {
            move = { position in await radio.withAir { air in air.move(id, to: position) } }
        }
        return ScenarioDevice(spec: spec, headset: headset, move: move, position: position)
    }

    /// How the scripted app recognises and uses it.
    var scripted: ScriptedDevice {
        let mac = headset.configuration.macAddress
        return ScriptedDevice(
            name: spec.name, service: HeadsetProtocol.serviceUUID, notifying: HeadsetProtocol.toAppCharacteristicUUID,
            writable: HeadsetProtocol.toDeviceCharacteristicUUID,
            matches: { VirtualHeadsetConfiguration.macAddress(in: $0.manufacturerData) == mac })
    }

    func perform(_ action: PhoneScenario.DeviceAction, radio: VirtualRadio) async {
        switch action {
        case .startNotifying(let every):
            headset.setHeartbeat(every ?? spec.notifyPeriod ?? .seconds(1))
        case .stopNotifying:
            headset.setHeartbeat(nil)
        case .walkAway:
            await move(to: Self.faraway, radio: radio)
        case .comeBack:
            await move(to: position, radio: radio)
        }
    }

    private func move(to position: AirPosition, radio: VirtualRadio) async {
        await move?(position)
    }
}
