import ArgumentParser
import BLE
import BLEWire
import Foundation

/// `ble l2cap connect ADDRESS PSM [--file PATH]`: opens an LE credit based channel to the
/// device's PSM (`openL2CAPChannel(_:)`), sends standard input or a file as SDUs of the peer's
/// MTU, prints what comes back, and closes the channel.
struct L2CAPConnectCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "connect",
        abstract: "Open an L2CAP channel to a device's PSM and send standard input or a file over it.",
        discussion: """
            The data goes as SDUs of the peer's MTU, paced by its credits (Core 5.4 Vol 3 Part A \
            §10.1); what the device sends back is printed (length, hex, text; control characters \
            escaped) for --wait seconds after the last write. On the virtual radio LOG-2 echoes on \
            PSM 0x0080.

            Example: echo hello | ble l2cap connect 00:00:5E:00:53:20 0x80
            """)

    @OptionGroup var device: DeviceArguments
    @Argument(help: ArgumentHelp("The PSM (0x80, or 128).", valueName: "psm")) var psm: String
    @Option(help: ArgumentHelp("Send this file instead of standard input.", valueName: "path")) var file: String?
    @Option(help: "Seconds to wait for the device's SDUs after the last write.") var wait: Double = 1

    func validate() throws {
        _ = try L2CAPCommand.parsePSM(psm)
        try checkSeconds(wait, option: "--wait")
    }

    func run() async throws {
        let psm = try L2CAPCommand.parsePSM(psm)
        let data: [UInt8]
        if let file {
            guard let contents = FileManager.default.contents(atPath: file) else {
                throw CommandFailure("cannot read \(file)")
            }
            data = Array(contents)
        } else {
            data = Array(FileHandle.standardInput.readDataToEndOfFile())
        }
        let wait = self.wait
        try await device.withPeripheral { peripheral, session in
            let channel = try await attempt("opening a channel to PSM \(L2CAPCommand.format(psm))") {
                try await peripheral.openL2CAPChannel(psm)
            }
            Console.out("opened a channel to PSM \(L2CAPCommand.format(psm)), MTU \(channel.outgoingMTU)")
            let reader = session.spawn {
                for await sdu in channel.incoming { Console.out(L2CAPCommand.render(sdu, from: "received")) }
            }
            var sdus = 0
            var offset = 0
            while offset < data.count {
                let end = min(data.count, offset + channel.outgoingMTU)
                try await attempt("writing") { try await channel.write(Array(data[offset..<end])) }
                sdus += 1
                offset = end
            }
            Console.out("sent \(data.count) octets in \(sdus) SDU\(sdus == 1 ? "" : "s")")
            _ = await session.sleep(for: .seconds(wait))
            await channel.close()
            await reader.value
        }
    }
}
