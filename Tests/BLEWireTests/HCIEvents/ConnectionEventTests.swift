import BLEWire
import Testing

@Suite("HCI connection, encryption and flow-control events (Core 5.4 Vol 4 Part E §7.7)")
struct ConnectionEventTests {
    /// One value of every non-LE event this version decodes (and raw ones).
    static let events: [HCIEvent] = [
        .disconnectionComplete(.init(connectionHandle: 0x0EFF, reason: .remoteUserTerminatedConnection)),
        .disconnectionComplete(
            .init(status: .commandDisallowed, connectionHandle: 0x0001, reason: .unspecifiedError)),
        .encryptionChange(.init(connectionHandle: 0x0040, encryptionEnabled: .on)),
        .encryptionChange(.init(status: .pinOrKeyMissing, connectionHandle: 0x0040, encryptionEnabled: .off)),
        .encryptionChange(.init(connectionHandle: 0x0040, encryptionEnabled: .other(0x07))),
        .encryptionChangeV2(
            .init(connectionHandle: 0x0040, encryptionEnabled: .onAESCCM, encryptionKeySize: 16)),
        .readRemoteVersionInformationComplete(
            .init(connectionHandle: 0x0041, version: 0x0D, manufacturerName: 0x0059, subversion: 0x1234)),
        .commandComplete(.init(HCI.Reset.self, returnParameters: .init(status: .success))),
        .commandComplete(
            .init(numHCICommandPackets: 0, opcode: HCIOpcode(rawValue: 0), returnParameters: [])),
        .commandStatus(.init(HCI.Reset.self, status: .commandDisallowed)),
        .hardwareError(.init(hardwareCode: 0x42)),
        .numberOfCompletedPackets(.init(entries: [])),
        .numberOfCompletedPackets(
            .init(entries: [
                .init(connectionHandle: 0x0040, numCompletedPackets: 1),
                .init(connectionHandle: 0x0041, numCompletedPackets: 3),
            ])),
        .dataBufferOverflow(.init(linkType: .synchronous)),
        .dataBufferOverflow(.init(linkType: .acl)),
        .dataBufferOverflow(.init(linkType: .isochronous)),
        .dataBufferOverflow(.init(linkType: .other(0x09))),
        .encryptionKeyRefreshComplete(.init(connectionHandle: 0x0040)),
        .unknown(code: 0xFF, parameters: [0x01, 0x02]),
        .unknown(code: 0x03, parameters: []),
    ]

    @Test("Every non-LE event round-trips: encode, decode, re-encode")
    func roundTrips() throws {
        for event in Self.events {
            try expectRoundTrip(event)
            #expect(try HCIEvent(event.packet) == event)
        }
    }

    @Test("§7.7.5: Disconnection Complete, byte-exact")
    func disconnectionComplete() throws {
        // Handle 0x0047 closed by the remote user (0x13), as after a peer disconnects.
        let bytes = hex("05 04 00 47 00 13")
        let event = try HCIEvent(decoding: bytes)
        #expect(
            event
                == .disconnectionComplete(
                    .init(connectionHandle: 0x0047, reason: .remoteUserTerminatedConnection)))
        #expect(event.encoded == bytes)
        expectDecodeError(
            HCIEvent.self, hex("05 03 00 47 00"), .truncated(needed: 1, available: 0), field: "Reason")
        expectDecodeError(
            HCIEvent.self, hex("05 02 00 47"), .truncated(needed: 2, available: 1), field: "Connection_Handle"
        )
        expectDecodeError(HCIEvent.self, hex("05 00"), .truncated(needed: 1, available: 0), field: "Status")
    }

    @Test("§5.4.2: the reserved top bits of Connection_Handle are ignored and written as zero")
    func connectionHandleReservedBits() throws {
        let event = try HCIEvent(decoding: hex("05 04 00 47 f0 13"))
        guard case .disconnectionComplete(let payload) = event else {
            Issue.record("expected Disconnection Complete")
            return
        }
        #expect(payload.connectionHandle == 0x0047)
        #expect(event.encoded == hex("05 04 00 47 00 13"))
        let built = HCIEvent.encryptionKeyRefreshComplete(.init(connectionHandle: 0xF040))
        #expect(built.encoded == hex("30 03 00 40 00"))
    }

    @Test("§7.7.8: Encryption Change v1 (0x08) and v2 (0x59, with key size), byte-exact")
    func encryptionChange() throws {
        let v1 = try HCIEvent(decoding: hex("08 04 00 40 00 01"))
        #expect(v1 == .encryptionChange(.init(connectionHandle: 0x0040, encryptionEnabled: .on)))
        let v2Bytes = hex("59 05 00 40 00 01 10")
        let v2 = try HCIEvent(decoding: v2Bytes)
        guard case .encryptionChangeV2(let payload) = v2 else {
            Issue.record("expected Encryption Change v2")
            return
        }
        #expect(payload.encryptionKeySize == 16)
        #expect(payload.encryptionEnabled.isEncrypted)
        #expect(payload.v1 == .init(connectionHandle: 0x0040, encryptionEnabled: .on))
        #expect(v2.encoded == v2Bytes)
        #expect(HCIEvent.EncryptionEnabled(rawValue: 0x02) == .onAESCCM)
        #expect(!HCIEvent.EncryptionEnabled.off.isEncrypted)
        expectDecodeError(
            HCIEvent.self, hex("59 04 00 40 00 01"), .truncated(needed: 1, available: 0),
            field: "Encryption_Key_Size")
        expectDecodeError(
            HCIEvent.self, hex("08 03 00 40 00"), .truncated(needed: 1, available: 0),
            field: "Encryption_Enabled")
    }

    @Test("§7.7.39: Encryption Key Refresh Complete, byte-exact")
    func keyRefresh() throws {
        let event = try HCIEvent(decoding: hex("30 03 00 40 00"))
        #expect(event == .encryptionKeyRefreshComplete(.init(connectionHandle: 0x0040)))
        expectDecodeError(
            HCIEvent.self, hex("30 02 00 40"), .truncated(needed: 2, available: 1), field: "Connection_Handle"
        )
    }

    @Test("§7.7.12: Read Remote Version Information Complete, byte-exact")
    func remoteVersion() throws {
        // LL version 0x0D (Core 5.4), company 0x0059 (Nordic Semiconductor), subversion 0x1234.
        let bytes = hex("0c 08 00 41 00 0d 59 00 34 12")
        let event = try HCIEvent(decoding: bytes)
        #expect(
            event
                == .readRemoteVersionInformationComplete(
                    .init(
                        connectionHandle: 0x0041, version: 0x0D, manufacturerName: 0x0059, subversion: 0x1234)
                ))
        #expect(event.encoded == bytes)
        expectDecodeError(
            HCIEvent.self, hex("0c 07 00 41 00 0d 59 00 34"), .truncated(needed: 2, available: 1),
            field: "Subversion")
    }

    @Test("§7.7.19: Number Of Completed Packets with one handle, from a real trace")
    func completedPacketsOneHandle() throws {
        // hcidump: "> HCI Event: Number of Completed Packets (0x13) plen 5 / handle 42 packets 1".
        let bytes = hex("13 05 01 2a 00 01 00")
        let event = try HCIEvent(decoding: bytes)
        #expect(
            event
                == .numberOfCompletedPackets(
                    .init(entries: [.init(connectionHandle: 42, numCompletedPackets: 1)])))
        #expect(event.encoded == bytes)
    }

    @Test("§7.7.19: Number Of Completed Packets with two handles, pairs interleaved")
    func completedPacketsTwoHandles() throws {
        let bytes = hex("13 09 02 40 00 01 00 41 00 03 00")
        let event = try HCIEvent(decoding: bytes)
        guard case .numberOfCompletedPackets(let payload) = event else {
            Issue.record("expected Number Of Completed Packets")
            return
        }
        #expect(
            payload.entries == [
                .init(connectionHandle: 0x0040, numCompletedPackets: 1),
                .init(connectionHandle: 0x0041, numCompletedPackets: 3),
            ])
        #expect(payload.totalCompletedPackets == 4)
        #expect(event.encoded == bytes)
    }

    @Test("§7.7.19: Num_Handles larger than the pairs present is a typed error")
    func completedPacketsCountMismatch() {
        expectDecodeError(
            HCIEvent.self, hex("13 05 02 40 00 01 00"), .truncated(needed: 8, available: 4),
            field: "Num_Handles")
        expectDecodeError(
            HCIEvent.self, hex("13 01 ff"), .truncated(needed: 1020, available: 0), field: "Num_Handles")
        expectDecodeError(
            HCIEvent.self, hex("13 00"), .truncated(needed: 1, available: 0), field: "Num_Handles")
        // Fewer handles than pairs present: the extra octets are ignored like any appended ones.
        #expect(
            (try? HCIEvent(decoding: hex("13 09 01 40 00 01 00 41 00 03 00")))
                == .numberOfCompletedPackets(
                    .init(entries: [.init(connectionHandle: 0x40, numCompletedPackets: 1)])))
    }

    @Test("§7.7.16 and §7.7.26: Hardware Error and Data Buffer Overflow, byte-exact")
    func hardwareErrorAndOverflow() throws {
        #expect(try HCIEvent(decoding: hex("10 01 00")) == .hardwareError(.init(hardwareCode: 0)))
        #expect(try HCIEvent(decoding: hex("1a 01 01")) == .dataBufferOverflow(.init(linkType: .acl)))
        #expect(try HCIEvent(decoding: hex("1a 01 00")) == .dataBufferOverflow(.init(linkType: .synchronous)))
        expectDecodeError(
            HCIEvent.self, hex("10 00"), .truncated(needed: 1, available: 0), field: "Hardware_Code")
        expectDecodeError(
            HCIEvent.self, hex("1a 00"), .truncated(needed: 1, available: 0), field: "Link_Type")
    }

    @Test("Every fixed-size event cut short anywhere is a typed error")
    func everyTruncation() {
        let vectors = [
            "05 04 00 47 00 13", "08 04 00 40 00 01", "59 05 00 40 00 01 10", "30 03 00 40 00",
            "0c 08 00 41 00 0d 59 00 34 12", "0f 04 00 01 0d 20", "10 01 00", "1a 01 01",
            "13 09 02 40 00 01 00 41 00 03 00",
        ]
        for vector in vectors {
            let bytes = hex(vector)
            for cut in 0..<(bytes.count - 2) {
                let packet = [bytes[0], UInt8(cut)] + bytes[2..<(2 + cut)]
                #expect(throws: DecodeError.self, "\(vector) cut to \(cut)") {
                    try HCIEvent(decoding: packet)
                }
            }
        }
    }
}
