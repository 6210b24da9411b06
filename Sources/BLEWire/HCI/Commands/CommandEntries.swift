extension HCICommandTable {
    /// The rows of the command table, grouped as in Core 5.4 Vol 4 Part E §7.
    static let commandEntries: [Entry] = [
        // Controller & Baseband (§7.3)
        Entry(HCI.Reset.self),
    ]
}
