/// Which role of Core Bluetooth a manager plays (which background mode wakes the app for it).
public enum ManagerRole: String, Sendable, Hashable, Codable {
    case central
    case peripheral

    /// The background mode that lets this role's events wake a suspended app.
    public var backgroundMode: BackgroundMode {
        switch self {
        case .central: .bluetoothCentral
        case .peripheral: .bluetoothPeripheral
        }
    }
}

/// One of an app's managers: its role and restore identifier (nil without state restoration),
/// and which of the app's managers it is.
public struct ManagerID: Sendable, Hashable, Codable, CustomStringConvertible {
    public var role: ManagerRole
    public var restoreIdentifier: String?
    /// The manager's number among those the app instance made (for managers without a restore
    /// identifier).
    public var serial: Int

    public init(role: ManagerRole, restoreIdentifier: String?, serial: Int) {
        self.role = role
        self.restoreIdentifier = restoreIdentifier
        self.serial = serial
    }

    public var description: String {
        "\(role) manager \(restoreIdentifier.map { "'\($0)'" } ?? "#\(serial)")"
    }

    /// The role and the number only: equal identifiers still hash alike, and the text of a
    /// restore identifier is not hashed at every lookup (the system service looks managers up
    /// for each notification). An app's managers rarely share a role and a number.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(role)
        hasher.combine(serial)
    }
}

/// A Bluetooth event the system service has for an app, offered to the phone, which decides
/// when the app sees it: now (the app runs), after a wake (a `bluetooth-*` mode), when the app
/// comes to the front (a foreground-only app), after a relaunch (state restoration), or never.
///
/// The typed event itself stays with the manager that made it: `deliver` hands it to the app's
/// manager stream, and the phone calls it exactly once, when the event's turn comes.
///
/// A reference, never changed once made: it is handed from the service through the phone to
/// the app's inbox or executor, and each copy of a value this size retained and released every
/// field (a notification a second, all day).
package final class AppBluetoothDelivery: Sendable {
    package let manager: ManagerID
    package let kind: BluetoothEventKind
    /// Readable and terminal-safe (names that came over the air are escaped by whoever builds it).
    package let summary: String
    /// Events with the same key may be coalesced (the latest kept) by a coalescing policy; nil
    /// never coalesces (connections, disconnections).
    package let coalescingKey: String?
    /// The text of the system alert this event raises when the app is not in front and the
    /// app asked for it (CBConnectPeripheralOptionNotifyOnConnectionKey and friends), or nil.
    package let alert: String?
    package let deliver: @Sendable () -> Void

    package init(
        manager: ManagerID, kind: BluetoothEventKind, summary: String, coalescingKey: String? = nil,
        alert: String? = nil, deliver: @escaping @Sendable () -> Void
    ) {
        self.manager = manager
        self.kind = kind
        self.summary = summary
        self.coalescingKey = coalescingKey
        self.alert = alert
        self.deliver = deliver
    }
}
