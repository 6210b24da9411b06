import BLEWire
import Testing

@testable import BLEController

@Suite("Encryption (Core 5.4 Vol 6 Part B §5.1.3, §5.1.4; Vol 4 Part E §7.8.24–§7.8.26)")
struct EncryptionTests {
    static let key = HCI.Key128(0x0123_4567_89AB_CDEF_FEDC_BA98_7654_3210)

    /// Starts encryption from the central and answers the peripheral's key request with `reply`
    /// (nil: negative reply). Returns the LTK request the peripheral's host saw.
    @discardableResult
    static func encrypt(
        _ central: TestHost, _ peripheral: TestHost, handles: (central: ConnectionHandle, peripheral: ConnectionHandle),
        centralKey: HCI.Key128 = key, reply: HCI.Key128?, random: UInt64 = 0x1122, diversifier: UInt16 = 0x33
    ) throws -> LEMetaEvent.LongTermKeyRequest {
        let mark = peripheral.events.count
        #expect(
            central.status(
                HCI.LEEnableEncryption(
                    connectionHandle: handles.central, randomNumber: random, encryptedDiversifier: diversifier,
                    longTermKey: centralKey)) == .success)
        let request = try #require(
            peripheral.waitForLE(after: mark) { e -> LEMetaEvent.LongTermKeyRequest? in
                if case .longTermKeyRequest(let r) = e { r } else { nil }
            })
        if let reply {
            let result = try peripheral.returnParameters(
                HCI.LELongTermKeyRequestReply(connectionHandle: handles.peripheral, longTermKey: reply))
            #expect(result.connectionHandle == handles.peripheral)
        } else {
            peripheral.expectSuccess(HCI.LELongTermKeyRequestNegativeReply(connectionHandle: handles.peripheral))
        }
        return request
    }

    static func encryptionChange(_ host: TestHost, after mark: Int) -> HCIEvent.EncryptionChange? {
        host.waitFor(after: mark) { e -> HCIEvent.EncryptionChange? in
            switch e {
            case .encryptionChange(let change): change
            case .encryptionChangeV2(let change): change.v1
            default: nil
            }
        }
    }

    @Test("Same key on both sides: Encryption Change (on) at both hosts; Rand and EDIV reach the peripheral")
    func matchingKeys() throws {
        let (_, central, peripheral, handles) = try LinkProcedureTests.pair()
        let cMark = central.events.count
        let pMark = peripheral.events.count
        let request = try Self.encrypt(central, peripheral, handles: handles, reply: Self.key)
        #expect(request.randomNumber == 0x1122 && request.encryptedDiversifier == 0x33)
        let c = try #require(Self.encryptionChange(central, after: cMark))
        let p = try #require(Self.encryptionChange(peripheral, after: pMark))
        #expect(c.status == .success && c.encryptionEnabled == .on && c.connectionHandle == handles.central)
        #expect(p.status == .success && p.encryptionEnabled == .on)
        central.run(for: .seconds(3))
        #expect(central.disconnections.isEmpty)
    }

    @Test("Encryption Change [v2] with the key size when the host unmasks it (§7.7.8)")
    func encryptionChangeV2() throws {
        let (_, central, peripheral, handles) = try LinkProcedureTests.pair()
        central.expectSuccess(HCI.SetEventMaskPage2(eventMaskPage2: .encryptionChangeV2))
        let mark = central.events.count
        try Self.encrypt(central, peripheral, handles: handles, reply: Self.key)
        let v2 = central.waitFor(after: mark) { e -> HCIEvent.EncryptionChangeV2? in
            if case .encryptionChangeV2(let change) = e { change } else { nil }
        }
        #expect(v2?.encryptionKeySize == 16 && v2?.encryptionEnabled == .on)
        #expect(!central.events[mark...].contains { if case .encryptionChange = $0.event { true } else { false } })
    }

    @Test("Different keys: both sides disconnect with 0x3D MIC Failure")
    func mismatchedKeys() throws {
        let (_, central, peripheral, handles) = try LinkProcedureTests.pair()
        try Self.encrypt(central, peripheral, handles: handles, reply: HCI.Key128(0xBAD))
        let c = try #require(central.waitForDisconnection(handles.central))
        let p = try #require(peripheral.waitForDisconnection(handles.peripheral))
        #expect(c.event.reason == .connectionTerminatedMICFailure)
        #expect(p.event.reason == .connectionTerminatedMICFailure)
        #expect(!central.events.contains { if case .encryptionChange = $0.event { true } else { false } })
    }

    @Test("LTK Negative Reply: Encryption Change 0x06 PIN or Key Missing at the central only")
    func negativeReply() throws {
        let (_, central, peripheral, handles) = try LinkProcedureTests.pair()
        let cMark = central.events.count
        let pMark = peripheral.events.count
        try Self.encrypt(central, peripheral, handles: handles, reply: nil)
        let c = try #require(Self.encryptionChange(central, after: cMark))
        #expect(c.status == .pinOrKeyMissing && c.encryptionEnabled == .off)
        peripheral.run(for: .milliseconds(300))
        #expect(!peripheral.events[pMark...].contains { if case .encryptionChange = $0.event { true } else { false } })
        #expect(central.disconnections.isEmpty)
    }

    @Test("A host that masks the LTK request gets no key request: the central sees 0x06")
    func maskedKeyRequest() throws {
        let (_, central, peripheral, handles) = try LinkProcedureTests.pair()
        peripheral.expectSuccess(HCI.LESetEventMask(leEventMask: .connectionComplete))
        let mark = central.events.count
        #expect(
            central.status(HCI.LEEnableEncryption(connectionHandle: handles.central, longTermKey: Self.key)) == .success
        )
        let c = try #require(Self.encryptionChange(central, after: mark))
        #expect(c.status == .pinOrKeyMissing)
    }

    @Test("Re-encrypting an encrypted link: Encryption Key Refresh Complete on both sides")
    func keyRefresh() throws {
        let (_, central, peripheral, handles) = try LinkProcedureTests.pair()
        try Self.encrypt(central, peripheral, handles: handles, reply: Self.key)
        _ = Self.encryptionChange(central, after: 0)
        let cMark = central.events.count
        let pMark = peripheral.events.count
        let newKey = HCI.Key128(0x5555)
        try Self.encrypt(central, peripheral, handles: handles, centralKey: newKey, reply: newKey)
        let c = central.waitFor(after: cMark) { e -> HCIEvent.EncryptionKeyRefreshComplete? in
            if case .encryptionKeyRefreshComplete(let r) = e { r } else { nil }
        }
        let p = peripheral.waitFor(after: pMark) { e -> HCIEvent.EncryptionKeyRefreshComplete? in
            if case .encryptionKeyRefreshComplete(let r) = e { r } else { nil }
        }
        #expect(c?.status == .success && c?.connectionHandle == handles.central)
        #expect(p?.status == .success && p?.connectionHandle == handles.peripheral)
        #expect(!central.events[cMark...].contains { if case .encryptionChange = $0.event { true } else { false } })
    }

    @Test("Only the central starts encryption; one procedure at a time (0x0C)")
    func rules() throws {
        let (_, central, peripheral, handles) = try LinkProcedureTests.pair()
        #expect(
            peripheral.status(HCI.LEEnableEncryption(connectionHandle: handles.peripheral, longTermKey: Self.key))
                == .commandDisallowed)
        #expect(
            central.status(HCI.LEEnableEncryption(connectionHandle: handles.central, longTermKey: Self.key)) == .success
        )
        #expect(
            central.status(HCI.LEEnableEncryption(connectionHandle: handles.central, longTermKey: Self.key))
                == .commandDisallowed)
        #expect(
            peripheral.complete(HCI.LELongTermKeyRequestReply(connectionHandle: 0x0EEE, longTermKey: Self.key)).status
                == .unknownConnectionIdentifier)
    }
}
