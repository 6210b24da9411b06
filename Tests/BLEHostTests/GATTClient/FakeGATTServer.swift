import BLEWire

@testable import BLEHost

/// A database described the way a profile describes it; `FakeGATTServer` numbers its handles.
struct FakeService {
    var uuid: BluetoothUUID
    var isPrimary = true
    /// Indices, in the server's service list, of the services this one includes.
    var includes: [Int] = []
    var characteristics: [FakeCharacteristic] = []
    /// Unused handles left before this service's declaration.
    var gapBefore: UInt16 = 0
}

struct FakeCharacteristic {
    var uuid: BluetoothUUID
    var properties: CharacteristicProperties = [.read, .write]
    var value: [UInt8] = []
    var readable = true
    var writable = true
    var descriptors: [FakeDescriptor] = []
}

struct FakeDescriptor {
    var uuid: BluetoothUUID
    var value: [UInt8] = []
}

/// A small honest ATT server over an in-memory database (Core 5.4 Vol 3 Part F §3.4): every
/// answer fits the ATT_MTU, lists stop at the first entry of another length or format, and a
/// range with nothing left is Attribute Not Found. It records the requests it answered.
actor FakeGATTServer: ATTClientBearer {
    struct Attribute {
        var handle: UInt16
        var type: BluetoothUUID
        var value: [UInt8]
        /// The group's last handle, for service declarations.
        var groupEnd: UInt16?
        var readable = true
        var writable = false
    }

    nonisolated let mtu: Int
    private(set) var attributes: [Attribute] = []
    private(set) var requests: [ATTPDU] = []
    private(set) var commands: [ATTPDU] = []
    private var queue: [ATT.PrepareWriteRequest] = []
    /// Answer Invalid Offset, rather than an empty part, to a Read Blob at the value's end.
    var invalidOffsetAtEnd = false

    init(mtu: Int, services: [FakeService]) {
        self.mtu = mtu
        self.attributes = Self.layout(services)
    }

    /// Replaces the database (the server's services changed).
    func replace(with services: [FakeService]) {
        attributes = Self.layout(services)
    }

    func forgetRequests() { requests = [] }

    func setWritable(_ writable: Bool, at handle: UInt16) {
        if let index = index(of: handle) { attributes[index].writable = writable }
    }

    func value(at handle: UInt16) -> [UInt8]? { attributes.first { $0.handle == handle }?.value }

    // MARK: Layout

    /// Numbers the attributes of `services` from 0x0001 in order.
    static func layout(_ services: [FakeService]) -> [Attribute] {
        // First pass: each service's range, so that includes can name later services.
        var ranges: [ClosedRange<UInt16>] = []
        var next: UInt16 = 1
        for service in services {
            let start = next + service.gapBefore
            var count = 1 + service.includes.count
            for characteristic in service.characteristics { count += 2 + characteristic.descriptors.count }
            ranges.append(start...(start + UInt16(count) - 1))
            next = start + UInt16(count)
        }
        var attributes: [Attribute] = []
        for (index, service) in services.enumerated() {
            var handle = ranges[index].lowerBound
            func add(_ type: UInt16, _ value: [UInt8], groupEnd: UInt16? = nil) {
                attributes.append(
                    Attribute(handle: handle, type: BluetoothUUID(type), value: value, groupEnd: groupEnd))
                handle += 1
            }
            add(service.isPrimary ? 0x2800 : 0x2801, octets(service.uuid), groupEnd: ranges[index].upperBound)
            for included in service.includes {
                let range = ranges[included]
                var value = le(range.lowerBound) + le(range.upperBound)
                if services[included].uuid.uuid16 != nil { value += octets(services[included].uuid) }
                add(0x2802, value)
            }
            for characteristic in service.characteristics {
                add(0x2803, [characteristic.properties.declaredOctet] + le(handle + 1) + octets(characteristic.uuid))
                attributes.append(
                    Attribute(
                        handle: handle, type: characteristic.uuid, value: characteristic.value,
                        readable: characteristic.readable, writable: characteristic.writable))
                handle += 1
                for descriptor in characteristic.descriptors {
                    attributes.append(
                        Attribute(handle: handle, type: descriptor.uuid, value: descriptor.value, writable: true))
                    handle += 1
                }
            }
        }
        return attributes
    }

    static func octets(_ uuid: BluetoothUUID) -> [UInt8] {
        var writer = ByteWriter()
        uuid.encodeATT(into: &writer)
        return writer.bytes
    }

    static func le(_ value: UInt16) -> [UInt8] { [UInt8(truncatingIfNeeded: value), UInt8(value >> 8)] }

    // MARK: ATTClientBearer

    func command(_ pdu: ATTPDU) async throws(ATTBearerError) {
        commands.append(pdu)
        switch pdu {
        case .writeCommand(let write):
            if let index = index(of: write.handle), attributes[index].writable {
                attributes[index].value = Array(write.value)
            }
        case .signedWriteCommand(let write):
            // The signature is the test's business (it checks `commands`); the value is applied.
            if let index = index(of: write.handle), attributes[index].writable {
                attributes[index].value = Array(write.value)
            }
        default:
            throw .protocolViolation("\(pdu.opcode) is not a command")
        }
    }

    func request(_ pdu: ATTPDU) async throws(ATTBearerError) -> ATTPDU {
        requests.append(pdu)
        let answer = respond(to: pdu)
        guard answer.encoded.count <= mtu else { throw .pduTooLong(length: answer.encoded.count, mtu: mtu) }
        return answer
    }

    private func respond(to pdu: ATTPDU) -> ATTPDU {
        switch pdu {
        case .readByGroupTypeRequest(let request):
            readByGroupType(request)
        case .readByTypeRequest(let request):
            readByType(request)
        case .findInformationRequest(let request):
            findInformation(request)
        case .findByTypeValueRequest(let request):
            findByTypeValue(request)
        case .readRequest(let request):
            read(request.handle, offset: 0, pdu.opcode)
        case .readBlobRequest(let request):
            read(request.handle, offset: Int(request.valueOffset), pdu.opcode)
        case .readMultipleRequest(let request):
            readMultiple(Array(request.setOfHandles), variable: false)
        case .readMultipleVariableRequest(let request):
            readMultiple(Array(request.setOfHandles), variable: true)
        case .writeRequest(let request):
            write(request)
        case .prepareWriteRequest(let request):
            prepare(request)
        case .executeWriteRequest(let request):
            execute(request)
        default:
            error(pdu.opcode, 0, .requestNotSupported)
        }
    }

    // MARK: Answers

    private func error(_ opcode: ATTOpcode, _ handle: UInt16, _ code: ATTErrorCode) -> ATTPDU {
        ATT.ErrorResponse(requestOpcode: opcode, handle: handle, errorCode: code).pdu
    }

    private func index(of handle: UInt16) -> Int? { attributes.firstIndex { $0.handle == handle } }

    private func inRange(_ start: UInt16, _ end: UInt16) -> [Attribute] {
        attributes.filter { $0.handle >= start && $0.handle <= end }
    }

    private func readByGroupType(_ request: ATT.ReadByGroupTypeRequest) -> ATTPDU {
        let opcode = ATTOpcode.readByGroupTypeRequest
        let start = request.startingHandle
        guard start != 0, start <= request.endingHandle else { return error(opcode, start, .invalidHandle) }
        let type = request.attributeGroupType
        guard type == BluetoothUUID(0x2800) || type == BluetoothUUID(0x2801) else {
            return error(opcode, start, .unsupportedGroupType)
        }
        let found = inRange(start, request.endingHandle).filter { $0.type == type }
        guard let first = found.first else { return error(opcode, start, .attributeNotFound) }
        let length = min(first.value.count, mtu - 6, 251)
        var entries: [ATT.ReadByGroupTypeResponse.Entry] = []
        for attribute in found {
            // A run of equally long values: the first of another length ends the response.
            guard min(attribute.value.count, mtu - 6, 251) == length, 2 + (entries.count + 1) * (4 + length) <= mtu
            else { break }
            entries.append(
                .init(
                    handle: attribute.handle, endGroupHandle: attribute.groupEnd ?? attribute.handle,
                    value: attribute.value.prefix(length)))
        }
        return ATT.ReadByGroupTypeResponse(entries: entries)!.pdu
    }

    private func readByType(_ request: ATT.ReadByTypeRequest) -> ATTPDU {
        let opcode = ATTOpcode.readByTypeRequest
        let start = request.startingHandle
        guard start != 0, start <= request.endingHandle else { return error(opcode, start, .invalidHandle) }
        let found = inRange(start, request.endingHandle).filter { $0.type == request.attributeType }
        guard let first = found.first else { return error(opcode, start, .attributeNotFound) }
        guard first.readable else { return error(opcode, first.handle, .readNotPermitted) }
        let length = min(first.value.count, mtu - 4, 253)
        var entries: [ATT.ReadByTypeResponse.Entry] = []
        for attribute in found {
            guard attribute.readable, min(attribute.value.count, mtu - 4, 253) == length,
                2 + (entries.count + 1) * (2 + length) <= mtu
            else { break }
            entries.append(.init(handle: attribute.handle, value: attribute.value.prefix(length)))
        }
        return ATT.ReadByTypeResponse(entries: entries)!.pdu
    }

    private func findInformation(_ request: ATT.FindInformationRequest) -> ATTPDU {
        let opcode = ATTOpcode.findInformationRequest
        let start = request.startingHandle
        guard start != 0, start <= request.endingHandle else { return error(opcode, start, .invalidHandle) }
        let found = inRange(start, request.endingHandle)
        guard let first = found.first else { return error(opcode, start, .attributeNotFound) }
        let short = first.type.uuid16 != nil
        let stride = short ? 4 : 18
        var entries: [ATT.FindInformationResponse.Entry] = []
        for attribute in found {
            guard (attribute.type.uuid16 != nil) == short, 2 + (entries.count + 1) * stride <= mtu else { break }
            entries.append(.init(handle: attribute.handle, uuid: attribute.type))
        }
        return ATT.FindInformationResponse(format: short ? .uuid16 : .uuid128, entries: entries)!.pdu
    }

    private func findByTypeValue(_ request: ATT.FindByTypeValueRequest) -> ATTPDU {
        let opcode = ATTOpcode.findByTypeValueRequest
        let start = request.startingHandle
        guard start != 0, start <= request.endingHandle else { return error(opcode, start, .invalidHandle) }
        let found = inRange(start, request.endingHandle).filter {
            $0.type == request.attributeTypeUUID && $0.value[...] == request.value
        }
        guard !found.isEmpty else { return error(opcode, start, .attributeNotFound) }
        let entries = found.prefix((mtu - 1) / 4).map {
            ATT.FindByTypeValueResponse.Entry(foundAttributeHandle: $0.handle, groupEndHandle: $0.groupEnd ?? $0.handle)
        }
        return ATT.FindByTypeValueResponse(entries: Array(entries))!.pdu
    }

    private func read(_ handle: UInt16, offset: Int, _ opcode: ATTOpcode) -> ATTPDU {
        guard let index = index(of: handle) else { return error(opcode, handle, .invalidHandle) }
        let attribute = attributes[index]
        guard attribute.readable else { return error(opcode, handle, .readNotPermitted) }
        let value = attribute.value
        guard offset <= value.count else { return error(opcode, handle, .invalidOffset) }
        if opcode == .readBlobRequest, offset == value.count, invalidOffsetAtEnd {
            return error(opcode, handle, .invalidOffset)
        }
        let part = value[offset...].prefix(mtu - 1)
        return opcode == .readRequest ? ATT.ReadResponse(value: part).pdu : ATT.ReadBlobResponse(partValue: part).pdu
    }

    private func readMultiple(_ handles: [UInt16], variable: Bool) -> ATTPDU {
        let opcode: ATTOpcode = variable ? .readMultipleVariableRequest : .readMultipleRequest
        var values: [ArraySlice<UInt8>] = []
        for handle in handles {
            guard let index = index(of: handle) else { return error(opcode, handle, .invalidHandle) }
            guard attributes[index].readable else { return error(opcode, handle, .readNotPermitted) }
            values.append(attributes[index].value[...])
        }
        if variable {
            return ATT.ReadMultipleVariableResponse(values: values, maximumListLength: mtu - 1)!.pdu
        }
        return ATT.ReadMultipleResponse(setOfValues: Array(values.joined()).prefix(mtu - 1)).pdu
    }

    private func write(_ request: ATT.WriteRequest) -> ATTPDU {
        let opcode = ATTOpcode.writeRequest
        guard let index = index(of: request.handle) else { return error(opcode, request.handle, .invalidHandle) }
        guard attributes[index].writable else { return error(opcode, request.handle, .writeNotPermitted) }
        guard request.value.count <= 512 else { return error(opcode, request.handle, .invalidAttributeValueLength) }
        attributes[index].value = Array(request.value)
        return ATT.WriteResponse().pdu
    }

    private func prepare(_ request: ATT.PrepareWriteRequest) -> ATTPDU {
        let opcode = ATTOpcode.prepareWriteRequest
        guard let index = index(of: request.handle) else { return error(opcode, request.handle, .invalidHandle) }
        guard attributes[index].writable else { return error(opcode, request.handle, .writeNotPermitted) }
        queue.append(request)
        return ATT.PrepareWriteResponse(echoing: request).pdu
    }

    private func execute(_ request: ATT.ExecuteWriteRequest) -> ATTPDU {
        defer { queue = [] }
        guard request.flags == .write else { return ATT.ExecuteWriteResponse().pdu }
        var pending: [UInt16: [UInt8]] = [:]
        for part in queue {
            var value = pending[part.handle] ?? (self.value(at: part.handle) ?? [])
            let offset = Int(part.valueOffset)
            guard offset <= value.count else { return error(.executeWriteRequest, part.handle, .invalidOffset) }
            value = Array(value.prefix(offset)) + part.partValue
            guard value.count <= 512 else {
                return error(.executeWriteRequest, part.handle, .invalidAttributeValueLength)
            }
            pending[part.handle] = value
        }
        for (handle, value) in pending {
            if let index = index(of: handle) { attributes[index].value = value }
        }
        return ATT.ExecuteWriteResponse().pdu
    }
}
