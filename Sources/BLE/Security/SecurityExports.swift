// The privacy settings and the bond file an app meets (with the rest of the security values
// in Exports.swift).
@_exported import struct BLEHost.PrivacyPolicy
