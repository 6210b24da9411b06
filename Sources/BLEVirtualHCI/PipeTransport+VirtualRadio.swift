import BLEController
import BLETransport
import BLEWire

extension PipeTransport {
    /// A transport to a controller on the virtual radio: the host's packets go to the
    /// controller as H4 bytes; the controller's come back decoded from H4 bytes, exactly as over
    /// a wire (Core 5.4 Vol 4 Part A §2).
    public static func attached(to port: VirtualControllerPort) -> PipeTransport {
        // The controller delivers from simulation actions, between the simulation's jobs.
        let transport = PipeTransport(
            deliveryExecutor: port.simulation.executor, toController: { packet in port.send(packet.encoded) },
            toControllerWire: { bytes in port.send(bytes) })
        port.setReceiver { bytes in
            do {
                transport.deliver(try H4Packet(decoding: bytes))
            } catch {
                transport.fail(.malformedStream("\(error)"))
            }
        }
        return transport
    }
}
