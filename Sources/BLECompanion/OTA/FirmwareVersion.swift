/// A firmware version, "MAJOR.MINOR.PATCH", each part 0–255 (one byte each on the wire).
public struct FirmwareVersion: Sendable, Hashable, Comparable, CustomStringConvertible, Codable {
    public var major: UInt8
    public var minor: UInt8
    public var patch: UInt8

    public init(major: UInt8, minor: UInt8, patch: UInt8) {
        self.major = major
        self.minor = minor
        self.patch = patch
    }

    /// Parses "MAJOR.MINOR.PATCH": exactly three decimal parts, digits only, each 0–255.
    public init(parsing text: String) throws(FirmwareImageError) {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3 else { throw .versionFormat(text) }
        var numbers: [UInt8] = []
        for part in parts {
            // At most three digits, so the value cannot overflow before the range check.
            guard (1...3).contains(part.utf8.count), part.utf8.allSatisfy({ (0x30...0x39).contains($0) }),
                let number = UInt16(part), number <= 255
            else { throw .versionFormat(text) }
            numbers.append(UInt8(number))
        }
        self.init(major: numbers[0], minor: numbers[1], patch: numbers[2])
    }

    public var description: String { "\(major).\(minor).\(patch)" }

    public static func < (lhs: FirmwareVersion, rhs: FirmwareVersion) -> Bool {
        (lhs.major, lhs.minor, lhs.patch) < (rhs.major, rhs.minor, rhs.patch)
    }
}
