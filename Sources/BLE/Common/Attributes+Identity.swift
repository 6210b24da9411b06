// Equality by identity, as Core Bluetooth's objects compare: a characteristic read twice, or
// caught before and after a notification, is the same characteristic though its `value`
// differs. Identity is the attribute's handle within its owner (the peripheral, or the
// peripheral manager, whose identifier `owner` is; Core 5.4 Vol 3 Part F §3.2.2: a handle names
// one attribute of one server), never the snapshot's value, notifying state or discovered
// children.

extension Service {
    public static func == (lhs: Service, rhs: Service) -> Bool {
        lhs.owner == rhs.owner && lhs.handleRange.lowerBound == rhs.handleRange.lowerBound
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(owner)
        hasher.combine(handleRange.lowerBound)
    }
}

extension Characteristic {
    public static func == (lhs: Characteristic, rhs: Characteristic) -> Bool {
        lhs.owner == rhs.owner && lhs.handle == rhs.handle
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(owner)
        hasher.combine(handle)
    }
}

extension Descriptor {
    public static func == (lhs: Descriptor, rhs: Descriptor) -> Bool {
        lhs.owner == rhs.owner && lhs.handle == rhs.handle
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(owner)
        hasher.combine(handle)
    }
}

extension Central {
    /// The same central on the same link: a snapshot taken before an ATT_MTU exchange equals one
    /// taken after.
    public static func == (lhs: Central, rhs: Central) -> Bool {
        lhs.identifier == rhs.identifier && lhs.connection == rhs.connection
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(identifier)
        hasher.combine(connection)
    }
}
