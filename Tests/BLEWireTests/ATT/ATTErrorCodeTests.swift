import BLEWire
import Testing

@Suite("ATT error codes (Core 5.4 Vol 3 Part F §3.4.1.1 Table 3.4; CSS Part B §1.2)")
struct ATTErrorCodeTests {
    @Test("Table 3.4: 0x01–0x13 are named protocol errors")
    func protocolErrors() {
        let expected: [(ATTErrorCode, UInt8, String)] = [
            (.invalidHandle, 0x01, "Invalid Handle"),
            (.readNotPermitted, 0x02, "Read Not Permitted"),
            (.writeNotPermitted, 0x03, "Write Not Permitted"),
            (.invalidPDU, 0x04, "Invalid PDU"),
            (.insufficientAuthentication, 0x05, "Insufficient Authentication"),
            (.requestNotSupported, 0x06, "Request Not Supported"),
            (.invalidOffset, 0x07, "Invalid Offset"),
            (.insufficientAuthorization, 0x08, "Insufficient Authorization"),
            (.prepareQueueFull, 0x09, "Prepare Queue Full"),
            (.attributeNotFound, 0x0A, "Attribute Not Found"),
            (.attributeNotLong, 0x0B, "Attribute Not Long"),
            (.encryptionKeySizeTooShort, 0x0C, "Encryption Key Size Too Short"),
            (.invalidAttributeValueLength, 0x0D, "Invalid Attribute Value Length"),
            (.unlikelyError, 0x0E, "Unlikely Error"),
            (.insufficientEncryption, 0x0F, "Insufficient Encryption"),
            (.unsupportedGroupType, 0x10, "Unsupported Group Type"),
            (.insufficientResources, 0x11, "Insufficient Resources"),
            (.databaseOutOfSync, 0x12, "Database Out Of Sync"),
            (.valueNotAllowed, 0x13, "Value Not Allowed"),
        ]
        for (code, raw, name) in expected {
            #expect(code.rawValue == raw)
            #expect(code.name == name)
            #expect(code.category == .protocolError)
        }
        #expect(ATTErrorCode.attributeNotFound.description == "Attribute Not Found (0x0A)")
    }

    @Test("Table 3.4: 0x80–0x9F are Application Errors, recognized as a range")
    func applicationErrors() {
        for raw in UInt8(0x80)...0x9F {
            let code = ATTErrorCode(raw)
            #expect(code.isApplicationError)
            #expect(code.name == "Application Error")
        }
        #expect(ATTErrorCode.applicationError(0x05) == ATTErrorCode(0x85))
        #expect(ATTErrorCode.applicationError(0x20) == nil)
        #expect(ATTErrorCode(0x85).description == "Application Error (0x85)")
        #expect(!ATTErrorCode(0x7F).isApplicationError && !ATTErrorCode(0xA0).isApplicationError)
    }

    @Test("CSS Part B §1.2: 0xFC–0xFF are named, 0xE0–0xFB reserved in the common range")
    func commonProfileErrors() {
        #expect(ATTErrorCode.writeRequestRejected.rawValue == 0xFC)
        #expect(ATTErrorCode.writeRequestRejected.name == "Write Request Rejected")
        #expect(ATTErrorCode.cccdImproperlyConfigured.rawValue == 0xFD)
        #expect(
            ATTErrorCode.cccdImproperlyConfigured.name
                == "Client Characteristic Configuration Descriptor Improperly Configured")
        #expect(ATTErrorCode.procedureAlreadyInProgress.rawValue == 0xFE)
        #expect(ATTErrorCode.procedureAlreadyInProgress.name == "Procedure Already in Progress")
        #expect(ATTErrorCode.outOfRange.rawValue == 0xFF)
        #expect(ATTErrorCode.outOfRange.name == "Out of Range")
        for raw in UInt8(0xE0)...0xFF {
            #expect(ATTErrorCode(raw).category == .commonProfileAndServiceError)
        }
        #expect(ATTErrorCode(0xE0).name == nil)
        #expect(ATTErrorCode(0xE0).description == "Reserved (0xE0)")
    }

    @Test("Table 3.4: reserved values stay representable and render as Reserved")
    func reserved() {
        for raw: UInt8 in [0x00, 0x14, 0x7F, 0xA0, 0xDF] {
            let code = ATTErrorCode(raw)
            #expect(code.category == .reserved)
            #expect(code.name == nil)
        }
        #expect(ATTErrorCode(rawValue: 0x14).description == "Reserved (0x14)")
        #expect(Rendering.text(ATTErrorCode.invalidPDU) == "Invalid PDU (0x04)")
    }
}
