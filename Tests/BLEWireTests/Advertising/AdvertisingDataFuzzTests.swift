import BLEWire
import PropertyBased
import Testing

@Suite("Advertising data on random input (Core 5.4 Vol 3 Part C §11)")
struct AdvertisingDataFuzzTests {
    /// Well-framed random blocks: each chunk is a type octet (biased toward the known types)
    /// and random data, with a correct Length in front, so the type checks are exercised.
    static let framedBlocks = Gen.uint8().array(of: 1...20).array(of: 0...6).map { chunks -> [UInt8] in
        var out: [UInt8] = []
        for chunk in chunks {
            var chunk = chunk
            chunk[0] = chunk[0] < 0xF0 ? chunk[0] % 0x40 : 0xFF
            out.append(UInt8(chunk.count))
            out.append(contentsOf: chunk)
        }
        return out
    }

    /// Everything a caller might do with a decoded block; none of it may trap.
    static func exercise(_ data: AdvertisingData) {
        _ = data.description
        _ = data.json
        _ = data.localName
        _ = data.flags
        _ = data.serviceUUIDs
        _ = data.solicitedServiceUUIDs
        _ = data.manufacturerData
        _ = data.serviceData
        _ = data.txPowerLevel
        _ = data.appearance
        _ = data.padded()
    }

    @Test("Random bytes never trap the block or structure decoders")
    func randomBytesNeverTrap() async {
        await propertyCheck(count: 3000, input: randomBytes) { bytes in
            expectNoTrap(AdvertisingData.self, bytes)
            expectNoTrap(ADStructure.self, bytes)
            if let data = try? AdvertisingData(decoding: bytes) {
                Self.exercise(data)
                #expect(data.structures.count == data.count)
            }
        }
    }

    @Test("Every decoded typed value re-encodes to structures with the same meaning")
    func typedValuesReencode() async {
        await propertyCheck(count: 3000, input: Self.framedBlocks) { bytes in
            guard let data = try? AdvertisingData(decoding: bytes) else { return }
            Self.exercise(data)
            #expect(data.encoded == bytes)
            for structure in data.structures {
                let value = structure.value
                guard let again = try? AdvertisingData(ADStructure.structures(for: value)) else {
                    Issue.record("\(value) did not re-encode")
                    continue
                }
                switch value {
                case .serviceUUIDs(_, let uuids):
                    // Widths may split one list into several.
                    #expect(again.serviceUUIDs == uuids)
                case .solicitedServiceUUIDs(let uuids):
                    #expect(again.solicitedServiceUUIDs == uuids)
                default:
                    #expect(again.values == [value], "\(structure)")
                }
            }
        }
    }

    @Test("Random framed blocks decode whenever every known type's length rule holds")
    func framedBlocksMostlyDecode() async {
        await propertyCheck(count: 2000, input: Self.framedBlocks) { bytes in
            do throws(AdvertisingDataDecodeError) {
                let data = try AdvertisingData.decode(bytes)
                #expect(data.bytes.count == bytes.count)
            } catch {
                // Framing is correct, so only a type's data rule can fail, never the Length.
                #expect(error.error.field.description != "Length")
                #expect(error.type != nil)
            }
        }
    }
}
