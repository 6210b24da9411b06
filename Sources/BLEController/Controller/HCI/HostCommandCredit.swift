import BLEWire

/// The host's command credit as this controller granted it (Core 5.4 Vol 4 Part E §4.4): after
/// power-on, Reset or a new host stream the host may send one command; afterwards as many as the
/// Num_HCI_Command_Packets of the latest Command Complete or Command Status.
///
/// What a real controller does with a command beyond the credit is left undefined by the
/// specification (its command buffer is what the credit describes: firmware may drop it, raise
/// a Hardware Error or stall). This controller queues it and handles it in order like any other —
/// no status code means "beyond your credit", a dropped command would leave the host waiting for
/// a completion that never comes, and what a flooding host costs is bounded by the transport's
/// back-pressure — but it counts and logs each one, so a host that ignores flow control is seen.
struct HostCommandCredit {
    private(set) var available = 1
    /// Commands beyond the credit in this host stream.
    private(set) var beyondCreditInStream = 0

    /// HCI_Host_Number_Of_Completed_Packets may be sent whatever the credit, and is not answered
    /// (Vol 4 Part E §7.3.40).
    static let exempt = HCIOpcode(ogf: 0x03, ocf: 0x0035)

    /// A command with `opcode` arrived: whether the host was allowed to send it.
    mutating func commandArrived(opcode: HCIOpcode) -> Bool {
        guard opcode != Self.exempt else { return true }
        guard available > 0 else {
            beyondCreditInStream += 1
            return false
        }
        available -= 1
        return true
    }

    /// The controller sent `event`; a command completion sets the credit to what it carries.
    mutating func sent(_ event: HCIEvent) {
        switch event {
        case .commandComplete(let complete): available = Int(complete.numHCICommandPackets)
        case .commandStatus(let status): available = Int(status.numHCICommandPackets)
        default: break
        }
    }

    /// A new host stream (or the power-on state): one command until the first completion.
    mutating func restart() {
        available = 1
        beyondCreditInStream = 0
    }
}
