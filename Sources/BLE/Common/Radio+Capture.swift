import BLETransport

extension Radio {
    /// This radio with its host's HCI traffic recorded into a new btsnoop file at `path`
    /// (created or truncated now); the radio unchanged when `path` is nil — the plumbing of a
    /// command's `--capture FILE`:
    ///
    ///     let radio = try Radio.virtual(air).capturing(toFile: options.capture)
    ///     …
    ///     if let error = radio.capture?.close() { print("warning: \(error)") }
    public func capturing(toFile path: String?) throws(PacketCaptureError) -> Radio {
        guard let path else { return self }
        return .captured(self, into: try PacketCapture(path: path))
    }

    /// The capture this radio records into (the outermost, when captures are nested).
    public var capture: PacketCapture? {
        if case .captured(_, let capture) = self { capture } else { nil }
    }
}
