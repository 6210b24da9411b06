import BLEHost

/// The controller's capabilities (Core Bluetooth's `CBCentralManager.supports(_:)`).
extension CentralManager {
    /// Whether this manager's controller supports `feature` (its LE features, read when the
    /// host started: false before the first `powerOn()`).
    public func supports(_ feature: ControllerFeature) -> Bool {
        stack.supports(feature)
    }
}
