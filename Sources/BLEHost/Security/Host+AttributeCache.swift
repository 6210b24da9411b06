import BLEWire

// The client's attribute cache across connections with a bonded server (Core 5.4 Vol 3 Part G
// §2.5.2: a client may keep the attribute handles of a bonded server and use them in later
// connections; §7.3: the Database Hash tells whether they still hold), kept in the bond.
extension Host {
    /// What the bond with the peer of `handle` keeps of its database: nil when the peer is not
    /// bonded; a bond without a cache gives an empty one.
    package func bondedServerDatabase(on handle: ConnectionHandle) -> (cache: GATTDatabaseCache, hash: [UInt8]?)? {
        guard let link = encryption[handle], let bond = bond(forPeer: link.peer) else { return nil }
        return (bond.gattDatabase ?? GATTDatabaseCache(), bond.gattDatabase == nil ? nil : bond.gattDatabaseHash)
    }

    /// Keeps what the client knows of the peer's database on `handle` with the Database Hash
    /// it read (nil when unknown since a Service Changed indication): saved in the peer's bond,
    /// and kept with the link for a bond made later on it.
    package func storeServerDatabase(_ cache: GATTDatabaseCache, hash: [UInt8]?, on handle: ConnectionHandle) {
        guard let link = encryption[handle] else { return }
        encryption[handle]?.clientDatabase = cache
        encryption[handle]?.clientDatabaseHash = hash
        guard var bond = bond(forPeer: link.peer), bond.gattDatabase != cache || bond.gattDatabaseHash != hash else {
            return
        }
        bond.gattDatabase = cache
        bond.gattDatabaseHash = hash
        saveBond(bond)
    }
}
