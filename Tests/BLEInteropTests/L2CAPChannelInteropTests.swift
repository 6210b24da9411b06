import BLE
import BLEWire
import Foundation
import Testing

extension BumbleInteropTests {
    @Test("L2CAP: our central opens LE (§4.22) and enhanced (§4.25) credit based channels to a Bumble peripheral's PSM; SDUs echo")
    func ourChannelToBumble() async throws {
        let (controllers, ports) = try await Interop.bumbleControllers(2)
        defer { controllers.stop() }
        try #require(ports.count == 2)
        let psm: L2CAPPSM = 0x0085
        let bumble = try Interop.bumble(
            "bumble l2cap listener", "bumble_l2cap.py",
            ["listen", "tcp-client:127.0.0.1:\(ports[0])", Self.bumblePeripheralAddress, "\(psm)"])
        defer { bumble.stop() }
        try await bumble.waitForEvent("ready")

        let central = await CentralManager(
            radio: .transport(try await Interop.transport(port: ports[1])),
            configuration: Interop.configuration(address: 0xC4_00_00_00_00_0E))
        try await central.powerOn()
        let discovery = try await withLimit("scan") {
            for await discovery in try await central.scanForPeripherals() {
                if discovery.advertisementData.localName == TestService.localName { return discovery }
            }
            throw InteropFailure.timedOut("scan ended")
        }
        await central.stopScan()
        let peripheral = discovery.peripheral
        try await withLimit("connect") { try await central.connect(peripheral) }

        // A PSM Bumble does not serve: refused with its result (§4.23).
        await #expect(throws: BLEError.l2cap(.refused(.spsmNotSupported))) {
            _ = try await peripheral.openL2CAPChannel(0x00F3)
        }
        let channel = try await withLimit("open") { try await peripheral.openL2CAPChannel(psm) }
        let opened = try await bumble.waitForEvent("channel")
        #expect(opened["mtu"] as? Int == channel.incomingMTU)
        // Short, over one K-frame of Bumble's MPS, and Bumble's whole MTU: each echoed whole.
        let sdus: [[UInt8]] = [
            Array("hello".utf8), (0..<600).map { UInt8(truncatingIfNeeded: $0 &* 5 &+ 1) },
            (0..<channel.outgoingMTU).map { UInt8(truncatingIfNeeded: $0 &* 3 &+ 7) },
        ]
        let stream = channel.incoming
        let echoes = Task {
            var received: [[UInt8]] = []
            for await sdu in stream {
                received.append(sdu)
                if received.count == sdus.count { break }
            }
            return received
        }
        for sdu in sdus {
            try await withLimit("write") { try await channel.write(sdu) }
            try await bumble.waitForEvent("sdu") { $0["length"] as? Int == sdu.count }
        }
        #expect(try await withLimit("echoes") { await echoes.value } == sdus)
        // Enhanced credit based channels (§4.25–§4.26): two with one request, each echoing.
        // Opened while the LE channel is still open: Bumble 0.0.236 keeps a closed LE channel's
        // peer CID as allocated and would refuse its reuse (Source CID already allocated).
        let pair = try await withLimit("open enhanced") { try await peripheral.openL2CAPChannels(psm, count: 2) }
        #expect(pair.count == 2)
        for (index, enhanced) in pair.enumerated() {
            let stream = enhanced.incoming
            let echo = Task { () -> [UInt8]? in
                for await sdu in stream { return sdu }
                return nil
            }
            let sdu = (0..<(300 + index)).map { UInt8(truncatingIfNeeded: $0 + index) }
            try await withLimit("enhanced write") { try await enhanced.write(sdu) }
            #expect(try await withLimit("enhanced echo") { await echo.value } == sdu)
            await enhanced.close()
        }
        await channel.close()
        try await bumble.waitForEvent("closed")
        #expect(await channel.closeReason == .l2cap(.closedLocally))
        #expect(await peripheral.state == .connected)

        await central.cancelPeripheralConnection(peripheral)
        await central.close()
    }

    @Test("L2CAP: a Bumble central opens a channel to our published PSM; our app echoes its SDUs (§4.22)")
    func bumbleChannelToUs() async throws {
        let (controllers, ports) = try await Interop.bumbleControllers(2)
        defer { controllers.stop() }
        try #require(ports.count == 2)
        let manager = try await PeripheralManager(
            radio: .transport(try await Interop.transport(port: ports[0])),
            configuration: Interop.configuration(address: 0xC4_00_00_00_00_0F))
        try await manager.powerOn()
        let incoming = await manager.incomingL2CAPChannels()
        let psm = try await manager.publishL2CAPChannel(withEncryption: false)
        let echo = Task {
            var channels = 0
            var sdus = 0
            for await channel in incoming {
                channels += 1
                for await sdu in channel.incoming {
                    sdus += 1
                    try await channel.write(sdu)
                }
                return (channels, sdus, await channel.closeReason)
            }
            return (channels, sdus, nil)
        }
        try await manager.startAdvertising(AdvertisementData(localName: "SwiftL2CAP"))
        let bumble = try Interop.bumble(
            "bumble l2cap central", "bumble_l2cap.py",
            ["connect", "tcp-client:127.0.0.1:\(ports[1])", "C4:00:00:00:00:03", "C4:00:00:00:00:0F", "\(psm)"])
        defer { bumble.stop() }
        let status = try await bumble.waitForExit()
        #expect(status == 0, "\(bumble.transcript)")
        #expect(bumble.events("sent").count == 3)
        #expect(bumble.events("sdu").count == 3)
        let (channels, sdus, reason) = try await withLimit("echo task") { try await echo.value }
        #expect(channels == 1)
        #expect(sdus == 3)
        #expect(reason == .l2cap(.closedByPeer))
        await manager.close()
    }
}

extension BumbleInteropTests {
    @Test("ble l2cap listen --echo serves a Bumble central; ble l2cap connect talks to a Bumble listener")
    func cliL2CAPWithBumble() async throws {
        let (controllers, ports) = try await Interop.bumbleControllers(4)
        defer { controllers.stop() }
        try #require(ports.count == 4)
        let cli = try CLIRuns()
        defer { cli.removeFiles() }

        // Our listener, a Bumble central: its three SDUs come back whole.
        let listener = try cli.start(["l2cap", "listen", "--echo", "--psm", "0x0099"], port: ports[0])
        defer { listener.stop() }
        let line = try await listener.waitForLine("listening") { $0.hasPrefix("listening on PSM 0x0099 (153) at ") }
        let address = String(line.dropFirst("listening on PSM 0x0099 (153) at ".count).prefix(17))
        let central = try Interop.bumble(
            "bumble l2cap central", "bumble_l2cap.py",
            ["connect", "tcp-client:127.0.0.1:\(ports[1])", "C4:00:00:00:00:04", address, "0x99"])
        defer { central.stop() }
        #expect(try await central.waitForExit() == 0, "\(central.transcript)")
        #expect(central.events("sdu").count == 3)
        try await listener.waitForLines("SDUs", count: 3) { $0.hasPrefix("channel 1: ") }
        #expect(listener.lines.contains("channel 1: 5 octets 68656c6c6f \"hello\""), "\(listener.transcript)")
        listener.stop()

        // Our connect, a Bumble listener that echoes.
        let bumble = try Interop.bumble(
            "bumble l2cap listener", "bumble_l2cap.py",
            ["listen", "tcp-client:127.0.0.1:\(ports[2])", "C4:00:00:00:00:05", "0x85"])
        defer { bumble.stop() }
        try await bumble.waitForEvent("ready")
        let file = cli.folder.appendingPathComponent("payload.bin")
        try Data("hello bumble".utf8).write(to: file)
        let run = try await cli.run(["l2cap", "connect", "C4:00:00:00:00:05", "0x85", "--file", file.path], port: ports[3])
        #expect(run.status == 0, "\(run.transcript)")
        #expect(run.lines.contains("sent 12 octets in 1 SDU"), "\(run.transcript)")
        #expect(run.lines.contains("received: 12 octets 68656c6c6f2062756d626c65 \"hello bumble\""), "\(run.transcript)")
        try await bumble.waitForEvent("sdu") { $0["length"] as? Int == 12 }
        try await cli.checkCaptures()
    }
}
