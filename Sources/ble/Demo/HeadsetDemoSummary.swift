import BLE
import BLEController
import BLECompanion
import BLESimulation

/// The closing figures of the headset demo: the image, the packets, the faults and the link
/// loss, the transfer's virtual time, and the firmware goodput against the air-time model's
/// rule-B prediction for Write Commands on the demo's link (Core 5.4 Vol 6 Part B §4.5.1: a
/// connection event's packets; the reference's rule B for where it ends).
struct HeadsetDemoSummary {
    let lines: [String]

    init(story: HeadsetStoryFigures, wall: Duration) {
        let seconds = HeartRateDemo.seconds
        let format = { (value: Double, digits: Int) in HeartRateDemo.format(value, digits: digits) }
        let first = story.runs.first ?? OTASummary()
        let last = story.runs.last ?? OTASummary()
        let sent = story.runs.reduce(0) { $0 + $1.packetsSent }
        let resent = story.runs.reduce(0) { $0 + $1.packetsResent }
        let transfer = story.transferStart.duration(to: story.transferEnd)
        let linkUp = transfer - story.outage
        let bytesPerSecond = seconds(linkUp) > 0 ? Double(first.imageSize) / seconds(linkUp) : 0
        let kbps = bytesPerSecond * 8 / 1000
        var link = story.link.map { LinkTiming($0) } ?? HeadsetDemo.link
        // The phone's controller frees its ACL buffers at each event's end: an event carries at
        // most as many writes as it has buffers (the reference's rule for host refill).
        link.maxPacketsPerEvent = HeadsetDemo.phoneACLBuffers
        let prediction = GoodputPrediction(
            link: link, attMTU: story.link?.attMTU ?? 23, traffic: .writeWithoutResponse)
        // Rule B counts every octet of the Write Command values; the firmware's share of each is
        // its packet size over the value (protocol frame and OTA data header around it).
        let valueLength = first.packetSize + HeadsetProtocol.otaDataHeaderLength + DeviceFrame.overhead
        let firmwareCeiling = prediction.goodputB * Double(first.packetSize) / Double(max(1, valueLength))
        let percent = firmwareCeiling > 0 ? Int((kbps / firmwareCeiling * 100).rounded()) : 0
        lines = [
            "Summary",
            "  image      \(first.imageSize) bytes (\(HeadsetDemo.newVersion)) in \(first.packetCount) packets of "
                + "\(first.packetSize)",
            "  packets    \(sent) sent in \(story.runs.count) runs, \(resent) resent (the headset faulted "
                + "\(story.dropped + story.corrupted): \(story.dropped) dropped, \(story.corrupted) corrupted)",
            "  link loss  1, resumed from packet \(last.resumedFromPacket ?? 0) as the headset reported",
            "  transfer   \(format(seconds(transfer), 3)) s virtual, of which \(format(seconds(story.outage), 3)) s "
                + "without a link",
            "  goodput    \(format(bytesPerSecond / 1000, 1)) kB/s = \(format(kbps, 1)) kbit/s of firmware while "
                + "linked: \(percent) % of the rule-B prediction",
            "  rule B     \(format(prediction.goodputB, 1)) kbit/s of Write Commands on "
                + "\(story.link?.summary ?? "no link"), \(HeadsetDemo.phoneACLBuffers) writes an event (the "
                + "phone controller's ACL buffers) = \(format(firmwareCeiling, 1)) kbit/s of firmware",
            "  time       \(format(seconds(VirtualInstant.zero.duration(to: story.virtualEnd)), 3)) s virtual "
                + "in \(format(seconds(wall), 3)) s of wall time",
        ]
    }
}
