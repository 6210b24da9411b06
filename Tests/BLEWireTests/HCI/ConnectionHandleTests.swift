import Testing

@testable import BLEWire

@Suite("Connection_Handle (Core 5.4 Vol 4 Part E §5.4.2)")
struct ConnectionHandleTests {
    @Test("§5.4.2: 12 bits, valid in 0x0000–0x0EFF; any value is kept")
    func range() {
        #expect(ConnectionHandle(0x0000).isValid)
        #expect(ConnectionHandle(0x0EFF).isValid)
        #expect(ConnectionHandle.maximum == 0x0EFF)
        #expect(!ConnectionHandle(0x0F00).isValid)
        #expect(!ConnectionHandle(0xFFFF).isValid)
        #expect(ConnectionHandle(rawValue: 0x1234).rawValue == 0x1234)
    }

    @Test("A literal is a handle; handles order by value and render as the number they are")
    func literalOrderAndRendering() {
        let handle: ConnectionHandle = 0x0040
        #expect(handle == ConnectionHandle(0x0040))
        #expect([ConnectionHandle(0x0041), 0x0040].sorted() == [0x0040, 0x0041])
        #expect(handle.description == "0x0040")
        #expect(Rendering.render(handle) == .unsigned(0x40))
    }
}
