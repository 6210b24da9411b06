import Testing

@testable import BLE

/// The power rules both managers share, one input at a time (no radio, no host).
@Suite("PowerStateMachine: the managers' power rules, one input at a time")
struct PowerStateMachineTests {
    @Test("The first power-on starts the host while resetting; a second caller waits it out")
    func firstPowerOnStartsTheHost() {
        var machine = PowerStateMachine()
        #expect(machine.state == .poweredOff)
        #expect(!machine.hostStarted)
        #expect(machine.powerOn() == .startHost)
        #expect(machine.state == .resetting)
        #expect(machine.powerOn() == .waitOutReset)
        #expect(machine.powerOff() == false)
        #expect(machine.state == .resetting)
        machine.hostStartEnded(succeeded: true)
        #expect(machine.state == .poweredOn)
        #expect(machine.hostStarted)
        #expect(machine.powerOn() == .done)
        #expect(throws: Never.self) { try machine.checkPoweredOn() }
    }

    @Test("Power off, then on again, without a second start of the host")
    func powerCycle() {
        var machine = PowerStateMachine()
        _ = machine.powerOn()
        machine.hostStartEnded(succeeded: true)
        #expect(machine.powerOff() == true)
        #expect(machine.state == .poweredOff)
        #expect(machine.hostStarted)
        #expect(machine.powerOff() == false)
        #expect(throws: BLEError.notPoweredOn(.poweredOff)) { try machine.checkPoweredOn() }
        #expect(machine.powerOn() == .done)
        #expect(machine.state == .poweredOn)
    }

    @Test("A host that cannot start leaves the manager unsupported for good")
    func unsupported() {
        var machine = PowerStateMachine()
        _ = machine.powerOn()
        machine.hostStartEnded(succeeded: false)
        #expect(machine.state == .unsupported)
        #expect(!machine.hostStarted)
        #expect(machine.powerOn() == .fail(.notPoweredOn(.unsupported)))
        #expect(machine.powerOff() == false)
        #expect(throws: BLEError.notPoweredOn(.unsupported)) { try machine.checkPoweredOn() }
    }

    @Test("A closed manager refuses power-on, but a reset under way is waited out first")
    func closed() {
        var machine = PowerStateMachine()
        _ = machine.powerOn()
        machine.close()
        #expect(machine.powerOn() == .waitOutReset)
        machine.hostStartEnded(succeeded: true)
        #expect(machine.powerOn() == .fail(.closed))
        #expect(throws: BLEError.closed) { try machine.checkPoweredOn() }

        var fresh = PowerStateMachine()
        fresh.close()
        #expect(fresh.powerOn() == .fail(.closed))
        #expect(fresh.state == .poweredOff)
    }

    @Test("ManagerPower tells listeners each change once and lets reset waiters go when it ends")
    func listenersSeeEachChange() async {
        var power = ManagerPower()
        let updates = power.updates()
        #expect(power.powerOn() == .startHost)
        #expect(power.powerOn() == .waitOutReset)
        power.hostStartEnded(succeeded: true)
        #expect(power.powerOn() == .done)
        #expect(power.powerOff() == true)
        #expect(power.powerOff() == false)
        power.finish()
        var seen: [ManagerState] = []
        for await state in updates { seen.append(state) }
        #expect(seen == [.poweredOff, .resetting, .poweredOn, .poweredOff])
    }
}
