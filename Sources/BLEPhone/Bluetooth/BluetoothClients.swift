import BLE
import BLELocking
import Foundation

/// Where a delivery for one of an app's managers lands: the manager object of the app's
/// current instance. A preserved manager outlives the instance that made it, so a delivery
/// the phone holds over a relaunch reaches the new instance's manager (attached when the app
/// makes it again with the same restore identifier).
package final class ManagerMailbox<Manager: AnyObject & Sendable>: Sendable {
    private let current = Locked<Manager?>(nil)

    package init() {}

    package func attach(_ manager: Manager?) {
        current.withLock { $0 = manager }
    }

    package var manager: Manager? { current.withLock { $0 } }

    /// Runs `deliver` with the attached manager; false when none is attached.
    package func deliver(_ deliver: (Manager) -> Void) -> Bool {
        guard let manager else { return false }
        deliver(manager)
        return true
    }
}

/// An app's hold on a peripheral: its connect is pending, or completed.
package struct HeldPeripheral: Sendable, Hashable {
    package enum State: Sendable, Hashable {
        case connecting
        case connected
    }

    package var state: State
    package var options: PhoneConnectOptions
}

/// A characteristic of a peripheral, by its value handle (what notifications name).
package struct CharacteristicKey: Sendable, Hashable {
    package var peripheral: UUID
    package var valueHandle: UInt16
}

/// What the system keeps for one of an app's central managers (its links and subscriptions
/// are in the system's `LinkTable`).
package struct CentralClient: Sendable {
    package let id: ManagerID
    package let mailbox = ManagerMailbox<PhoneCentralManager>()
    /// The launch whose instance made the manager; nil once that instance is gone (a preserved
    /// manager waiting to be restored).
    package var launch: Int?
    package var scan: AppScan?

    package init(id: ManagerID, launch: Int?) {
        self.id = id
        self.launch = launch
    }
}

/// What the system keeps for one of an app's peripheral managers.
package struct PeripheralClient: Sendable {
    package let id: ManagerID
    package let mailbox = ManagerMailbox<PhonePeripheralManager>()
    package var launch: Int?
    /// The app's services as published, by the first handle of their range.
    package var services: [UInt16: Service] = [:]
    package var advertisement: PhoneAdvertisement?
    /// The centrals subscribed to the app's characteristics.
    package var subscribers: [CharacteristicKey: Central] = [:]
    /// `updateValue` returned false: `.readyToUpdateSubscribers` is owed.
    package var owesReadiness = false

    package init(id: ManagerID, launch: Int?) {
        self.id = id
        self.launch = launch
    }

    /// Whether the characteristic (by value handle) is one of the app's.
    package func owns(_ handle: UInt16) -> Bool {
        services.values.contains { $0.handleRange.contains(handle) }
    }
}

/// Everything the system keeps for one app.
package struct AppBluetooth: Sendable {
    package var declaration: AppDeclaration
    package var centrals: [ManagerID: CentralClient] = [:]
    package var peripherals: [ManagerID: PeripheralClient] = [:]
    package var nextSerial = 1

    package init(declaration: AppDeclaration) {
        self.declaration = declaration
    }

    package var isEmpty: Bool { centrals.isEmpty && peripherals.isEmpty }
}

/// An answer to one of an app's calls, handed over when the phone delivers it.
final class AnswerSlot<Value: Sendable>: Sendable {
    private enum State {
        case empty
        case waiting(UnsafeContinuation<Value, Never>)
        case filled(Value)
        case taken
    }

    private let state = Locked(State.empty)

    func fulfil(_ value: Value) {
        let waiter = state.withLock { state -> UnsafeContinuation<Value, Never>? in
            switch state {
            case .empty:
                state = .filled(value)
                return nil
            case .waiting(let continuation):
                state = .taken
                return continuation
            case .filled, .taken:
                return nil
            }
        }
        waiter?.resume(returning: value)
    }

    /// Waits for the answer. Unsafe, not checked: when the app is killed before the phone
    /// delivers the answer, nothing ever resumes it — the instance's memory is gone, as an
    /// iOS app's is.
    func value() async -> Value {
        await withUnsafeContinuation { continuation in
            let ready = state.withLock { state -> Value? in
                switch state {
                case .filled(let value):
                    state = .taken
                    return value
                case .empty:
                    state = .waiting(continuation)
                    return nil
                case .waiting, .taken:
                    return nil
                }
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }
}
