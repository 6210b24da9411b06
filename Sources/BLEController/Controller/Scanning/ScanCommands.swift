import BLESimulation
import BLEWire

// Scanning commands: legacy (Core 5.4 Vol 4 Part E §7.8.10, §7.8.11) and extended (§7.8.64,
// §7.8.65).

extension VirtualController {
    func stopScanning() {
        scanner?.cancel(on: air.queue)
        scanner = nil
    }

    /// HCI_LE_Set_Scan_Parameters (§7.8.10): disallowed while scanning.
    func leSetScanParameters(_ command: HCI.LESetScanParameters) -> CommandResult<HCI.StatusReturnParameters> {
        if scanner != nil { return .failed(.commandDisallowed) }
        if case .other = command.leScanType { return .failed(.invalidHCICommandParameters) }
        if case .other = command.ownAddressType { return .failed(.invalidHCICommandParameters) }
        if case .other = command.scanningFilterPolicy { return .failed(.invalidHCICommandParameters) }
        let range: ClosedRange<UInt16> = 0x0004...0x4000
        guard range.contains(command.leScanInterval), range.contains(command.leScanWindow),
            command.leScanWindow <= command.leScanInterval
        else { return .failed(.invalidHCICommandParameters) }
        legacyScanParameters = command
        return .complete(.init())
    }

    /// HCI_LE_Set_Scan_Enable (§7.8.11). Enabling while enabled only changes Filter_Duplicates.
    func leSetScanEnable(_ command: HCI.LESetScanEnable) -> CommandResult<HCI.StatusReturnParameters> {
        guard command.leScanEnable else {
            stopScanning()
            return .complete(.init())
        }
        if let scanner {
            scanner.filterDuplicates = command.filterDuplicates ? .enabled : .disabled
            return .complete(.init())
        }
        let p = legacyScanParameters
        guard let own = ownAddress(p.ownAddressType, random: randomAddress) else {
            return .failed(.invalidHCICommandParameters)
        }
        let schedule = ScanSchedule(interval: p.leScanInterval, window: p.leScanWindow, start: now)
        scanner = ScanRun(
            format: .legacy, ownAddressType: p.ownAddressType, ownAddress: own, filterPolicy: p.scanningFilterPolicy,
            phys: [.init(schedule: schedule, active: p.leScanType == .active)],
            filterDuplicates: command.filterDuplicates ? .enabled : .disabled)
        return .complete(.init())
    }

    /// HCI_LE_Set_Extended_Scan_Parameters (§7.8.64): disallowed while scanning.
    func leSetExtendedScanParameters(
        _ command: HCI.LESetExtendedScanParameters
    ) -> CommandResult<HCI.StatusReturnParameters> {
        if scanner != nil { return .failed(.commandDisallowed) }
        if case .other = command.ownAddressType { return .failed(.invalidHCICommandParameters) }
        if case .other = command.scanningFilterPolicy { return .failed(.invalidHCICommandParameters) }
        let entries = [command.le1M, command.leCoded].compactMap { $0 }
        guard !entries.isEmpty else { return .failed(.invalidHCICommandParameters) }
        for entry in entries {
            if case .other = entry.scanType { return .failed(.invalidHCICommandParameters) }
            guard entry.scanInterval >= 4, entry.scanWindow >= 4, entry.scanWindow <= entry.scanInterval else {
                return .failed(.invalidHCICommandParameters)
            }
        }
        if command.leCoded != nil && !configuration.leFeatures.contains(.leCodedPHY) {
            return .failed(.unsupportedFeatureOrParameterValue)
        }
        extendedScanParameters = command
        return .complete(.init())
    }

    /// HCI_LE_Set_Extended_Scan_Enable (§7.8.65): scans for Duration, then (with a Period)
    /// again every Period; with no Period, LE Scan Timeout ends it.
    func leSetExtendedScanEnable(_ command: HCI.LESetExtendedScanEnable) -> CommandResult<HCI.StatusReturnParameters> {
        guard command.enable else {
            stopScanning()
            return .complete(.init())
        }
        if case .other = command.filterDuplicates { return .failed(.invalidHCICommandParameters) }
        if command.period != 0 {
            // Duration (10 ms units) must be shorter than Period (1.28 s units).
            guard command.duration != 0, Int(command.duration) * 10 < Int(command.period) * 1280 else {
                return .failed(.invalidHCICommandParameters)
            }
        }
        let p = extendedScanParameters ?? HCI.LESetExtendedScanParameters(le1M: .init())
        guard let own = ownAddress(p.ownAddressType, random: randomAddress) else {
            return .failed(.invalidHCICommandParameters)
        }
        stopScanning()
        var phys: [ScanRun.PHYScan] = []
        if let entry = p.le1M {
            phys.append(
                .init(
                    schedule: ScanSchedule(interval: entry.scanInterval, window: entry.scanWindow, start: now),
                    active: entry.scanType == .active))
        }
        if let entry = p.leCoded {
            phys.append(
                .init(
                    schedule: ScanSchedule(
                        interval: entry.scanInterval, window: entry.scanWindow, start: now, coded: true),
                    active: entry.scanType == .active))
        }
        let scan = ScanRun(
            format: .extended, ownAddressType: p.ownAddressType, ownAddress: own, filterPolicy: p.scanningFilterPolicy,
            phys: phys,
            filterDuplicates: command.filterDuplicates)
        scanner = scan
        if command.duration != 0 {
            scheduleScanDuration(
                scan, duration: .milliseconds(Int64(command.duration) * 10),
                period: command.period == 0 ? nil : .milliseconds(Int64(command.period) * 1280), periodStart: now)
        }
        return .complete(.init())
    }

    private func scheduleScanDuration(
        _ scan: ScanRun, duration: Duration, period: Duration?, periodStart: VirtualInstant
    ) {
        scan.durationToken = air.queue.schedule(at: periodStart.advanced(by: duration)) { [weak self, weak scan] in
            guard let self, let scan, self.scanner === scan else { return }
            guard let period else {
                self.stopScanning()
                self.send(le: .scanTimeout)
                return
            }
            scan.active = false
            let nextStart = periodStart.advanced(by: period)
            scan.periodToken = self.air.queue.schedule(at: nextStart) { [weak self, weak scan] in
                guard let self, let scan, self.scanner === scan else { return }
                scan.active = true
                if scan.filterDuplicates == .enabledResetEachPeriod { scan.reported = [] }
                self.scheduleScanDuration(scan, duration: duration, period: period, periodStart: nextStart)
            }
        }
    }
}
