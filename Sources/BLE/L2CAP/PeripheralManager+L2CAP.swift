import BLEHost
import BLEWire
import Foundation

/// What a peripheral manager keeps for published PSMs.
struct PublishedChannels {
    /// The tasks taking each PSM's channels from the host.
    var pumps: [L2CAPPSM: Task<Void, Never>] = [:]
    /// Whether each published PSM requires encryption, to publish it again on a new host.
    var encryption: [L2CAPPSM: Bool] = [:]
    var listeners = Subscribers<L2CAPChannel>()
}

/// Publishing L2CAP channels (Core Bluetooth's `publishL2CAPChannel(withEncryption:)`,
/// `unpublishL2CAPChannel(_:)` and `didOpen`; Core 5.4 Vol 3 Part A §4.22–§4.26).
extension PeripheralManager {
    /// Publishes a PSM centrals can open channels to: a free dynamic one (0x0080...0x00FF)
    /// unless `psm` names one. With `encryption`, a central on an unencrypted link is refused
    /// with Insufficient Encryption (§4.23).
    public func publishL2CAPChannel(withEncryption encryption: Bool, psm: L2CAPPSM? = nil) async throws(BLEError)
        -> L2CAPPSM
    {
        try checkPoweredOn()
        let host = stack.host
        let published: (psm: UInt16, channels: EventStream<L2CAPChannelInfo>)
        do throws(L2CAPChannelError) {
            published = try await host.publishL2CAPServer(psm: psm, security: encryption ? .encrypted : .none)
        } catch {
            throw .l2cap(error)
        }
        let stream = published.channels
        channels.encryption[published.psm] = encryption
        channels.pumps[published.psm] = stack.spawn { [weak self] in
            for await info in stream {
                guard let self else { return }
                await self.accepted(info)
            }
        }
        return published.psm
    }

    /// Stops accepting channels to `psm`; channels open stay open.
    public func unpublishL2CAPChannel(_ psm: L2CAPPSM) async {
        await stack.host.unpublishL2CAPServer(psm)
        channels.pumps.removeValue(forKey: psm)?.cancel()
        channels.encryption[psm] = nil
    }

    /// After `reattach` the host starts afresh and knows no PSM: each one the app published is
    /// published again, with the same PSM and security, so centrals reach it as before. One
    /// the new host refuses is logged and forgotten.
    func republishL2CAPChannels() async {
        for (psm, encryption) in channels.encryption.sorted(by: { $0.key < $1.key }) {
            channels.pumps.removeValue(forKey: psm)?.cancel()
            channels.encryption[psm] = nil
            do throws(BLEError) {
                _ = try await publishL2CAPChannel(withEncryption: encryption, psm: psm)
            } catch {
                stack.host.logger.error("peripheral manager: PSM \(psm) could not be published again: \(error)")
            }
        }
    }

    /// The channels centrals open to published PSMs from now on (`didOpen`). Any number of
    /// listeners; a channel opened while nobody listens is closed at once.
    public func incomingL2CAPChannels() -> EventStream<L2CAPChannel> {
        channels.listeners.make()
    }

    private func accepted(_ info: L2CAPChannelInfo) async {
        let identifier = centralIdentifiers[info.key.handle] ?? info.peer.peerIdentifier
        let channel = L2CAPChannel(info, host: stack.host, peerIdentifier: identifier)
        channels.listeners.dropEnded()
        guard !channels.listeners.isEmpty else {
            stack.host.logger.notice("closing \(channel): nobody listens to incomingL2CAPChannels()")
            return await channel.close()
        }
        channels.listeners.yield(channel)
    }
}
