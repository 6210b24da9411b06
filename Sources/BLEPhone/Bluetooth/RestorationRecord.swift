// CONTRACT PLACEHOLDER (owned by the Bluetooth helper, who fills in what each manager keeps).

/// What the system preserves for an app's managers with restore identifiers (Core Bluetooth
/// Programming Guide, "Performing Long-Term Actions in the Background"): per central manager
/// the scan's services and options, the connected and pending peripherals and the
/// subscriptions; per peripheral manager its services, advertising and subscribed centrals.
///
/// Codable: a daemon keeps it in a file between processes.
public struct RestorationRecord: Sendable, Hashable, Codable {
    public init() {}
}
