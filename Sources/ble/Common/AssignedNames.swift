import BLE

/// Names of well-known 16-bit UUIDs (Assigned Numbers §3.4 services, §3.8 characteristics,
/// §3.7 descriptors), for readable output. Only a common subset; others print as the UUID.
enum AssignedNames {
    static func name(of uuid: BluetoothUUID) -> String? {
        guard let short = uuid.uuid16 else { return nil }
        return names[short]
    }

    private static let names: [UInt16: String] = [
        // Services
        0x1800: "Generic Access", 0x1801: "Generic Attribute", 0x1802: "Immediate Alert", 0x1803: "Link Loss",
        0x1804: "Tx Power", 0x1805: "Current Time", 0x1809: "Health Thermometer", 0x180A: "Device Information",
        0x180D: "Heart Rate", 0x180F: "Battery", 0x1810: "Blood Pressure", 0x1812: "Human Interface Device",
        0x1816: "Cycling Speed and Cadence", 0x181A: "Environmental Sensing", 0x181C: "User Data",
        // Characteristics
        0x2A00: "Device Name", 0x2A01: "Appearance", 0x2A04: "Peripheral Preferred Connection Parameters",
        0x2A05: "Service Changed", 0x2A19: "Battery Level", 0x2A1C: "Temperature Measurement",
        0x2A1D: "Temperature Type", 0x2A1E: "Intermediate Temperature", 0x2A21: "Measurement Interval",
        0x2A23: "System ID", 0x2A24: "Model Number String", 0x2A25: "Serial Number String",
        0x2A26: "Firmware Revision String", 0x2A27: "Hardware Revision String",
        0x2A28: "Software Revision String", 0x2A29: "Manufacturer Name String", 0x2A37: "Heart Rate Measurement",
        0x2A38: "Body Sensor Location", 0x2A39: "Heart Rate Control Point", 0x2A6E: "Temperature",
        0x2A6F: "Humidity", 0x2B29: "Client Supported Features", 0x2B2A: "Database Hash",
        0x2B3A: "Server Supported Features",
        // Descriptors
        0x2900: "Characteristic Extended Properties", 0x2901: "Characteristic User Description",
        0x2902: "Client Characteristic Configuration", 0x2903: "Server Characteristic Configuration",
        0x2904: "Characteristic Presentation Format", 0x2905: "Characteristic Aggregate Format",
    ]
}

extension BluetoothUUID {
    /// "180D Heart Rate", or the UUID alone when it has no well-known name.
    var labelled: String {
        AssignedNames.name(of: self).map { "\(self) \($0)" } ?? description
    }
}
