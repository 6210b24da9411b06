import BLEHost
import BLEWire
import Testing

@testable import BLE

@Suite("GATT security through the public API (Core 5.4 Vol 3 Part F §3.2.5, §3.4.1.1; Part C §10.3)")
struct GATTSecurityTests {
    @Test("Part C §10.3.2: Insufficient Encryption makes the central encrypt with its bond and retry the read once")
    func insufficientEncryptionRetried() async throws {
        try await TwoDevices.run { devices in
            // The peripheral knows the bond from the start (so it answers 0x0F, not 0x05); the
            // central learns it only once connected, so it does not encrypt on its own first.
            try await devices.seedBonds(onCentral: false)
            let (peripheral, characteristics) = try await devices.connectToSecured()
            let handle = try await devices.handle(of: peripheral)
            #expect(await devices.centralHost.security(of: handle) == .none)
            try await devices.seedBonds(onPeripheral: false)
            let encrypted = try #require(characteristics[SecurityFixture.encryptedUUID])
            #expect(try await peripheral.readValue(for: encrypted) == [0xE1])
            #expect(await devices.centralHost.security(of: handle).isEncrypted)
        }
    }

    @Test("Part F §3.4.1.1: Insufficient Authentication with no bond and no pairing surfaces with the pairing error")
    func insufficientAuthenticationSurfaces() async throws {
        try await TwoDevices.run { devices in
            // Pairing is refused by the peripheral's agent (and not built before the SMP work):
            // the read fails with the ATT error and the pairing error, after one attempt.
            await devices.peripheralHost.setPairingAgent(RecordingAgent(grants: true))
            let (peripheral, characteristics) = try await devices.connectToSecured()
            let authenticated = try #require(characteristics[SecurityFixture.authenticatedUUID])
            do throws(BLEError) {
                _ = try await peripheral.readValue(for: authenticated)
                Issue.record("the read succeeded")
            } catch {
                guard case .insufficientSecurity(let code, let handle, _) = error else {
                    Issue.record("unexpected error \(error)")
                    return
                }
                #expect(code == .insufficientAuthentication)
                #expect(handle == authenticated.handle)
            }
        }
    }

    @Test("Part F §3.4.4.3: a key shorter than the server's minimum is 0x0C; raising fails without pairing")
    func keySizeTooShort() async throws {
        try await TwoDevices.run { devices in
            // Bonds with a 7-octet key: the central encrypts with it at connection; the
            // peripheral's minimum is the policy's (16). Pairing is declined by the peripheral.
            try await devices.seedBonds(keySize: 7)
            await devices.peripheralHost.setPairingAgent(RecordingAgent(grants: true))
            let (peripheral, characteristics) = try await devices.connectToSecured()
            let handle = try await devices.handle(of: peripheral)
            _ = try await devices.centralHost.encrypt(handle)
            let encrypted = try #require(characteristics[SecurityFixture.encryptedUUID])
            do throws(BLEError) {
                _ = try await peripheral.readValue(for: encrypted)
                Issue.record("the read succeeded")
            } catch {
                guard case .insufficientSecurity(.encryptionKeySizeTooShort, encrypted.handle, _) = error else {
                    Issue.record("unexpected error \(error)")
                    return
                }
            }
        }
    }

    @Test("Part F §3.2.5: authorization is asked of the peripheral's pairing agent per access; refused, 0x08")
    func authorizationByAgent() async throws {
        try await TwoDevices.run { devices in
            let refusing = RecordingAgent(grants: false)
            await devices.peripheralHost.setPairingAgent(refusing)
            let (peripheral, characteristics) = try await devices.connectToSecured()
            let authorized = try #require(characteristics[SecurityFixture.authorizedUUID])
            await #expect(throws: BLEError.att(.insufficientAuthorization, handle: authorized.handle)) {
                try await peripheral.readValue(for: authorized)
            }
            #expect(refusing.requests.map(\.attribute.characteristicUUID) == [SecurityFixture.authorizedUUID])
            #expect(refusing.requests.first?.access == .read)
            #expect(refusing.requests.first?.peer == (await devices.centralHost.ownAddress))
            let granting = RecordingAgent(grants: true)
            await devices.peripheralHost.setPairingAgent(granting)
            #expect(try await peripheral.readValue(for: authorized) == [0x0A])
            #expect(granting.requests.count == 1)
        }
    }

    @Test("notifyEncryptionRequired: subscribing needs encryption; the central encrypts from its bond and retries")
    func notifyEncryptionRequired() async throws {
        try await TwoDevices.run { devices in
            try await devices.seedBonds(onCentral: false)
            let (peripheral, characteristics) = try await devices.connectToSecured()
            let stream = try #require(characteristics[SecurityFixture.protectedStreamUUID])
            // The declaration carries notify: the central sees a notifying characteristic.
            #expect(stream.properties.contains(.notify))
            try await devices.seedBonds(onPeripheral: false)
            try await peripheral.setNotifyValue(true, for: stream)
            let handle = try await devices.handle(of: peripheral)
            #expect(await devices.centralHost.security(of: handle).isEncrypted)
        }
    }
}

@Suite("Signed Write Command as a client (Core 5.4 Vol 3 Part G §4.9.2; Part F §3.4.5.4; Part H §2.4.5)")
struct SignedWriteClientTests {
    @Test(
        "Part H §2.4.5: on an unencrypted bonded link the write is signed with the CSRK and the counter goes up in the bond"
    )
    func signedOnUnencryptedLink() async throws {
        try await TwoDevices.run { devices in
            // Bonds holding the central's CSRK and no LTK: the link stays unencrypted.
            try await devices.seedBonds(withLTK: false, signing: true)
            let manager = devices.peripheralManager
            let received = devices.spawn {
                var values: [[UInt8]] = []
                for await requests in manager.writeRequests {
                    values.append(requests.compactMap(\.value).flatMap { $0 })
                    if values.count == 2 { break }
                }
                return values
            }
            let (peripheral, characteristics) = try await devices.connectToSecured()
            let handle = try await devices.handle(of: peripheral)
            let signed = try #require(characteristics[SecurityFixture.signedUUID])
            try await peripheral.writeValue([1, 2], for: signed, type: .withoutResponse)
            try await peripheral.writeValue([3], for: signed, type: .withoutResponse)
            // The server took both (a verified signature stands for the encryption the value
            // needs); the link was never encrypted.
            #expect(try await received.value == [[1, 2], [3]])
            #expect(await devices.centralHost.security(of: handle).isEncrypted == false)
            #expect(await devices.centralBond()?.localSignCounter == 2)
            // The server's last counter is saved in its bond at disconnection.
            await devices.central.cancelPeripheralConnection(peripheral)
            #expect(await devices.peripheralBond()?.peerSignCounter == 1)
        }
    }

    @Test("Part G §4.9.2: on an encrypted link a plain Write Command is sent, and the counter stays")
    func plainOnEncryptedLink() async throws {
        try await TwoDevices.run { devices in
            try await devices.seedBonds(signing: true)
            let manager = devices.peripheralManager
            let received = devices.spawn {
                for await requests in manager.writeRequests { return requests.first?.value }
                return nil
            }
            let (peripheral, characteristics) = try await devices.connectToSecured()
            let handle = try await devices.handle(of: peripheral)
            _ = try await devices.centralHost.encrypt(handle)
            let signed = try #require(characteristics[SecurityFixture.signedUUID])
            try await peripheral.writeValue([9], for: signed, type: .withoutResponse)
            #expect(try await received.value == [9])
            #expect(await devices.centralBond()?.localSignCounter == 0)
        }
    }
}
