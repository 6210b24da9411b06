import Foundation

/// One of an app's managers, as the system's tables name it.
package struct ClientKey: Sendable, Hashable, Comparable, CustomStringConvertible {
    package var app: AppIdentifier
    package var manager: ManagerID

    package init(_ app: AppIdentifier, _ manager: ManagerID) {
        self.app = app
        self.manager = manager
    }

    package static func < (lhs: ClientKey, rhs: ClientKey) -> Bool {
        (lhs.app, lhs.manager.serial, lhs.manager.restoreIdentifier ?? "")
            < (rhs.app, rhs.manager.serial, rhs.manager.restoreIdentifier ?? "")
    }

    package var description: String { "\(app)'s \(manager)" }
}

/// Who holds which link, who waits for which connect and who is subscribed to what, for every
/// app's central managers: a value fed one input at a time (an app's call, an attempt's
/// outcome, a link lost, an app's death) that returns what the system must do. It does no I/O.
///
/// The model of bluetoothd sharing links between apps: a peripheral is held by every app
/// manager whose connect is pending or completed; the system makes one attempt for all who
/// wait (never timing out); an app's cancel ends only its own hold, and the link (or the
/// attempt) ends when the last holder leaves. A characteristic's Client Characteristic
/// Configuration is written by the first subscriber and cleared by the last. Of several apps
/// that asked for an alert (NotifyOn… options), only the most recently foregrounded gets it
/// (Core Bluetooth Programming Guide, "Core Bluetooth Background Processing for iOS Apps").
package struct LinkTable: Sendable {
    /// What the system does next.
    package enum Action: Sendable, Hashable {
        /// Start the system's connect to the peripheral (no timeout).
        case startAttempt(UUID)
        /// Nobody holds the peripheral any more: cancel its attempt or disconnect it.
        case endLink(UUID)
        /// Write the Client Characteristic Configuration (true: enable).
        case writeConfiguration(CharacteristicKey, Bool)
        /// Tell the manager its connect completed (`alert`: raise the NotifyOnConnection alert).
        case connected(ClientKey, UUID, alert: Bool)
        /// Tell the manager its connect failed.
        case failedToConnect(ClientKey, UUID)
        /// Tell the manager its peripheral disconnected (`cancelled`: its own cancel).
        case disconnected(ClientKey, UUID, alert: Bool, cancelled: Bool)
    }

    /// Holds by peripheral.
    package private(set) var holds: [UUID: [ClientKey: HeldPeripheral]] = [:]
    /// Subscribers by characteristic.
    package private(set) var subscriptions: [CharacteristicKey: Set<ClientKey>] = [:]
    /// Peripherals the system is connecting.
    package private(set) var attempting: Set<UUID> = []

    package init() {}

    // MARK: Reading

    package func hold(of peripheral: UUID, by client: ClientKey) -> HeldPeripheral? {
        holds[peripheral]?[client]
    }

    /// The holders of `peripheral`, in a stable order.
    package func holders(of peripheral: UUID) -> [ClientKey] {
        (holds[peripheral] ?? [:]).keys.sorted()
    }

    package func held(by client: ClientKey) -> [UUID: HeldPeripheral] {
        holds.compactMapValues { $0[client] }
    }

    package func subscribers(of key: CharacteristicKey) -> [ClientKey] {
        guard let subscribers = subscriptions[key] else { return [] }
        // Asked at every notification, and usually one app subscribes: no sort for one.
        if subscribers.count == 1, let only = subscribers.first { return [only] }
        return subscribers.sorted()
    }

    package func subscriptions(of client: ClientKey) -> [CharacteristicKey] {
        subscriptions.filter { $0.value.contains(client) }.keys.sorted {
            ($0.peripheral.uuidString, $0.valueHandle) < ($1.peripheral.uuidString, $1.valueHandle)
        }
    }

    // MARK: Inputs

    /// An app's connect; `linkUp`: the system's link to the peripheral is up (another app's).
    package mutating func connect(
        _ client: ClientKey, to peripheral: UUID, options: PhoneConnectOptions, linkUp: Bool
    ) -> [Action] {
        if holds[peripheral]?[client] != nil {
            // Asked again: the new options count; the outcome is known or on its way.
            holds[peripheral]?[client]?.options = options
            return []
        }
        if linkUp, !attempting.contains(peripheral) {
            holds[peripheral, default: [:]][client] = HeldPeripheral(state: .connected, options: options)
            return [.connected(client, peripheral, alert: options.notifyOnConnection)]
        }
        holds[peripheral, default: [:]][client] = HeldPeripheral(state: .connecting, options: options)
        guard attempting.insert(peripheral).inserted else { return [] }
        return [.startAttempt(peripheral)]
    }

    /// An app cancels its connect or its hold.
    package mutating func cancel(_ client: ClientKey, _ peripheral: UUID) -> [Action] {
        guard holds[peripheral]?.removeValue(forKey: client) != nil else { return [] }
        return release(client, peripheral) + [.disconnected(client, peripheral, alert: false, cancelled: true)]
    }

    /// The system's attempt connected; `rank` orders apps by how recently they came to the front.
    package mutating func attemptSucceeded(_ peripheral: UUID, rank: [AppIdentifier: Int]) -> [Action] {
        attempting.remove(peripheral)
        let waiting = holders(of: peripheral).filter { holds[peripheral]?[$0]?.state == .connecting }
        guard !waiting.isEmpty else {
            return holders(of: peripheral).isEmpty ? [.endLink(peripheral)] : []
        }
        for client in waiting { holds[peripheral]?[client]?.state = .connected }
        let alerted = alertReceiver(waiting, peripheral, rank) { $0.notifyOnConnection }
        return waiting.map { .connected($0, peripheral, alert: $0 == alerted) }
    }

    /// The system's attempt failed: every app waiting is told.
    package mutating func attemptFailed(_ peripheral: UUID) -> [Action] {
        attempting.remove(peripheral)
        let waiting = holders(of: peripheral).filter { holds[peripheral]?[$0]?.state == .connecting }
        for client in waiting { holds[peripheral]?[client] = nil }
        if holds[peripheral]?.isEmpty == true { holds[peripheral] = nil }
        return waiting.map { .failedToConnect($0, peripheral) }
    }

    /// The link went down: its holders are told and lose their subscriptions to it.
    package mutating func linkLost(_ peripheral: UUID, rank: [AppIdentifier: Int]) -> [Action] {
        let receivers = holders(of: peripheral).filter { holds[peripheral]?[$0]?.state == .connected }
        let alerted = alertReceiver(receivers, peripheral, rank) { $0.notifyOnDisconnection }
        for client in receivers { holds[peripheral]?[client] = nil }
        if holds[peripheral]?.isEmpty == true { holds[peripheral] = nil }
        for key in subscriptions.keys where key.peripheral == peripheral { subscriptions[key] = nil }
        return receivers.map { .disconnected($0, peripheral, alert: $0 == alerted, cancelled: false) }
    }

    /// The app manager is gone (its app died without preserving it): everything it held ends.
    package mutating func clientEnded(_ client: ClientKey) -> [Action] {
        var actions: [Action] = []
        for peripheral in held(by: client).keys.sorted(by: { $0.uuidString < $1.uuidString }) {
            holds[peripheral]?[client] = nil
            actions += release(client, peripheral)
        }
        return actions
    }

    /// The app subscribes (true) or unsubscribes; true when the configuration must be written
    /// (first subscriber, or last to leave).
    package mutating func setNotify(_ enabled: Bool, _ client: ClientKey, _ key: CharacteristicKey) -> Bool {
        let others = subscribers(of: key).filter { $0 != client }
        if enabled {
            let inserted = subscriptions[key, default: []].insert(client).inserted
            return inserted && others.isEmpty
        }
        guard subscriptions[key]?.remove(client) != nil else { return false }
        if subscriptions[key]?.isEmpty == true { subscriptions[key] = nil }
        return others.isEmpty
    }

    /// Puts back a hold (a record loaded from a file).
    package mutating func restore(_ client: ClientKey, _ peripheral: UUID, options: PhoneConnectOptions) -> [Action] {
        holds[peripheral, default: [:]][client] = HeldPeripheral(state: .connecting, options: options)
        guard attempting.insert(peripheral).inserted else { return [] }
        return [.startAttempt(peripheral)]
    }

    /// The radio went off: attempts end (their outcome comes as failures), links go down.
    package mutating func attemptAbandoned(_ peripheral: UUID) {
        attempting.remove(peripheral)
    }

    // MARK: Helpers

    /// What `client`'s leaving `peripheral` (its hold already gone) ends: its subscriptions
    /// to it — the configuration cleared where it was the last — or, when nobody else holds
    /// it, the link or the attempt.
    private mutating func release(_ client: ClientKey, _ peripheral: UUID) -> [Action] {
        var actions: [Action] = []
        let linkStays = !(holds[peripheral]?.isEmpty ?? true)
        for key in subscriptions(of: client) where key.peripheral == peripheral {
            subscriptions[key]?.remove(client)
            if subscriptions[key]?.isEmpty == true {
                subscriptions[key] = nil
                if linkStays { actions.append(.writeConfiguration(key, false)) }
            }
        }
        if !linkStays {
            holds[peripheral] = nil
            attempting.remove(peripheral)
            actions.append(.endLink(peripheral))
        }
        return actions
    }

    /// Which of `receivers` gets the alert an option asks for: of those that asked, the most
    /// recently foregrounded.
    package func alertReceiver(
        _ receivers: [ClientKey], _ peripheral: UUID, _ rank: [AppIdentifier: Int],
        _ wants: (PhoneConnectOptions) -> Bool
    ) -> ClientKey? {
        // Runs for every notification: one lookup of the peripheral, and ranks looked up only
        // for the clients that asked (usually none).
        guard let held = holds[peripheral] else { return nil }
        var chosen: (client: ClientKey, rank: Int)?
        for client in receivers {
            guard let hold = held[client], wants(hold.options) else { continue }
            let clientRank = rank[client.app] ?? 0
            // The most recently foregrounded; between equals, the first in key order.
            if let current = chosen, (clientRank, current.client) <= (current.rank, client) { continue }
            chosen = (client, clientRank)
        }
        return chosen?.client
    }
}
