import BLEWire

/// What the server sends on its own (Core 5.4 Vol 3 Part F §3.4.7; Part G §4.10–§4.11, §7.1),
/// database changes, and the values the application keeps in the database.
extension GATTServer {
    /// A Handle Value Notification of the characteristic value at `handle` for a client that
    /// enabled notifications (Part G §4.10), the value cut to ATT_MTU − 3 octets (Part F
    /// §3.4.7.1). Nil when the client has not subscribed, or is change-unaware with Robust
    /// Caching (Part G §2.5.2.1 withholds notifications then).
    public func notification(for handle: UInt16, value: [UInt8], connection id: GATTConnectionID)
        throws(GATTServerError) -> ATTPDU?
    {
        let (state, configurationHandle) = try subscriptionTarget(handle, id)
        guard state.configuration(configurationHandle) & 0x0001 != 0, !state.isOutOfSync else { return nil }
        return ATT.HandleValueNotification(handle: handle, value: value.prefix(state.mtu - 3)).pdu
    }

    /// A Handle Value Indication of the characteristic value at `handle` for a client that
    /// enabled indications (Part G §4.11), cut to ATT_MTU − 3 octets (Part F §3.4.7.2). The
    /// server expects its confirmation (`.confirmationReceived`); indications are confirmed in
    /// the order the bearer sends them, one at a time (§3.3.2).
    public mutating func indication(for handle: UInt16, value: [UInt8], connection id: GATTConnectionID)
        throws(GATTServerError) -> ATTPDU?
    {
        let (state, configurationHandle) = try subscriptionTarget(handle, id)
        guard state.configuration(configurationHandle) & 0x0002 != 0 else { return nil }
        guard !state.isOutOfSync || handle == database.serviceChangedHandle else { return nil }
        connections[id]?.unconfirmedIndications.append(handle)
        return ATT.HandleValueIndication(handle: handle, value: value.prefix(state.mtu - 3)).pdu
    }

    /// The Client Characteristic Configuration a client wrote for the characteristic value at
    /// `handle` (0 when none, or unknown).
    public func clientConfiguration(for handle: UInt16, connection id: GATTConnectionID) -> UInt16 {
        guard let state = connections[id], let attribute = database.attribute(at: handle),
            case .characteristicValue(_, _, let configurationHandle?) = attribute.role
        else { return 0 }
        return state.configuration(configurationHandle)
    }

    /// Service Changed indications (Part G §7.1) naming `range`, one for each connected client
    /// that enabled them, in connection order.
    public mutating func serviceChanged(range: ClosedRange<UInt16>) -> [(GATTConnectionID, ATTPDU)] {
        connectedClients.compactMap { id in
            serviceChangedIndication(range: range, connection: id).map { (id, $0) }
        }
    }

    mutating func serviceChangedIndication(range: ClosedRange<UInt16>, connection id: GATTConnectionID) -> ATTPDU? {
        var value = ByteWriter(capacity: 4)
        value.u16(range.lowerBound)
        value.u16(range.upperBound)
        return try? indication(for: database.serviceChangedHandle, value: value.bytes, connection: id)
    }

    /// Handle Value Confirmation (Part F §3.4.7.3): the oldest indication is confirmed. For
    /// Service Changed, the client becomes change-aware (Part G §2.5.2.1). A confirmation with no
    /// indication outstanding is ignored (the bearer judges the protocol violation).
    mutating func confirmation(_ id: GATTConnectionID) -> GATTServerOutcome {
        guard let handle = connections[id]?.unconfirmedIndications.first else { return .none }
        connections[id]?.unconfirmedIndications.removeFirst()
        if handle == database.serviceChangedHandle { connections[id]?.awareness = .changeAware }
        return .confirmationReceived(connection: id, handle: handle)
    }

    private func subscriptionTarget(_ handle: UInt16, _ id: GATTConnectionID) throws(GATTServerError)
        -> (GATTServerConnection, UInt16)
    {
        guard let attribute = database.attribute(at: handle),
            case .characteristicValue(_, _, let configurationHandle?) = attribute.role
        else { throw .notNotifiable(handle: handle) }
        guard let state = connections[id] else { throw .unknownConnection(id) }
        return (state, configurationHandle)
    }

    // MARK: Database changes

    /// Adds services at run time (`AttributeDatabase.add(_:)`). Every connected client becomes
    /// change-unaware (Part G §2.5.2.1); send `serviceChanged(range:)` with the returned
    /// services' range.
    @discardableResult
    public mutating func add(_ services: [GATTService]) throws(AttributeDatabaseError) -> [GATTServiceHandles] {
        let handles = try database.add(services)
        databaseChanged()
        return handles
    }

    /// Removes a service at run time (`AttributeDatabase.removeService(at:)`); configurations
    /// in its range are forgotten and every connected client becomes change-unaware. Send
    /// `serviceChanged(range:)` with the returned range.
    @discardableResult
    public mutating func removeService(at handle: UInt16) throws(AttributeDatabaseError) -> ClosedRange<UInt16> {
        let range = try database.removeService(at: handle)
        for id in connectedClients {
            let kept = connections[id]?.clientConfigurations.filter { !range.contains($0.key) } ?? [:]
            connections[id]?.clientConfigurations = kept
        }
        databaseChanged()
        return range
    }

    private mutating func databaseChanged() {
        for id in connectedClients { connections[id]?.awareness = .changeUnaware(awaitingNextRequest: false) }
    }

    /// Replaces a stored application value (e.g. a battery level the server answers reads with).
    /// Values are not part of the Database Hash, so clients are not told.
    public mutating func setValue(_ value: [UInt8], forAttributeAt handle: UInt16) throws(GATTServerError) {
        guard let index = database.index(of: handle), database.attributes[index].isApplicationOwned,
            case .value = database.attributes[index].storage
        else { throw .notAStoredValue(handle: handle) }
        guard value.count <= AttributeDatabase.maximumValueLength else { throw .valueTooLong(length: value.count) }
        database.setStoredValue(value, atIndex: index)
    }
}
