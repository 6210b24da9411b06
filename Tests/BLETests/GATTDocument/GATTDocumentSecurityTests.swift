import BLE
import Testing

@Suite("The GATT description's security (Core 5.4 Vol 3 Part F §3.2.5; docs/gatt-json.md)")
struct GATTDocumentSecurityTests {
    private func characteristic(_ json: String) throws -> MutableCharacteristic {
        let document = try GATTDocument.parse(
            Array((#"{"services":[{"uuid":"FAA0","characteristics":["# + json + "]}]}").utf8))
        return try #require(document.services.first?.definition.characteristics.first)
    }

    @Test("Permissions name the security each access needs; notifyEncryptionRequired declares notify")
    func securityPermissions() throws {
        let parsed = try characteristic(
            #"{"uuid":"2A37","properties":["read","notifyEncryptionRequired"],"#
                + #""permissions":["readAuthenticationRequired","readAuthorizationRequired"]}"#)
        #expect(parsed.properties == [.read, .notify, .notifyEncryptionRequired])
        #expect(parsed.permissions == [.readAuthenticationRequired, .readAuthorizationRequired])
        let indicated = try characteristic(#"{"uuid":"2A38","properties":["indicateEncryptionRequired"]}"#)
        #expect(indicated.properties == [.indicate, .indicateEncryptionRequired])
    }

    @Test("An unknown security name is a typed error at its path, listing the names allowed")
    func badSecurityName() {
        let error = #expect(throws: GATTDocumentParseError.self) {
            try characteristic(#"{"uuid":"2A37","properties":["read"],"permissions":["readEncrypted"]}"#)
        }
        #expect(error?.description.contains(#"permissions[0]: unknown permission "readEncrypted""#) == true)
        #expect(error?.description.contains("readEncryptionRequired") == true)
        let property = #expect(throws: GATTDocumentParseError.self) {
            try characteristic(#"{"uuid":"2A37","properties":["notifyEncrypted"]}"#)
        }
        #expect(property?.description.contains("notifyEncryptionRequired") == true)
    }
}
