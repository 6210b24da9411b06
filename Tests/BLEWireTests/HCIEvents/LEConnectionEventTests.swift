import BLEWire
import Testing

@Suite("HCI LE Meta connection and security subevents (Core 5.4 Vol 4 Part E §7.7.65)")
struct LEConnectionEventTests {
    static let peer = LEAddress(BluetoothAddress(0x11_22_33_44_55_66), type: .publicIdentity)
    static let localRPA = BluetoothAddress(0x4A_BB_CC_DD_EE_FF)
    static let peerRPA = BluetoothAddress(0x5B_11_22_33_44_55)
    static let key = ArraySlice((0..<32).map { UInt8($0) })

    static let enhanced = LEMetaEvent.EnhancedConnectionComplete(
        connectionHandle: 0x0040, role: .peripheral, peerAddress: peer,
        localResolvablePrivateAddress: localRPA, peerResolvablePrivateAddress: peerRPA,
        connectionInterval: 0x0018, peripheralLatency: 0, supervisionTimeout: 0x01F4,
        centralClockAccuracy: 0x01)

    /// One value of every LE connection-related subevent.
    static let events: [LEMetaEvent] = [
        .connectionComplete(
            .init(
                connectionHandle: 0x0047, role: .central, peerAddress: LEAddress(.zero, type: .random),
                connectionInterval: 0x0038, peripheralLatency: 0, supervisionTimeout: 0x002A,
                centralClockAccuracy: 0)),
        .connectionComplete(
            .init(
                status: .connectionFailedToBeEstablished, connectionHandle: 0, role: .other(0x02),
                peerAddress: LEAddress(.zero, type: .other(0x09)), connectionInterval: 0,
                peripheralLatency: 0,
                supervisionTimeout: 0, centralClockAccuracy: 0x07)),
        .enhancedConnectionComplete(enhanced),
        .enhancedConnectionCompleteV2(.init(enhanced, advertisingHandle: 0x00, syncHandle: 0xFFFF)),
        .connectionUpdateComplete(
            .init(
                connectionHandle: 0x0040, connectionInterval: 6, peripheralLatency: 4, supervisionTimeout: 100
            )),
        .readRemoteFeaturesComplete(.init(connectionHandle: 0x0040, leFeatures: 0x0000_0000_0001_79FF)),
        .longTermKeyRequest(
            .init(connectionHandle: 0x0040, randomNumber: 0x0102_0304_0506_0708, encryptedDiversifier: 0xBEEF)
        ),
        .longTermKeyRequest(.init(connectionHandle: 0x0001)),
        .remoteConnectionParameterRequest(
            .init(connectionHandle: 0x0040, intervalMin: 6, intervalMax: 12, maxLatency: 0, timeout: 200)),
        .dataLengthChange(
            .init(connectionHandle: 0, maxTxOctets: 251, maxTxTime: 2120, maxRxOctets: 27, maxRxTime: 328)),
        .readLocalP256PublicKeyComplete(.init(keyXCoordinate: key, keyYCoordinate: key.reversed()[...])),
        .generateDHKeyComplete(.init(status: .invalidHCICommandParameters, dhKey: key)),
        .phyUpdateComplete(.init(connectionHandle: 0x0040, txPHY: PHY.le2M.hci, rxPHY: PHY.codedS2.hci)),
        .phyUpdateComplete(.init(connectionHandle: 0x0040, txPHY: PHY.le1M.hci, rxPHY: .init(rawValue: 0x00))),
        .channelSelectionAlgorithm(.init(connectionHandle: 0x0040, channelSelectionAlgorithm: .algorithm2)),
        .channelSelectionAlgorithm(.init(connectionHandle: 0x0040, channelSelectionAlgorithm: .other(5))),
        .scanTimeout,
        .unknown(subevent: 0x19, parameters: [0x00, 0x01]),
        .unknown(subevent: 0xFE, parameters: []),
    ]

    @Test("Every LE connection and security subevent round-trips inside an LE Meta event")
    func roundTrips() throws {
        for event in Self.events {
            try expectRoundTrip(event)
            try expectRoundTrip(HCIEvent.le(event))
            #expect(HCIEvent.le(event).encoded[0] == 0x3E)
            #expect(HCIEvent.le(event).encoded[2] == event.subeventCode)
        }
    }

    @Test("§7.7.65.1: LE Connection Complete from a real btmon trace")
    func connectionCompleteVector() throws {
        // btmon, gatttool connecting to a TI device: "LE Connection Complete (0x01) / Handle: 71 /
        // Role: Master / Peer address: 34:B1:F7:D5:59:64 / Connection interval: 70.00 msec (0x0038)
        // / Supervision timeout: 420 msec (0x002a)", raw "04 3e 13 01 00 47 00 00 00 64 59 d5 ...".
        let bytes = hex("3e 13 01 00 47 00 00 00 64 59 d5 f7 b1 34 38 00 00 00 2a 00 00")
        let event = try HCIEvent(decoding: bytes)
        guard case .le(.connectionComplete(let complete)) = event else {
            Issue.record("expected LE Connection Complete, got \(event)")
            return
        }
        #expect(complete.status == .success)
        #expect(complete.connectionHandle == 71)
        #expect(complete.role == .central)
        #expect(complete.peerAddress == LEAddress(BluetoothAddress(0x34_B1_F7_D5_59_64), type: .public))
        #expect(complete.connectionIntervalMilliseconds == 70)
        #expect(complete.peripheralLatency == 0)
        #expect(complete.supervisionTimeoutMilliseconds == 420)
        #expect(LEMetaEvent.clockAccuracyPPM(complete.centralClockAccuracy) == 500)
        #expect(event.encoded == bytes)
        #expect(LEMetaEvent.EnhancedConnectionComplete(complete).peerResolvablePrivateAddress == .zero)
    }

    @Test("§7.7.65.10: LE Enhanced Connection Complete v1 (0x0A) and v2 (0x29), byte-exact")
    func enhancedConnectionComplete() throws {
        // Derived from the §7.7.65.10 table: peripheral, peer resolved to its public identity.
        let v1Bytes = hex(
            "3e 1f 0a 00 40 00 01 02 66 55 44 33 22 11 ff ee dd cc bb 4a 55 44 33 22 11 5b"
                + " 18 00 00 00 f4 01 01")
        let v1 = try HCIEvent(decoding: v1Bytes)
        #expect(v1 == .le(.enhancedConnectionComplete(Self.enhanced)))
        #expect(v1.encoded == v1Bytes)
        #expect(Self.enhanced.connectionIntervalMilliseconds == 30)
        #expect(Self.enhanced.supervisionTimeoutMilliseconds == 5000)

        let v2Bytes = hex(
            "3e 22 29 00 40 00 01 02 66 55 44 33 22 11 ff ee dd cc bb 4a 55 44 33 22 11 5b"
                + " 18 00 00 00 f4 01 01 00 ff ff")
        let v2 = try HCIEvent(decoding: v2Bytes)
        guard case .le(.enhancedConnectionCompleteV2(let payload)) = v2 else {
            Issue.record("expected v2, got \(v2)")
            return
        }
        #expect(payload.v1 == Self.enhanced)
        #expect(payload.advertisingHandle == 0)
        #expect(payload.syncHandle == 0xFFFF)
        #expect(v2.encoded == v2Bytes)
        expectDecodeError(
            HCIEvent.self, Array(v2Bytes.dropLast()).replacing(at: 1, with: 0x21),
            .truncated(needed: 2, available: 1), field: "Sync_Handle")
        expectDecodeError(
            HCIEvent.self, Array(v1Bytes.prefix(22)).replacing(at: 1, with: 20),
            .truncated(needed: 6, available: 2), field: "Peer_Resolvable_Private_Address")
    }

    @Test("§7.7.65.7: LE Data Length Change, byte-exact")
    func dataLengthChange() throws {
        // Values from a btmon trace on the Zephyr users list (nRF52840 peer, handle 0): TX raised
        // to 251 octets, RX left at 27; times are (octets + 14) × 8 µs on LE 1M.
        let bytes = hex("3e 0b 07 00 00 fb 00 48 08 1b 00 48 01")
        let event = try HCIEvent(decoding: bytes)
        #expect(
            event
                == .le(
                    .dataLengthChange(
                        .init(
                            connectionHandle: 0, maxTxOctets: 251, maxTxTime: 2120, maxRxOctets: 27,
                            maxRxTime: 328))))
        #expect(event.encoded == bytes)
        expectDecodeError(
            HCIEvent.self, hex("3e 0a 07 00 00 fb 00 48 08 1b 00 48"), .truncated(needed: 2, available: 1),
            field: "Max_RX_Time")
    }

    @Test("§7.7.65.3 and §7.7.65.6: connection update and remote parameter request, byte-exact")
    func connectionParameters() throws {
        let update = try HCIEvent(decoding: hex("3e 0a 03 00 40 00 06 00 04 00 64 00"))
        #expect(
            update
                == .le(
                    .connectionUpdateComplete(
                        .init(
                            connectionHandle: 0x40, connectionInterval: 6, peripheralLatency: 4,
                            supervisionTimeout: 100))))
        let request = try HCIEvent(decoding: hex("3e 0b 06 40 00 06 00 0c 00 00 00 c8 00"))
        guard case .le(.remoteConnectionParameterRequest(let payload)) = request else {
            Issue.record("expected Remote Connection Parameter Request")
            return
        }
        #expect(payload.intervalMinMilliseconds == 7.5)
        #expect(payload.intervalMaxMilliseconds == 15)
        #expect(payload.timeoutMilliseconds == 2000)
        expectDecodeError(
            HCIEvent.self, hex("3e 0a 06 40 00 06 00 0c 00 00 00 c8"), .truncated(needed: 2, available: 1),
            field: "Timeout")
    }

    @Test("§7.7.65.4 and §7.7.65.5: remote features and LTK request, byte-exact")
    func featuresAndLongTermKeyRequest() throws {
        let features = try HCIEvent(decoding: hex("3e 0c 04 00 40 00 ff 79 01 00 00 00 00 00"))
        guard case .le(.readRemoteFeaturesComplete(let payload)) = features else {
            Issue.record("expected Read Remote Features Complete")
            return
        }
        #expect(payload.leFeatures == 0x0001_79FF)
        #expect(payload.supports(bit: 0))
        #expect(payload.supports(bit: 16))
        #expect(!payload.supports(bit: 17))
        #expect(!payload.supports(bit: 64))
        let ltk = try HCIEvent(decoding: hex("3e 0d 05 40 00 08 07 06 05 04 03 02 01 ef be"))
        #expect(
            ltk
                == .le(
                    .longTermKeyRequest(
                        .init(
                            connectionHandle: 0x40, randomNumber: 0x0102_0304_0506_0708,
                            encryptedDiversifier: 0xBEEF))))
        expectDecodeError(
            HCIEvent.self, hex("3e 0b 05 40 00 08 07 06 05 04 03 02 01"), .truncated(needed: 2, available: 0),
            field: "Encrypted_Diversifier")
        expectDecodeError(
            HCIEvent.self, hex("3e 0a 04 00 40 00 ff 79 01 00 00 00"), .truncated(needed: 8, available: 6),
            field: "LE_Features")
    }

    @Test("§7.7.65.8 and §7.7.65.9: P-256 public key and DHKey are 32-octet slices of the input")
    func keys() throws {
        let x = (0..<32).map { UInt8($0) }
        let y = (0..<32).map { UInt8(0xFF - $0) }
        let bytes = [0x3E, 66, 0x08, 0x00] + x + y
        let event = try HCIEvent(decoding: bytes)
        guard case .le(.readLocalP256PublicKeyComplete(let payload)) = event else {
            Issue.record("expected P-256 key")
            return
        }
        #expect(Array(payload.keyXCoordinate) == x)
        #expect(Array(payload.keyYCoordinate) == y)
        #expect(payload.keyXCoordinate.startIndex == 4)
        #expect(event.encoded == bytes)
        expectDecodeError(
            HCIEvent.self, Array(bytes.dropLast()).replacing(at: 1, with: 65),
            .truncated(needed: 32, available: 31),
            field: "Key_Y_Coordinate")
        let dh = try HCIEvent(decoding: [0x3E, 34, 0x09, 0x00] + x)
        #expect(dh == .le(.generateDHKeyComplete(.init(dhKey: x[...]))))
        expectDecodeError(
            HCIEvent.self, [0x3E, 2, 0x09, 0x00], .truncated(needed: 32, available: 0), field: "DH_Key")
        // Encoding always writes 32 octets: short keys padded with zeros, long ones cut.
        let short = LEMetaEvent.generateDHKeyComplete(.init(dhKey: [0x01]))
        #expect(short.encoded == [0x09, 0x00, 0x01] + Array(repeating: 0, count: 31))
        let long = LEMetaEvent.generateDHKeyComplete(.init(dhKey: ArraySlice(repeating: 0xAA, count: 40)))
        #expect(long.encoded.count == 34)
    }

    @Test("§7.7.65.12 and §7.7.65.20: PHY update and channel selection algorithm, byte-exact")
    func phyAndChannelSelection() throws {
        let phy = try HCIEvent(decoding: hex("3e 06 0c 00 40 00 02 02"))
        #expect(phy == .le(.phyUpdateComplete(.init(connectionHandle: 0x40, txPHY: PHY.le2M.hci, rxPHY: PHY.le2M.hci))))
        let csa = try HCIEvent(decoding: hex("3e 04 14 40 00 01"))
        #expect(
            csa
                == .le(
                    .channelSelectionAlgorithm(
                        .init(connectionHandle: 0x40, channelSelectionAlgorithm: .algorithm2))))
        #expect(PHY.HCIValue(rawValue: 0x03) == PHY.codedS8.hci && PHY.codedS2.hci == PHY.codedS8.hci)
        #expect(PHY.HCIValue(rawValue: 0x03).phy(coded: .codedS2) == .codedS2)
        #expect(PHY.HCIValue(rawValue: 0x04).phy() == nil && PHY.HCIValue(rawValue: 0x04).rawValue == 0x04)
        expectDecodeError(
            HCIEvent.self, hex("3e 05 0c 00 40 00 02"), .truncated(needed: 1, available: 0), field: "RX_PHY")
        expectDecodeError(
            HCIEvent.self, hex("3e 03 14 40 00"), .truncated(needed: 1, available: 0),
            field: "Channel_Selection_Algorithm")
    }

    @Test("§7.7.65: an LE Meta event needs its Subevent_Code; unknown subevents are kept raw")
    func metaEventFraming() throws {
        expectDecodeError(
            HCIEvent.self, hex("3e 00"), .truncated(needed: 1, available: 0), field: "Subevent_Code")
        let unknown = try HCIEvent(decoding: hex("3e 03 1a 01 02"))
        #expect(unknown == .le(.unknown(subevent: 0x1A, parameters: [0x01, 0x02])))
        #expect(LEMetaEvent.name(ofSubevent: 0x1A) == "LE CIS Request")
        #expect(try HCIEvent(decoding: hex("3e 01 11")) == .le(.scanTimeout))
        // Appended octets after a known subevent are ignored, as for every event.
        #expect(try HCIEvent(decoding: hex("3e 02 11 ff")) == .le(.scanTimeout))
    }

    @Test("LE subevents render with their field names")
    func rendering() throws {
        let event = try HCIEvent(decoding: hex("3e 06 0c 00 40 00 02 03"))
        #expect(
            event.description
                == "le.phyUpdateComplete { status: Success (0x00), connectionHandle: 64, "
                + "txPHY: LE 2M, rxPHY: LE Coded }")
    }
}

extension Array where Element == UInt8 {
    /// A copy with the octet at `index` replaced (to fix up a length field in a test vector).
    /// File-private so that other suites may declare helpers of their own.
    fileprivate func replacing(at index: Int, with value: UInt8) -> [UInt8] {
        var copy = self
        copy[index] = value
        return copy
    }
}
