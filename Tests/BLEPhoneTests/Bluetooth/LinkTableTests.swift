import BLE
import Foundation
import Testing

@testable import BLEPhone

/// The system's shared links as a value, one input at a time (our model of bluetoothd sharing
/// links between apps; Core Bluetooth Programming Guide, "Core Bluetooth Background Processing
/// for iOS Apps" for pending connects and alerts).
@Suite("Phone: LinkTable")
struct LinkTableTests {
    let device = UUID()
    let first = ClientKey(AppIdentifier("a.first"), ManagerID(role: .central, restoreIdentifier: nil, serial: 1))
    let second = ClientKey(AppIdentifier("b.second"), ManagerID(role: .central, restoreIdentifier: nil, serial: 1))

    @Test("One attempt for every app waiting; its success tells each of them")
    func oneAttemptForAll() {
        var table = LinkTable()
        let r1 = table.connect(first, to: device, options: .init(), linkUp: false)
        #expect(r1 == [.startAttempt(device)])
        let r2 = table.connect(second, to: device, options: .init(), linkUp: false)
        #expect(r2 == [])
        let r3 = table.attemptSucceeded(device, rank: [:])
        #expect(
            r3 == [
                .connected(first, device, alert: false), .connected(second, device, alert: false),
            ])
        #expect(table.hold(of: device, by: second)?.state == .connected)
    }

    @Test("A link another app holds is the new app's at once")
    func linkAlreadyUp() {
        var table = LinkTable()
        _ = table.connect(first, to: device, options: .init(), linkUp: false)
        _ = table.attemptSucceeded(device, rank: [:])
        let r4 = table.connect(second, to: device, options: .init(), linkUp: true)
        #expect(r4 == [.connected(second, device, alert: false)])
    }

    @Test("A cancel ends only the app's hold; the last holder's cancel ends the link")
    func cancelKeepsSharedLink() {
        var table = LinkTable()
        _ = table.connect(first, to: device, options: .init(), linkUp: false)
        _ = table.connect(second, to: device, options: .init(), linkUp: false)
        _ = table.attemptSucceeded(device, rank: [:])
        let r5 = table.cancel(first, device)
        #expect(r5 == [.disconnected(first, device, alert: false, cancelled: true)])
        let r6 = table.cancel(second, device)
        #expect(r6 == [.endLink(device), .disconnected(second, device, alert: false, cancelled: true)])
        #expect(table.holders(of: device).isEmpty)
    }

    @Test(
        "The configuration is written by the first subscriber and cleared by the last; a leaving app clears it when it was last"
    )
    func subscriptions() {
        var table = LinkTable()
        let key = CharacteristicKey(peripheral: device, valueHandle: 0x12)
        _ = table.connect(first, to: device, options: .init(), linkUp: false)
        _ = table.connect(second, to: device, options: .init(), linkUp: false)
        _ = table.attemptSucceeded(device, rank: [:])
        let r7 = table.setNotify(true, first, key)
        #expect(r7)
        let r8 = table.setNotify(true, second, key)
        #expect(!r8)
        let r9 = table.setNotify(false, first, key)
        #expect(!r9)
        let r10 = table.clientEnded(second)
        #expect(r10 == [.writeConfiguration(key, false)])
        #expect(table.holders(of: device) == [first])
    }

    @Test("A lost link tells its holders, alerting only the most recently foregrounded that asked; subscriptions end")
    func linkLost() {
        var table = LinkTable()
        let notify = PhoneConnectOptions(notifyOnDisconnection: true)
        _ = table.connect(first, to: device, options: notify, linkUp: false)
        _ = table.connect(second, to: device, options: notify, linkUp: false)
        _ = table.attemptSucceeded(device, rank: [:])
        _ = table.setNotify(true, first, CharacteristicKey(peripheral: device, valueHandle: 1))
        let rank = [first.app: 2, second.app: 1]
        let r11 = table.linkLost(device, rank: rank)
        #expect(
            r11 == [
                .disconnected(first, device, alert: true, cancelled: false),
                .disconnected(second, device, alert: false, cancelled: false),
            ])
        #expect(table.subscriptions(of: first).isEmpty)
    }

    @Test("A failed attempt tells the waiting apps and forgets them")
    func attemptFailed() {
        var table = LinkTable()
        _ = table.connect(first, to: device, options: .init(), linkUp: false)
        let r12 = table.attemptFailed(device)
        #expect(r12 == [.failedToConnect(first, device)])
        #expect(table.holders(of: device).isEmpty)
        let r13 = table.connect(first, to: device, options: .init(), linkUp: false)
        #expect(r13 == [.startAttempt(device)])
    }
}
