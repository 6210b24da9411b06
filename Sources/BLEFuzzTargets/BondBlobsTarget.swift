import BLE
import BLEWire

/// A bond's GATT state as `SQLiteBondStore` keeps it (`BondBlobs`): a bond file can be damaged or
/// edited, so its blobs are untrusted input. The first octet picks the form (even: a bonded
/// client's state, odd: a database cache); the rest is the blob.
///
/// Promises checked: any octets give a value or a `DecodeError`; a value encodes back to the
/// same octets (the form has one encoding per value), which decode to an equal value.
enum BondBlobsTarget {
    static func run(_ bytes: [UInt8]) throws(FuzzFailure) {
        guard let selector = bytes.first else { return }
        let blob = Array(bytes.dropFirst())
        if selector & 1 == 0 {
            guard let state = try? BondBlobs.clientState(blob) else { return }
            let encoded = BondBlobs.encode(state)
            try require(encoded == blob, "a client state re-encodes differently")
            try require((try? BondBlobs.clientState(encoded)) == state, "a client state does not round-trip")
        } else {
            guard let cache = try? BondBlobs.databaseCache(blob) else { return }
            let encoded = BondBlobs.encode(cache)
            try require(encoded == blob, "a database cache re-encodes differently")
            try require((try? BondBlobs.databaseCache(encoded)) == cache, "a database cache does not round-trip")
        }
    }
}
