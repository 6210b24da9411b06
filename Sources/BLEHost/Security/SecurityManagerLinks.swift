import BLEWire

/// Each link's Security Manager (Core 5.4 Vol 3 Part H §3): filled by the pairing work.
struct SecurityManagerLinks {}
