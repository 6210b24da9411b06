import BLETransport
import BLEWire
import Logging

extension Logger {
    /// A logger that discards everything: the default of every configuration, so a library
    /// stays silent until an app hands it a logger of its own.
    package static func silent(_ label: String) -> Logger {
        Logger(label: label, factory: { _ in SwiftLogNoOpLogHandler() })
    }
}

extension H4Packet {
    /// The packet as one line of the one rendering (`ble decode`'s), for packet traces; the
    /// raw H4 form when it does not decode.
    package var traceText: String {
        (try? HCIPacket(self))?.description ?? description
    }
}

extension Host {
    /// Packet trace: each H4 packet in or out at `.trace`. Callers check `tracesPackets` first
    /// so that nothing is rendered while tracing is off.
    func trace(_ direction: StaticString, _ packet: @autoclosure () -> H4Packet) {
        logger.trace("\(direction) \(packet().traceText)")
    }

    /// A packet the transport did not take.
    func sendFailed(_ packet: H4Packet, _ error: HCITransportError) {
        statistics.failedSends += 1
        logger.warning("dropped \(packet.type) packet: the transport did not take it (\(error))")
    }

    /// A command the host sent on its own, whose failure no caller sees.
    func ownCommandFailed(_ what: String, _ error: HostError) {
        statistics.failedCommands += 1
        logger.notice("\(what) failed: \(error)")
    }
}
