import BLESimulation
import BLEWire
import Testing

@testable import BLEController

/// Building blocks shared by the controller tests: advertising, scanning and connecting through
/// HCI only.
enum Scenario {
    /// Flags (LE General Discoverable, BR/EDR not supported) and the complete local name "Test".
    static let advertisingData: [UInt8] = [0x02, 0x01, 0x06, 0x05, 0x09, 0x54, 0x65, 0x73, 0x74]
    /// A 16-bit Service UUID list and a manufacturer-specific field: what a scan response carries.
    static let scanResponseData: [UInt8] = [0x03, 0x03, 0x0F, 0x18, 0x05, 0xFF, 0xFF, 0xFF, 0x01, 0x02]

    /// 30 ms interval, no latency, 2 s supervision timeout.
    static let parameters = HCI.ConnectionParameters(
        connectionIntervalMin: 24, connectionIntervalMax: 24, maxLatency: 0, supervisionTimeout: 200)

    static func advertise(
        _ host: TestHost, type: HCI.AdvertisingType = .connectableUndirected, interval: UInt16 = 0x20,
        data: [UInt8] = advertisingData, scanResponse: [UInt8] = scanResponseData,
        ownAddressType: HCI.OwnAddressType = .public, peer: LEAddress = LEAddress(.zero, type: .public),
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        host.expectSuccess(
            HCI.LESetAdvertisingParameters(
                advertisingIntervalMin: interval, advertisingIntervalMax: interval, advertisingType: type,
                ownAddressType: ownAddressType, peerAddressType: peer.type, peerAddress: peer.address),
            sourceLocation: sourceLocation)
        host.expectSuccess(HCI.LESetAdvertisingData(advertisingData: data), sourceLocation: sourceLocation)
        host.expectSuccess(HCI.LESetScanResponseData(scanResponseData: scanResponse), sourceLocation: sourceLocation)
        host.expectSuccess(HCI.LESetAdvertisingEnable(advertisingEnable: true), sourceLocation: sourceLocation)
    }

    static func scan(
        _ host: TestHost, active: Bool = false, filterDuplicates: Bool = false,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        host.expectSuccess(
            HCI.LESetScanParameters(leScanType: active ? .active : .passive, leScanInterval: 0x10, leScanWindow: 0x10),
            sourceLocation: sourceLocation)
        host.expectSuccess(
            HCI.LESetScanEnable(leScanEnable: true, filterDuplicates: filterDuplicates), sourceLocation: sourceLocation)
    }

    static func createConnection(
        _ central: TestHost, to peripheral: TestHost, parameters: HCI.ConnectionParameters = parameters
    ) -> HCIStatus {
        central.status(
            HCI.LECreateConnection(
                leScanInterval: 0x10, leScanWindow: 0x10, peerAddressType: .public,
                peerAddress: peripheral.controller.publicAddress, connectionParameters: parameters))
    }

    /// Advertises on `peripheral`, connects from `central`, and returns both handles once both
    /// hosts have their LE Connection Complete.
    static func connect(
        _ central: TestHost, _ peripheral: TestHost, parameters: HCI.ConnectionParameters = parameters,
        sourceLocation: SourceLocation = #_sourceLocation
    ) -> (central: ConnectionHandle, peripheral: ConnectionHandle)? {
        advertise(peripheral, sourceLocation: sourceLocation)
        let centralMark = central.events.count
        let peripheralMark = peripheral.events.count
        let status = createConnection(central, to: peripheral, parameters: parameters)
        #expect(status == .success, sourceLocation: sourceLocation)
        let centralComplete = central.waitForLE(after: centralMark) { event -> LEMetaEvent.ConnectionComplete? in
            if case .connectionComplete(let c) = event { c } else { nil }
        }
        let peripheralComplete = peripheral.waitForLE(after: peripheralMark) {
            event -> LEMetaEvent.ConnectionComplete? in
            if case .connectionComplete(let c) = event { c } else { nil }
        }
        guard let centralComplete, let peripheralComplete else {
            Issue.record("no connection", sourceLocation: sourceLocation)
            return nil
        }
        return (centralComplete.connectionHandle, peripheralComplete.connectionHandle)
    }
}

extension TestHost {
    /// The Disconnection Complete of `handle`, waiting for it.
    func waitForDisconnection(_ handle: ConnectionHandle, limit: Duration = .seconds(40)) -> (
        time: VirtualInstant, event: HCIEvent.DisconnectionComplete
    )? {
        let found = waitFor(after: 0, limit: limit) { event -> HCIEvent.DisconnectionComplete? in
            if case .disconnectionComplete(let d) = event, d.connectionHandle == handle { d } else { nil }
        }
        guard found != nil else { return nil }
        return events.lazy.compactMap { entry -> (time: VirtualInstant, event: HCIEvent.DisconnectionComplete)? in
            if case .disconnectionComplete(let d) = entry.event, d.connectionHandle == handle {
                (entry.time, d)
            } else {
                nil
            }
        }.first
    }
}
