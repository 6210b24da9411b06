import ArgumentParser
import BLETransport
import BLEWire
import Foundation

/// `ble decode HEX… [--json] [--as LAYER]` or `ble decode --btsnoop FILE [--json]`: renders
/// bytes or a capture as packets, or says exactly why they do not decode (exit status 1).
struct DecodeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "decode",
        abstract: "Decode packets given in hex.",
        discussion: """
            By default the input is one or more H4 packets back to back (packet indicator first:
            01 command, 02 ACL, 03 SCO, 04 event, 05 ISO), e.g.
              ble decode 040e0401030c00
            Spaces and colons between hex digits are ignored, so the bytes may be split over
            several arguments. --as decodes one PDU of another layer instead.
            --btsnoop FILE prints every record of a btsnoop capture (btmon, Android's snoop
            log, ble --capture): its number, time (UTC), direction and packet; a damaged file
            prints the records before the damage, then the error. An ATT response is shown with
            the request it answers and what that request gives its values (the service UUIDs
            of a Read By Group Type Response, characteristic declarations, the handle read); a
            lone response says which of its fields need the request.
            A Command Complete whose return parameters are cut short is an error (exit 1).
            Text from the packets (names, URIs) is printed with its control characters escaped
            (\\n, \\u{1B}); --json keeps the exact characters.
            """
    )

    @Argument(help: "The bytes, in hex.")
    var hex: [String] = []

    @Option(name: .customLong("btsnoop"), help: "Decode the btsnoop capture in this file instead.")
    var btsnoopPath: String?

    @Flag(help: "Print one JSON object per packet.")
    var json = false

    @Option(name: .customLong("as"), help: "What the bytes are: \(WireLayer.allValueStrings.joined(separator: ", ")).")
    var layer: WireLayer = .h4

    @OptionGroup var logging: LoggingOptions

    func run() throws {
        if let btsnoopPath {
            guard hex.isEmpty, layer == .h4 else {
                throw ValidationError("--btsnoop takes a file: give no hex bytes and no --as")
            }
            try BTSnoopPrinter(json: json).print(path: btsnoopPath)
            return
        }
        guard let bytes = Hex.bytes(hex.joined()) else {
            throw ValidationError("the input is not hex: use pairs of digits 0-9, a-f")
        }
        guard !bytes.isEmpty else { throw ValidationError("no bytes to decode") }
        let renderings: [RenderedValue]
        do {
            renderings = try layer.decode(bytes)
        } catch {
            throw DecodeFailure(message: error.description)
        }
        for rendering in renderings {
            Console.out(json ? Rendering.json(of: rendering) : Rendering.text(of: rendering))
        }
    }
}

/// A decoding failure: printed as the typed error's description, exit status 1.
struct DecodeFailure: Error, CustomStringConvertible {
    var message: String
    /// Escaped like every other line: a message may quote what a packet or file held.
    var description: String { Console.safe(message) }
}

/// The layers `ble decode --as` understands.
enum WireLayer: String, ExpressibleByArgument, CaseIterable {
    case h4
    case command
    case event
    case acl
    case l2cap
    case att
    case smp
    case signaling
    case ad

    /// Decodes the input as this layer; H4 input may hold several packets.
    func decode(_ bytes: [UInt8]) throws(DecodeFailure) -> [RenderedValue] {
        do {
            switch self {
            case .h4: return try Self.decodeH4Stream(bytes)
            case .command: return [try HCICommandPacket(decoding: bytes).rendered]
            case .event:
                let packet = HCIPacket.event(try HCIEvent(decoding: bytes))
                try packet.checkContents()
                return [packet.rendered]
            case .acl:
                let packet = HCIPacket.acl(try ACLPacket(decoding: bytes))
                return [packet.rendered.appending(Self.note(packet.wholeATTPDU?.pdu))]
            case .l2cap:
                let frame = try L2CAPBasicFrame(decoding: bytes)
                let payload = try L2CAPChannelPayload(frame)
                var fields: [(String, RenderedValue)] = [
                    ("channel", frame.channelID.rendered), ("pdu", Rendering.render(payload)),
                ]
                if case .att(let pdu) = payload { fields += Self.note(pdu) }
                return [.object(name: nil, fields: fields)]
            case .att:
                let pdu = try ATTPDU(decoding: bytes)
                return [Rendering.render(pdu).appending(Self.note(pdu))]
            case .smp: return [Rendering.render(try SMPCommand(decoding: bytes))]
            case .signaling: return [Rendering.render(try L2CAPSignal(decoding: bytes))]
            case .ad: return [Rendering.render(try AdvertisingData(decoding: bytes))]
            }
        } catch let error as DecodeFailure {
            throw error
        } catch {
            throw DecodeFailure(message: "\(error)")
        }
    }

    /// What a lone ATT response cannot say without its request (`ATTPDU.requestDependence`).
    private static func note(_ pdu: ATTPDU?) -> [(String, RenderedValue)] {
        guard let note = pdu?.requestDependence else { return [] }
        return [("note", .string(note))]
    }

    private static func decodeH4Stream(_ bytes: [UInt8]) throws -> [RenderedValue] {
        var parser = H4StreamParser()
        parser.feed(bytes)
        var renderings: [RenderedValue] = []
        while let packet = try parser.next() {
            do {
                let decoded = try HCIPacket(packet)
                try decoded.checkContents()
                renderings.append(decoded.rendered.appending(Self.note(decoded.wholeATTPDU?.pdu)))
            } catch {
                throw DecodeFailure(message: "packet \(renderings.count + 1): \(error)")
            }
        }
        if parser.pendingByteCount > 0 {
            throw DecodeFailure(
                message: "packet \(renderings.count + 1) is incomplete: \(parser.pendingByteCount) octet"
                    + (parser.pendingByteCount == 1 ? "" : "s") + " of a packet whose header or body is cut short")
        }
        return renderings
    }
}

/// Prints the records of a btsnoop file, one line each.
struct BTSnoopPrinter {
    var json: Bool

    func print(path: String) throws(DecodeFailure) {
        let bytes: [UInt8]
        do {
            bytes = try FileAccess.read(path)
        } catch {
            throw DecodeFailure(message: "cannot read \(error)")
        }
        var reader: BTSnoopReader
        do {
            reader = try BTSnoopReader(bytes)
        } catch {
            throw DecodeFailure(message: "\(path) is not a btsnoop capture this tool reads: \(error)")
        }
        var undecodable = 0
        // Responses are shown in the light of their requests, as btmon does.
        var transactions = ATTTransactionTracker()
        while true {
            let offset = reader.offset
            let record: BTSnoopRecord
            do {
                guard let next = try reader.next() else { break }
                record = next
            } catch {
                throw DecodeFailure(
                    message: "\(path): record \(reader.recordCount + 1) at offset \(offset) is damaged: \(error)")
            }
            let packet: RenderedValue
            do {
                let decoded = try HCIPacket(record.packet(datalink: reader.datalink))
                let context = Self.context(of: decoded, direction: record.direction, &transactions)
                packet = decoded.rendered.appending(context)
                // Shown with its error in the rendering, and counted as not decoding.
                do { try decoded.checkContents() } catch { undecodable += 1 }
            } catch {
                undecodable += 1
                packet = .object(
                    name: "undecodable",
                    fields: [("error", .string("\(error)")), ("data", .bytes(Array(record.data)))])
            }
            Console.out(line(index: reader.recordCount, record: record, packet: packet))
        }
        if undecodable > 0 {
            throw DecodeFailure(
                message: "\(path): \(undecodable) of \(reader.recordCount) packets did not decode")
        }
    }

    /// The request an ATT response answers and what it gives the response's fields; a
    /// disconnection ends the connection's outstanding requests.
    private static func context(
        of packet: HCIPacket, direction: BTSnoopDirection, _ transactions: inout ATTTransactionTracker
    ) -> [(String, RenderedValue)] {
        if case .event(.disconnectionComplete(let event)) = packet {
            transactions.connectionClosed(event.connectionHandle)
        }
        guard let (handle, pdu) = packet.wholeATTPDU,
            let request = transactions.take(pdu, on: handle, direction: direction)
        else { return [] }
        return pdu.interpreted(answering: request)
    }

    private func line(index: Int, record: BTSnoopRecord, packet: RenderedValue) -> String {
        let direction = record.direction == .sent ? "host→controller" : "controller→host"
        if json {
            var fields: [(String, RenderedValue)] = [
                ("index", .integer(Int64(index))),
                ("time", .string(record.timestamp.description)),
                ("timestampMicroseconds", .integer(record.timestamp.unixMicroseconds)),
                ("direction", .string(direction)),
            ]
            if record.isSnapped { fields.append(("originalLength", .unsigned(UInt64(record.originalLength)))) }
            if record.cumulativeDrops > 0 { fields.append(("drops", .unsigned(UInt64(record.cumulativeDrops)))) }
            fields.append(("packet", packet))
            return Rendering.json(of: .object(name: nil, fields: fields))
        }
        var notes = ""
        if record.isSnapped { notes += " [\(record.data.count) of \(record.originalLength) octets kept]" }
        if record.cumulativeDrops > 0 { notes += " [\(record.cumulativeDrops) dropped before]" }
        return "\(index) \(record.timestamp) \(direction)\(notes) \(Rendering.text(of: packet))"
    }
}
