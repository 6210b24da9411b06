import BLELocking

/// SDUs delivered to the app and not yet read, shared by the host (which delivers them) and
/// the app's reader (which takes them): the receiver's side of credit based flow control
/// (Core 5.4 Vol 3 Part A §10.1). While `limit` SDUs wait unread the host gives the peer no
/// more credits, so a slow reader stops the sender instead of growing memory; the read that
/// brings the backlog under the limit tells the host to give credits again.
package final class L2CAPChannelBacklog: Sendable {
    private struct State {
        var unread = 0
        /// The host held credits back and waits to hear of a read.
        var holding = false
    }

    /// Unread SDUs at which the host stops giving credits.
    package let limit: Int
    private let state = Locked(State())

    package init(limit: Int) {
        self.limit = max(1, limit)
    }

    /// The host delivered an SDU.
    package func delivered() {
        state.withLock { $0.unread += 1 }
    }

    /// Whether the host should hold its credits now; when it should, a later read reports it.
    package func shouldHold() -> Bool {
        state.withLock { state in
            guard state.unread >= limit else { return false }
            state.holding = true
            return true
        }
    }

    /// The app read an SDU; true when the host held credits back and should now give them.
    package func consumed() -> Bool {
        state.withLock { state in
            state.unread = max(0, state.unread - 1)
            guard state.holding, state.unread < limit else { return false }
            state.holding = false
            return true
        }
    }

    package var unread: Int { state.withLock { $0.unread } }
}
