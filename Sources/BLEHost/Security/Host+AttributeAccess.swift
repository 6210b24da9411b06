import BLEWire

extension Host {
    /// Asks the pairing agent whether a client may make an access that requires authorization
    /// (Core 5.4 Vol 3 Part F §3.2.5), naming the client by its identity as far as known.
    package func authorizeAccess(_ request: AttributeAccessRequest) async -> Bool {
        var request = request
        if request.peer == nil { request.peer = encryption[request.connection]?.peer }
        let agent = pairingAgent
        return await agent.authorizeAccess(request)
    }
}
