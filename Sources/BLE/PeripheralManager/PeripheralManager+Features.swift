import BLEHost

/// The controller's capabilities (Core Bluetooth's `supports(_:)` on the central manager, here
/// on both roles: a peripheral decides by it whether to advertise extended).
extension PeripheralManager {
    /// Whether this manager's controller supports `feature` (its LE features, read when the
    /// host started: false before the first `powerOn()`).
    public func supports(_ feature: ControllerFeature) -> Bool {
        stack.supports(feature)
    }
}
