import BLEWire
import Testing

@testable import BLE

/// The pending set and the initiator, one input at a time (Core 5.4 Vol 6 Part B §4.3; Vol 4
/// Part E §7.8.12–§7.8.17).
@Suite("Pending connections: the initiator and its Filter Accept List, as a value")
struct PendingConnectionsTests {
    static let a = LEAddress(BluetoothAddress(0xC0_00_00_00_00_0A), type: .random)
    static let b = LEAddress(BluetoothAddress(0x00_1B_DC_00_00_0B), type: .public)
    static let c = LEAddress(BluetoothAddress(0xC0_00_00_00_00_0C), type: .random)
    static let parameters = HCI.ConnectionParameters(
        connectionIntervalMin: 24, connectionIntervalMax: 24, supervisionTimeout: 400)

    static func attempt(_ id: UInt64, _ address: LEAddress) -> PendingConnections.Attempt {
        PendingConnections.Attempt(id: id, address: address, parameters: parameters)
    }

    /// Performs every action the machine asks for, as a controller accepting all, until it waits.
    static func settle(_ machine: inout PendingConnections, listSize: Int = 8) -> [PendingConnections.Action] {
        var actions: [PendingConnections.Action] = []
        while let action = machine.nextAction() {
            actions.append(action)
            if action == .readFilterAcceptListSize { machine.listSizeRead(listSize) }
            machine.completed(action)
        }
        return actions
    }

    @Test("One pending device is initiated directly (Initiator_Filter_Policy 0), without the list")
    func oneDevice() {
        var machine = PendingConnections()
        machine.add(Self.attempt(0, Self.a))
        #expect(Self.settle(&machine) == [.createConnection(peer: Self.a, parameters: Self.parameters)])
        #expect(machine.initiator == .initiating(.init(addresses: [Self.a], usesFilterAcceptList: false)))
    }

    @Test("A second device cancels the initiator, lists both devices and initiates through the list (§7.8.13, §7.8.16)")
    func secondDevice() {
        var machine = PendingConnections()
        machine.add(Self.attempt(0, Self.a))
        _ = Self.settle(&machine)
        machine.add(Self.attempt(1, Self.b))
        #expect(Self.settle(&machine) == [.cancelCreateConnection])
        // Nothing more until LE Connection Complete (Unknown Connection Identifier) ends it.
        #expect(machine.nextAction() == nil)
        #expect(machine.initiationEnded(status: .unknownConnectionIdentifier).isEmpty)
        #expect(
            Self.settle(&machine) == [
                .readFilterAcceptListSize, .clearFilterAcceptList, .addToFilterAcceptList(Self.a),
                .addToFilterAcceptList(Self.b), .createConnection(peer: nil, parameters: Self.parameters),
            ])
        #expect(machine.filterAcceptList == [Self.a, Self.b])
    }

    @Test("A connection settles only its device's attempt; the initiator restarts for the rest")
    func connectionSettlesOne() {
        var machine = PendingConnections()
        for (id, address) in [(0, Self.a), (1, Self.b), (2, Self.c)] { machine.add(Self.attempt(UInt64(id), address)) }
        _ = Self.settle(&machine)
        #expect(machine.connected(to: LEAddress(Self.b.address, type: .public)) == [1])
        #expect(machine.attempts.map(\.id) == [0, 2])
        #expect(
            Self.settle(&machine) == [
                .removeFromFilterAcceptList(Self.b), .createConnection(peer: nil, parameters: Self.parameters),
            ])
    }

    @Test("Removing a pending attempt (cancel, timeout) restarts the initiator without it; the last one stops it")
    func removal() {
        var machine = PendingConnections()
        machine.add(Self.attempt(0, Self.a))
        machine.add(Self.attempt(1, Self.b))
        _ = Self.settle(&machine)
        machine.remove(0)
        #expect(Self.settle(&machine) == [.cancelCreateConnection])
        _ = machine.initiationEnded(status: .unknownConnectionIdentifier)
        #expect(Self.settle(&machine) == [.createConnection(peer: Self.b, parameters: Self.parameters)])
        machine.remove(1)
        #expect(Self.settle(&machine) == [.cancelCreateConnection])
        _ = machine.initiationEnded(status: .unknownConnectionIdentifier)
        #expect(machine.nextAction() == nil)
        #expect(machine.initiator == .idle)
    }

    @Test("A controller that refuses the list's commands is served one device at a time, oldest first")
    func listRefused() {
        var machine = PendingConnections()
        machine.add(Self.attempt(0, Self.a))
        machine.add(Self.attempt(1, Self.b))
        #expect(machine.nextAction() == .readFilterAcceptListSize)
        #expect(machine.failed(.readFilterAcceptListSize, status: .unknownHCICommand).isEmpty)
        #expect(Self.settle(&machine) == [.createConnection(peer: Self.a, parameters: Self.parameters)])
    }

    @Test("A list smaller than the pending set holds the oldest devices")
    func smallList() {
        var machine = PendingConnections()
        for (id, address) in [(0, Self.a), (1, Self.b), (2, Self.c)] { machine.add(Self.attempt(UInt64(id), address)) }
        let actions = Self.settle(&machine, listSize: 2)
        #expect(actions.contains(.addToFilterAcceptList(Self.a)) && actions.contains(.addToFilterAcceptList(Self.b)))
        #expect(!actions.contains(.addToFilterAcceptList(Self.c)))
    }

    @Test("A direct initiation that fails on its own fails its attempt; a refused create fails its targets")
    func failures() {
        var machine = PendingConnections()
        machine.add(Self.attempt(0, Self.a))
        _ = Self.settle(&machine)
        #expect(
            machine.initiationEnded(status: .connectionFailedToBeEstablished)
                == [.init(id: 0, status: .connectionFailedToBeEstablished)])
        #expect(machine.isEmpty)
        machine.add(Self.attempt(1, Self.b))
        let create = machine.nextAction()
        #expect(create == .createConnection(peer: Self.b, parameters: Self.parameters))
        #expect(
            machine.failed(create!, status: .connectionLimitExceeded) == [
                .init(id: 1, status: .connectionLimitExceeded)
            ])
        #expect(machine.nextAction() == nil)
    }

    @Test("Losing the controller ends every attempt and forgets the list")
    func controllerLost() {
        var machine = PendingConnections()
        machine.add(Self.attempt(0, Self.a))
        machine.add(Self.attempt(1, Self.b))
        _ = Self.settle(&machine)
        #expect(machine.controllerLost() == [0, 1])
        #expect(machine.initiator == .idle && machine.filterAcceptList == nil)
    }
}
