import BLETestSupport
import BLEWire
import Logging
import Testing

@testable import BLETransport

/// A socket transport logs how its stream ended: a framing error at `.warning`, the peer
/// hanging up at `.notice`.
@Suite("Socket transport logging", .timeLimit(.minutes(1)))
struct TransportLoggingTests {
    @Test("A stream that cannot be framed is logged with its reason; the other side logs the hang-up")
    func framingErrorAndHangUp() async throws {
        let serverLog = LogRecorder()
        let clientLog = LogRecorder()
        let server = try await TCPServerTransport.listen(host: "127.0.0.1", port: 0, logger: serverLog.logger())
        let client = try await TCPClientTransport.connect(
            host: "127.0.0.1", port: server.boundPort, logger: clientLog.logger())
        try await server.waitForController()
        try await client.write(raw: [0xFF])
        var received = server.packets.makeAsyncIterator()
        await #expect(throws: HCITransportError.self) { _ = try await received.next() }
        var clientSide = client.packets.makeAsyncIterator()
        await #expect(throws: HCITransportError.closed) { _ = try await clientSide.next() }
        #expect(serverLog.lines(atLeast: .warning).map(\.message).contains { $0.contains("unknown packet type 0xFF") })
        #expect(clientLog.lines(atLeast: .notice).map(\.message).contains { $0.contains("closed the link") })
        await client.close()
        await server.close()
    }
}
