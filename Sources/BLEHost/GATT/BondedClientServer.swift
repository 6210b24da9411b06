import BLEWire

/// An ATT server that keeps GATT state for bonded clients across connections: the host hands
/// it a bonded client's saved state and CSRK, and takes its state back to store in the bond
/// (Core 5.4 Vol 3 Part G §3.3.3.3; Part H §2.4.5). Calls come on the host's executor.
public protocol BondedClientServer: ATTServerHandler {
    /// The state to keep for the client of `connection` now.
    func bondedClientState(for connection: ConnectionHandle) -> GATTBondedClientState?
    /// Brings a bonded client's saved state back; returns a Service Changed indication to
    /// send when the client is change-unaware (Part G §2.5.2.1).
    func restoreBondedClient(_ bonded: GATTBondedClientState, for connection: ConnectionHandle) -> ATTPDU?
    /// The client's CSRK (Part H §3.6.6) and the last SignCounter accepted from it.
    func setSigningKey(_ csrk: SMPKey128, authenticated: Bool, lastCounter: UInt32?, for connection: ConnectionHandle)
    /// The last SignCounter accepted from the client.
    func lastSignCounter(for connection: ConnectionHandle) -> UInt32?
}
