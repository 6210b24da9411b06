import BLEWire

/// A bonded client's state brought back into a connection already served (Core 5.4 Vol 3
/// Part G §3.3.3.3: Client Characteristic Configurations persist across connections for bonded
/// devices; §7.2 Client Supported Features; §2.5.2.1 change awareness).
extension GATTServer {
    /// What restoring a bonded client's state gives: the subscriptions it brings back (to tell
    /// the application, whose subscriber lists must hold them) and, when it is change-unaware
    /// and has Service Changed indications on, the indication to send.
    public struct BondedClientRestoration: Hashable, Sendable {
        public var subscriptions: [GATTSubscription]
        public var serviceChanged: ATTPDU?
    }

    /// Merges `bonded` into the connection's state, for a client found to be a bonded peer
    /// after its link came up (when its link is encrypted with the bond's key). What the client
    /// wrote in this connection wins over the saved state; saved configurations are kept only
    /// where the handle is still a Client Characteristic Configuration whose characteristic
    /// allows the bits. Change awareness and the last SignCounter come from the saved state
    /// unless this connection already moved them on.
    public mutating func restoreBondedClient(_ bonded: GATTBondedClientState, for id: GATTConnectionID)
        -> BondedClientRestoration
    {
        let index = connectionIndex(id)
        var subscriptions: [GATTSubscription] = []
        for (handle, configuration) in bonded.clientConfigurations.sorted(by: { $0.key < $1.key }) {
            guard connections.values[index].clientConfigurations[handle] == nil, configuration != 0,
                let attribute = database.attribute(at: handle), attribute.storage == .clientConfiguration,
                case .descriptor(let valueHandle) = attribute.role,
                let value = database.attribute(at: valueHandle),
                case .characteristicValue(let properties, _, _) = value.role
            else { continue }
            var allowed: UInt16 = 0
            if properties.contains(.notify) { allowed |= 0x0001 }
            if properties.contains(.indicate) { allowed |= 0x0002 }
            let kept = configuration & allowed
            guard kept != 0 else { continue }
            connections.values[index].clientConfigurations[handle] = kept
            // The Service Changed configuration is GATT's own; the application is not told.
            guard valueHandle != database.serviceChangedHandle else { continue }
            subscriptions.append(
                GATTSubscription(
                    connection: id, characteristic: reference(to: value), notifications: kept & 0x0001 != 0,
                    indications: kept & 0x0002 != 0))
        }
        if connections.values[index].clientSupportedFeatures.isEmpty {
            connections.values[index].clientSupportedFeatures = bonded.clientSupportedFeatures
        }
        if let counter = bonded.lastSignCounter, connections.values[index].lastSignCounter.map({ $0 < counter }) ?? true
        {
            connections.values[index].lastSignCounter = counter
        }
        let aware = bonded.isChangeAware && bonded.databaseHash == database.hash
        guard !aware, case .changeAware = connections.values[index].awareness else {
            return BondedClientRestoration(subscriptions: subscriptions, serviceChanged: nil)
        }
        connections.values[index].awareness = .changeUnaware(awaitingNextRequest: false)
        return BondedClientRestoration(
            subscriptions: subscriptions,
            serviceChanged: serviceChangedIndication(range: 0x0001...0xFFFF, connection: id))
    }

    /// The last SignCounter accepted from the client (to persist in its bond).
    public func lastSignCounter(for id: GATTConnectionID) -> UInt32? { connections[id]?.lastSignCounter }
}
