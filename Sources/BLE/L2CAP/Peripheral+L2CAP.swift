import BLEHost
import BLEWire

/// L2CAP connection-oriented channels to a peripheral (Core Bluetooth's
/// `openL2CAPChannel(_:)`; Core 5.4 Vol 3 Part A §4.22, §4.25).
extension Peripheral {
    /// Opens an LE credit based channel to the peripheral's `psm` (§4.22): the peer's refusal
    /// throws `.l2cap(.refused(_))` with its result (§4.23).
    public func openL2CAPChannel(_ psm: L2CAPPSM) async throws(BLEError) -> L2CAPChannel {
        let channels = try await openChannels(psm, mode: .leCreditBased, count: 1)
        guard let channel = channels.first else { throw .l2cap(.notOpen) }
        return channel
    }

    /// Opens up to five enhanced credit based channels to `psm` with one request (§4.25);
    /// the peer may accept some of them (§4.26).
    public func openL2CAPChannels(_ psm: L2CAPPSM, count: Int) async throws(BLEError) -> [L2CAPChannel] {
        try await openChannels(psm, mode: .enhancedCreditBased, count: count)
    }

    private func openChannels(_ psm: L2CAPPSM, mode: L2CAPChannelMode, count: Int) async throws(BLEError) -> [L2CAPChannel] {
        guard case .connected(let handle) = link else { throw .notConnected }
        let host = stack.host
        do throws(L2CAPChannelError) {
            let infos = try await host.openL2CAPChannels(psm: psm, on: handle, mode: mode, count: count)
            return infos.map { L2CAPChannel($0, host: host, peerIdentifier: identifier) }
        } catch {
            throw .l2cap(error)
        }
    }
}
