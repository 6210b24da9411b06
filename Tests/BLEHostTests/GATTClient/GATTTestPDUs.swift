import BLEWire

@testable import BLEHost

/// Builders for the PDUs the scripted tests expect and answer with.
enum PDUs {
    static func groupType(_ start: UInt16, _ end: UInt16 = 0xFFFF) -> ATTPDU {
        ATT.ReadByGroupTypeRequest(startingHandle: start, endingHandle: end, attributeGroupType: 0x2800).pdu
    }

    /// A Read By Group Type Response of (handle, end group handle, service UUID).
    static func services(_ entries: [(UInt16, UInt16, BluetoothUUID)]) -> ATTPDU {
        ATT.ReadByGroupTypeResponse(
            entries: entries.map {
                .init(handle: $0.0, endGroupHandle: $0.1, value: FakeGATTServer.octets($0.2)[...])
            })!
            .pdu
    }

    static func readByType(_ start: UInt16, _ end: UInt16, _ type: BluetoothUUID) -> ATTPDU {
        ATT.ReadByTypeRequest(startingHandle: start, endingHandle: end, attributeType: type).pdu
    }

    /// A Read By Type Response of (handle, value).
    static func values(_ entries: [(UInt16, [UInt8])]) -> ATTPDU {
        ATT.ReadByTypeResponse(entries: entries.map { .init(handle: $0.0, value: $0.1[...]) })!.pdu
    }

    /// A Read By Type Response of characteristic declarations (handle, properties, value handle, UUID).
    static func declarations(_ entries: [(UInt16, CharacteristicProperties, UInt16, BluetoothUUID)]) -> ATTPDU {
        values(entries.map { ($0.0, [$0.1.declaredOctet] + FakeGATTServer.le($0.2) + FakeGATTServer.octets($0.3)) })
    }

    static func findInformation(_ start: UInt16, _ end: UInt16) -> ATTPDU {
        ATT.FindInformationRequest(startingHandle: start, endingHandle: end).pdu
    }

    static func information(_ entries: [(UInt16, BluetoothUUID)]) -> ATTPDU {
        ATT.FindInformationResponse(entries: entries.map { .init(handle: $0.0, uuid: $0.1) })!.pdu
    }

    static func read(_ handle: UInt16) -> ATTPDU { ATT.ReadRequest(handle: handle).pdu }

    static func readResponse(_ value: [UInt8]) -> ATTPDU { ATT.ReadResponse(value: value[...]).pdu }

    static func blob(_ handle: UInt16, _ offset: Int) -> ATTPDU {
        ATT.ReadBlobRequest(handle: handle, valueOffset: UInt16(offset)).pdu
    }

    static func blobResponse(_ value: [UInt8]) -> ATTPDU { ATT.ReadBlobResponse(partValue: value[...]).pdu }

    static func prepare(_ handle: UInt16, _ offset: Int, _ part: [UInt8]) -> ATTPDU {
        ATT.PrepareWriteRequest(handle: handle, valueOffset: UInt16(offset), partValue: part[...]).pdu
    }

    static func prepared(_ handle: UInt16, _ offset: Int, _ part: [UInt8]) -> ATTPDU {
        ATT.PrepareWriteResponse(handle: handle, valueOffset: UInt16(offset), partValue: part[...]).pdu
    }

    static func execute(_ flags: ATT.ExecuteWriteRequest.Flags) -> ATTPDU { ATT.ExecuteWriteRequest(flags: flags).pdu }

    static let executed = ATT.ExecuteWriteResponse().pdu

    static func write(_ handle: UInt16, _ value: [UInt8]) -> ATTPDU {
        ATT.WriteRequest(handle: handle, value: value[...]).pdu
    }

    static let written = ATT.WriteResponse().pdu
}

/// `count` octets counting up from `start`, wrapping.
func ramp(_ count: Int, from start: Int = 0) -> [UInt8] {
    (0..<count).map { UInt8(truncatingIfNeeded: start + $0) }
}
