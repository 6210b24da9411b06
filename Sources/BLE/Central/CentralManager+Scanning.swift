import BLEHost
import BLEWire
import Logging

/// A scan in progress: its session and the stream its discoveries go to.
struct ActiveScan {
    let id: UInt64
    var session: ScanSession
    let continuation: EventStream<Discovery>.Continuation
}

/// Scanning (Core 5.4 Vol 3 Part C §9.2 discovery; Vol 4 Part E §7.8.10–§7.8.11), Core
/// Bluetooth's `scanForPeripherals(withServices:options:)` and `stopScan()`.
extension CentralManager {
    /// LE_Scan_Interval and LE_Scan_Window, 0.625 ms units: 60 ms and 30 ms.
    static let scanInterval: UInt16 = 0x0060
    static let scanWindow: UInt16 = 0x0030

    /// Scans for advertising peripherals; those advertising one of `serviceUUIDs` (all when nil
    /// or empty) are reported on the returned stream. A new scan replaces the one in progress
    /// (its stream ends); `stopScan()`, powering off or abandoning the stream ends the scan.
    public func scanForPeripherals(
        withServices serviceUUIDs: [BluetoothUUID]? = nil, options: ScanOptions = ScanOptions()
    ) async throws(BLEError) -> EventStream<Discovery> {
        try checkPoweredOn()
        scan?.continuation.finish()
        let id = nextScanID
        nextScanID += 1
        let (stream, continuation) = EventStream.makeStream(of: Discovery.self)
        scan = ActiveScan(
            id: id, session: ScanSession(services: serviceUUIDs, options: options), continuation: continuation)
        let stack = self.stack
        continuation.onTermination { [weak self] termination in
            guard case .cancelled = termination, let manager = self else { return }
            stack.spawn { await manager.scanAbandoned(id) }
        }
        do {
            // Scan parameters cannot change while scanning (Vol 4 Part E §7.8.10).
            if controllerScanning {
                controllerScanning = false
                try await sendScanEnable(false)
            }
            try await sendScanParameters(active: options.active, interval: Self.scanInterval, window: Self.scanWindow)
            // Duplicates are filtered here, not by the controller, so that scan responses and
            // service filters see every report.
            try await sendScanEnable(true)
            controllerScanning = true
        } catch {
            if scan?.id == id { scan = nil }
            continuation.finish()
            throw .host(error)
        }
        return stream
    }

    /// Stops the scan; its stream ends once the controller has stopped scanning (LE Set Scan
    /// Enable, Core 5.4 Vol 4 Part E §7.8.11, completed), so that whoever waits for the end of
    /// the stream — then closes the manager, or hands the controller to another host — never
    /// leaves a controller scanning.
    public func stopScan() async {
        let active = scan
        scan = nil
        if controllerScanning {
            controllerScanning = false
            _ = try? await sendScanEnable(false)
        }
        active?.continuation.finish()
    }

    /// Whether a scan is in progress.
    public var isScanning: Bool { scan != nil }

    /// The scan's listener went away.
    private func scanAbandoned(_ id: UInt64) async {
        guard scan?.id == id else { return }
        await stopScan()
    }

    /// An advertising report from the controller (Vol 4 Part E §7.7.65.2).
    func received(_ report: LEMetaEvent.AdvertisingReport.Report) async {
        await deliver { $0.receive(report) }
    }

    /// An extended advertising report (Vol 4 Part E §7.7.65.13), which some controllers send
    /// to a legacy scan too.
    func received(_ report: LEMetaEvent.ExtendedAdvertisingReport.Report) async {
        await deliver { $0.receive(report) }
    }

    /// Feeds one report to the scan session and reports what it found.
    private func deliver(_ receive: (inout ScanSession) -> [ScanSession.Found]) async {
        guard var active = scan else { return }
        let found = receive(&active.session)
        if let (address, reason) = active.session.undecodable {
            active.session.undecodable = nil
            stack.host.logger.notice("dropped an advertising report from \(address): data does not decode: \(reason)")
        }
        scan?.session = active.session
        for item in found {
            let peripheral = peripheral(at: item.address, name: item.advertisement.localName)
            if let name = item.advertisement.localName { await peripheral.setName(name) }
            guard scan?.id == active.id else { return }
            active.continuation.yield(
                Discovery(peripheral: peripheral, advertisementData: item.advertisement, rssi: Int(item.rssi)))
        }
    }
}
