import BLESimulation
import BLETransport
import BLEWire

extension CaptureTimestamps {
    /// A simulation's virtual time, counted from `origin` (microseconds since the Unix epoch;
    /// usually the capture's `createdAt`), so the gaps between packets are the virtual ones.
    public static func virtual(_ simulation: Simulation, from origin: Int64) -> CaptureTimestamps {
        CaptureTimestamps {
            let (stamp, overflow) = origin.addingReportingOverflow(simulation.now.nanoseconds / 1000)
            return BTSnoopTimestamp(unixMicroseconds: overflow ? .max : stamp)
        }
    }
}
