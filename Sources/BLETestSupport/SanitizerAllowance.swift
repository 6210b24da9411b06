import Foundation

/// How much slower than a normal build the tests may run: `BLE_TEST_TIME_SCALE` (a whole number,
/// 1 when unset), which `scripts/sanitize` sets because AddressSanitizer and ThreadSanitizer make
/// every real-time path several times slower.
///
/// Only real-time liveness bounds scale with it — a host's HCI command timeout over a socket or a
/// serial line, which a sanitized build misses while nothing is wrong. No test asserts a speed,
/// and nothing on virtual time scales.
package enum SanitizerAllowance {
    package static let scale: Int = {
        guard let text = ProcessInfo.processInfo.environment["BLE_TEST_TIME_SCALE"], let value = Int(text), value >= 1
        else { return 1 }
        return value
    }()

    /// `duration` scaled for the build under test.
    package static func scaled(_ duration: Duration) -> Duration { duration * scale }

    /// The HCI command timeout of a test's host whose controller is across a real socket, a
    /// serial line or another process: 5 s (the host's default is 1 s), scaled. A shared machine
    /// can stall a loopback round trip past a second while nothing is wrong; a controller that
    /// never answers still fails the test.
    package static var remoteControllerCommandTimeout: Duration { scaled(.seconds(5)) }
}
