// `import BLE` is all an application needs: the wire values it meets in the API (UUIDs,
// addresses, status codes, advertising data), the GATT definitions it publishes, and the virtual
// radio it runs on.
@_exported import BLEController
@_exported import BLEHost
@_exported import BLEWire
