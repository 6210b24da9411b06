import BLECompanion
import BLELocking
import Foundation

/// The OTA progress on standard error: on a terminal, one line redrawn in place (bar, percent,
/// bytes, rate, ETA); otherwise a plain line at every tenth of the image and at each phase
/// change, so a log stays short.
final class OTAProgressBar: Sendable {
    private struct State {
        var lastTenth = -1
        var lastPhase: OTAPhase?
        var drewLine = false
    }

    let totalBytes: Int
    let isTerminal: Bool
    private let state = Locked(State())

    init(totalBytes: Int, isTerminal: Bool = isatty(STDERR_FILENO) != 0) {
        self.totalBytes = totalBytes
        self.isTerminal = isTerminal
    }

    func draw(_ progress: OTAProgress) {
        if isTerminal {
            write("\r" + Self.line(progress, barWidth: 30) + "\u{1B}[K")
            state.withLock { $0.drewLine = true }
            return
        }
        let tenth = progress.totalBytes > 0 ? progress.bytesSent * 10 / progress.totalBytes : 0
        let show = state.withLock { state in
            defer {
                state.lastTenth = max(state.lastTenth, tenth)
                state.lastPhase = progress.phase
            }
            return tenth > state.lastTenth || progress.phase != state.lastPhase
        }
        if show { write(Self.line(progress, barWidth: nil) + "\n") }
    }

    /// Ends the redrawn line.
    func finish() {
        if state.withLock({ $0.drewLine }) { write("\n") }
    }

    static func line(_ progress: OTAProgress, barWidth: Int?) -> String {
        let fraction = progress.totalBytes > 0 ? Double(progress.bytesSent) / Double(progress.totalBytes) : 0
        var parts: [String] = []
        if let barWidth {
            let filled = min(barWidth, Int(fraction * Double(barWidth)))
            parts.append(
                "[" + String(repeating: "#", count: filled) + String(repeating: ".", count: barWidth - filled) + "]")
        }
        parts.append(String(format: "%3d %%", Int(fraction * 100)))
        parts.append("\(progress.bytesSent)/\(progress.totalBytes) bytes")
        parts.append(rate(progress.bytesPerSecond))
        if let eta = progress.estimatedTimeRemaining {
            parts.append("ETA " + String(format: "%.1f s", seconds(eta)))
        }
        parts.append(phaseName(progress.phase))
        return parts.joined(separator: "  ")
    }

    static func phaseName(_ phase: OTAPhase) -> String {
        switch phase {
        case .starting: "starting"
        case .verifyingPrefix: "checking what the device holds"
        case .sending: "sending"
        case .committing: "verifying and swapping"
        case .recovering: "reconnecting"
        }
    }

    static func rate(_ bytesPerSecond: Double) -> String {
        bytesPerSecond >= 1000
            ? String(format: "%.1f kB/s", bytesPerSecond / 1000) : String(format: "%.0f B/s", bytesPerSecond)
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    private func write(_ text: String) {
        FileHandle.standardError.write(Data(text.utf8))
    }
}
