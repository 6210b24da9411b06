import BLEWire
import Testing

@testable import BLEController

@Suite("HCI command handling (Core 5.4 Vol 4 Part E §4.4, §4.5, §7)")
struct HCICommandTests {
    @Test("An unknown opcode gets Command Complete with 0x01 Unknown HCI Command")
    func unknownOpcode() {
        let host = TestHost(air: VirtualAir())
        let mark = host.events.count
        host.send(bytes: [0x01, 0x42, 0xFC, 0x02, 0xAA, 0xBB])
        let complete = host.waitFor(after: mark) { event -> HCIEvent.CommandComplete? in
            if case .commandComplete(let c) = event { c } else { nil }
        }
        #expect(complete?.opcode == HCIOpcode(rawValue: 0xFC42))
        #expect(complete?.status == .unknownHCICommand)
    }

    @Test("An unimplemented command that completes with Command Status gets Command Status 0x01")
    func unimplementedStatusCommand() {
        let host = TestHost(air: VirtualAir())
        let key = [UInt8](repeating: 1, count: 32)[...]
        #expect(host.status(HCI.LEGenerateDHKey(keyXCoordinate: key, keyYCoordinate: key)) == .unknownHCICommand)
        #expect(host.status(HCI.LEReadLocalP256PublicKey()) == .unknownHCICommand)
    }

    @Test("An unimplemented Command Complete command gets Command Complete 0x01")
    func unimplementedCompleteCommand() {
        let host = TestHost(air: VirtualAir())
        #expect(host.complete(HCI.LESetHostFeature(bitNumber: 32, bitValue: true)).status == .unknownHCICommand)
        #expect(
            host.complete(HCI.SetControllerToHostFlowControl(flowControlEnable: .aclOnly)).status == .unknownHCICommand)
    }

    @Test("Malformed parameters get 0x12 Invalid HCI Command Parameters, in the command's completion event")
    func malformedParameters() {
        let host = TestHost(air: VirtualAir())
        // LE Set Scan Enable with one octet instead of two.
        var mark = host.events.count
        host.send(bytes: [0x01, 0x0C, 0x20, 0x01, 0x01])
        let complete = host.waitFor(after: mark) { event -> HCIEvent.CommandComplete? in
            if case .commandComplete(let c) = event, c.opcode == HCI.LESetScanEnable.opcode { c } else { nil }
        }
        #expect(complete?.status == .invalidHCICommandParameters)
        // Disconnect (a Command Status command) with a truncated handle.
        mark = host.events.count
        host.send(bytes: [0x01, 0x06, 0x04, 0x01, 0x01])
        let status = host.waitFor(after: mark) { event -> HCIEvent.CommandStatus? in
            if case .commandStatus(let s) = event, s.opcode == HCI.Disconnect.opcode { s } else { nil }
        }
        #expect(status?.status == .invalidHCICommandParameters)
        // An enable flag of 0x02 is no flag at all.
        #expect(host.complete(HCI.LESetAdvertisingEnable(advertisingEnable: true)).status != nil)
        mark = host.events.count
        host.send(bytes: [0x01, 0x0A, 0x20, 0x01, 0x02])
        let flag = host.waitFor(after: mark) { event -> HCIEvent.CommandComplete? in
            if case .commandComplete(let c) = event, c.opcode == HCI.LESetAdvertisingEnable.opcode { c } else { nil }
        }
        #expect(flag?.status == .invalidHCICommandParameters)
    }

    @Test("Read Local Supported Commands lists exactly the implemented commands (§6.27)")
    func supportedCommands() throws {
        let host = TestHost(air: VirtualAir())
        let reported = try host.returnParameters(HCI.ReadLocalSupportedCommands()).supportedCommands
        #expect(reported == HCISupportedCommands(opcodes: VirtualController.implementedOpcodes))
        // Every command of the table: 0x01 exactly when the bitmap leaves it out.
        for entry in HCICommandTable.entries where entry.opcode != HCI.Reset.opcode {
            let fresh = TestHost(air: VirtualAir())
            let mark = fresh.events.count
            fresh.send(bytes: H4Packet(command: HCICommandPacket(opcode: entry.opcode, parameters: [])).encoded)
            let status = fresh.waitFor(after: mark) { event -> HCIStatus? in
                switch event {
                case .commandComplete(let c) where c.opcode == entry.opcode: c.status
                case .commandStatus(let s) where s.opcode == entry.opcode: s.status
                default: nil
                }
            }
            let implemented = VirtualController.implementedOpcodes.contains(entry.opcode)
            #expect((status == .unknownHCICommand) == !implemented, "\(entry.name)")
            if entry.opcode != HCI.ReadLocalSupportedCommands.opcode {
                #expect(reported.contains(entry.opcode) == implemented, "\(entry.name)")
            }
        }
    }

    @Test("Num_HCI_Command_Packets carries the configured credits")
    func commandCredits() {
        let host = TestHost(air: VirtualAir(), configuration: .init(commandCredits: 3))
        #expect(host.complete(HCI.ReadBDADDR()).numHCICommandPackets == 3)
        let mark = host.events.count
        host.send(HCI.Disconnect(connectionHandle: 7))
        let status = host.waitFor(after: mark) { event -> HCIEvent.CommandStatus? in
            if case .commandStatus(let s) = event { s } else { nil }
        }
        #expect(status?.numHCICommandPackets == 3)
        #expect(status?.status == .unknownConnectionIdentifier)
    }

    @Test("Identity: version, public address, random static address, buffers, features")
    func identity() throws {
        let air = VirtualAir()
        let first = TestHost(air: air)
        let second = TestHost(air: air, configuration: .init(aclBufferSize: 100, aclBufferCount: 3))
        let version = try first.returnParameters(HCI.ReadLocalVersionInformation())
        #expect(version.hciVersion == 0x0D && version.lmpVersion == 0x0D)
        let a = try first.returnParameters(HCI.ReadBDADDR()).bdAddr
        let b = try second.returnParameters(HCI.ReadBDADDR()).bdAddr
        #expect(a != b)
        #expect(a == first.controller.publicAddress)
        #expect(LEAddress(first.controller.defaultRandomAddress, type: .random).kind == .randomStatic)
        #expect(first.controller.defaultRandomAddress != second.controller.defaultRandomAddress)
        let le = try second.returnParameters(HCI.LEReadBufferSize())
        #expect(le.leACLDataPacketLength == 100 && le.totalNumLEACLDataPackets == 3)
        let v2 = try second.returnParameters(HCI.LEReadBufferSizeV2())
        #expect(v2.leACLDataPacketLength == 100 && v2.totalNumLEACLDataPackets == 3 && v2.totalNumISODataPackets == 0)
        let shared = try second.returnParameters(HCI.ReadBufferSize())
        #expect(shared.aclDataPacketLength == 100 && shared.totalNumACLDataPackets == 3)
        let features = try first.returnParameters(HCI.LEReadLocalSupportedFeatures()).leFeatures
        #expect(features == VirtualController.Configuration.implementedFeatures)
        let lmp = try first.returnParameters(HCI.ReadLocalSupportedFeatures()).lmpFeatures
        #expect(lmp.contains(.leSupportedController) && lmp.contains(.bredrNotSupported))
        let lengths = try first.returnParameters(HCI.LEReadMaximumDataLength())
        #expect(lengths.supportedMaxTXOctets == 251 && lengths.supportedMaxRXTime == 17040)
    }

    @Test("LE Rand draws from the seeded generator: same seed, same numbers")
    func leRandIsSeeded() throws {
        func draws(seed: UInt64) throws -> [UInt64] {
            let host = TestHost(air: VirtualAir(), configuration: .init(seed: seed))
            return try (0..<3).map { _ in try host.returnParameters(HCI.LERand()).randomNumber }
        }
        #expect(try draws(seed: 7) == draws(seed: 7))
        #expect(try draws(seed: 7) != draws(seed: 8))
    }

    @Test("LE Encrypt is AES-128 (FIPS-197 Appendix C.1)")
    func leEncrypt() throws {
        let host = TestHost(air: VirtualAir())
        let key = HCI.Key128(0x0001_0203_0405_0607_0809_0A0B_0C0D_0E0F)
        let plaintext = HCI.Key128(0x0011_2233_4455_6677_8899_AABB_CCDD_EEFF)
        let result = try host.returnParameters(HCI.LEEncrypt(key: key, plaintextData: plaintext))
        #expect(result.encryptedData == HCI.Key128(0x69C4_E0D8_6A7B_0430_D8CD_B780_70B4_C55A))
    }

    @Test("Reset restores the defaults: masks, random address, advertising off")
    func resetRestoresDefaults() throws {
        let host = TestHost(air: VirtualAir())
        host.expectSuccess(HCI.LESetRandomAddress(randomAddress: BluetoothAddress(0xC1_2233_4455_66)))
        Scenario.advertise(host)
        #expect(host.controller.isAdvertising)
        host.expectSuccess(HCI.Reset())
        #expect(!host.controller.isAdvertising)
        #expect(host.controller.randomAddress == host.controller.defaultRandomAddress)
        #expect(host.controller.masks.le == .defaultMask)
        #expect(host.controller.masks.page1 == .defaultMask)
        // Reset also forgets which advertising command family the host chose (§3.1.1).
        host.expectSuccess(HCI.LEClearAdvertisingSets())
    }

    @Test("Legacy and extended advertising commands cannot be mixed (§3.1.1): 0x0C")
    func commandFamilies() {
        let host = TestHost(air: VirtualAir())
        host.expectSuccess(HCI.LESetAdvertisingData(advertisingData: []))
        #expect(host.complete(HCI.LEReadNumberOfSupportedAdvertisingSets()).status == .commandDisallowed)
        #expect(host.complete(HCI.LESetExtendedScanEnable(enable: false)).status == .commandDisallowed)
        let other = TestHost(air: host.air)
        other.expectSuccess(HCI.LEReadNumberOfSupportedAdvertisingSets())
        #expect(other.complete(HCI.LESetScanEnable(leScanEnable: false)).status == .commandDisallowed)
        #expect(
            other.status(
                HCI.LECreateConnection(
                    leScanInterval: 16, leScanWindow: 16, peerAddressType: .public, peerAddress: .zero,
                    connectionParameters: Scenario.parameters)) == .commandDisallowed)
    }

    @Test("Set Event Mask decides which events the host gets (§7.3.1, §7.8.1)")
    func eventMasks() {
        let air = VirtualAir()
        let advertiser = TestHost(air: air)
        let scanner = TestHost(air: air, at: AirPosition(x: 2))
        Scenario.advertise(advertiser)
        // LE Meta masked out in the page-1 mask: no reports.
        scanner.expectSuccess(HCI.SetEventMask(eventMask: .defaultMask))
        Scenario.scan(scanner)
        scanner.run(for: .seconds(1))
        #expect(scanner.advertisingReports.isEmpty)
        // LE Meta on, but the advertising report subevent masked out: still none.
        scanner.expectSuccess(HCI.SetEventMask(eventMask: HCI.EventMask.defaultMask.union(.leMeta)))
        scanner.expectSuccess(HCI.LESetEventMask(leEventMask: [.connectionComplete]))
        scanner.run(for: .seconds(1))
        #expect(scanner.advertisingReports.isEmpty)
        scanner.expectSuccess(HCI.LESetEventMask(leEventMask: .defaultMask))
        scanner.run(for: .seconds(1))
        #expect(!scanner.advertisingReports.isEmpty)
    }

    @Test("Read RSSI, LE Read PHY and other commands on an unknown handle: 0x02, the handle echoed")
    func unknownHandles() throws {
        let host = TestHost(air: VirtualAir())
        #expect(host.complete(HCI.ReadRSSI(handle: 0x0042)).status == .unknownConnectionIdentifier)
        #expect(host.complete(HCI.LEReadPHY(connectionHandle: 0x0042)).status == .unknownConnectionIdentifier)
        #expect(try host.returnParameters(HCI.LEReadPHY(connectionHandle: 0x0042)).connectionHandle == 0x0042)
        let channelMap = try host.returnParameters(HCI.LEReadChannelMap(connectionHandle: 0x0043))
        #expect(channelMap.status == .unknownConnectionIdentifier)
        #expect(channelMap.connectionHandle == 0x0043)
        let negativeReply = try host.returnParameters(
            HCI.LERemoteConnectionParameterRequestNegativeReply(connectionHandle: 0x0044))
        #expect(negativeReply.status == .unknownConnectionIdentifier)
        #expect(negativeReply.connectionHandle == 0x0044)
        #expect(host.status(HCI.LEReadRemoteFeatures(connectionHandle: 0x0042)) == .unknownConnectionIdentifier)
        #expect(
            host.status(HCI.LEConnectionUpdate(connectionHandle: 0x42, connectionParameters: Scenario.parameters))
                == .unknownConnectionIdentifier)
    }
}
