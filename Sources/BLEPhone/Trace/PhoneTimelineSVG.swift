import BLESimulation
import BLEWire

/// A trace as a picture (SVG 1.1): one horizontal lane per app, and within it a band per
/// execution state, wakes (coloured by their source: Bluetooth, a scheduled task, location, a
/// URLSession, a push) and background tasks as overlays beneath, the overlays of scheduled task
/// runs, audio, location, calls and event handling as translucent bands over the states,
/// Bluetooth events as markers (delivered, queued, coalesced, dropped each a shape of its own),
/// task requests, pushes, files and the like as small labelled marks, and launches, kills,
/// alerts and user or system actions as labelled ticks; a time axis whose step suits any span
/// from milliseconds to days; a legend.
///
/// The size is bounded by the picture's width, not by the trace's length: what falls within one
/// pixel is drawn once (a marker with the count in its tooltip, a band of the state that held
/// longest there), so a day of once-a-second events stays a few hundred kilobytes.
public struct PhoneTimelineSVG: Sendable {
    /// Width of the plotting area in pixels (the time axis).
    public var plotWidth: Int

    public init(plotWidth: Int = 1000) {
        self.plotWidth = max(100, plotWidth)
    }

    /// The fill of each state's band.
    public static let stateColours: [(AppState, String)] = [
        (.notRunning, "#d9d9d9"), (.inactive, "#f2c94c"), (.active, "#27ae60"), (.background, "#2f80ed"),
        (.suspended, "#9b51e0"),
    ]

    // Layout (pixels).
    static let labelWidth = 180.0
    static let rightMargin = 30.0
    static let legendHeight = 86.0
    static let laneHeight = 84.0
    static let bandTop = 16.0
    static let bandHeight = 22.0
    static let wakeTop = 40.0
    static let taskTop = 47.0
    static let overlayHeight = 5.0
    static let markerRow = 60.0
    /// The row of the labelled marks (task requests, pushes, files).
    static let markRow = 76.0
    /// Ticks closer than this to the previous labelled tick of their lane go unlabelled.
    static let labelSpacing = 56.0

    /// The picture of `entries`, whose time axis runs from zero to `end` (or the last entry).
    public func render(_ entries: [PhoneTraceEntry], end: VirtualInstant? = nil) -> String {
        let last = entries.last?.time ?? .zero
        var endTime = max(end ?? last, last)
        if endTime.nanoseconds <= 0 { endTime = VirtualInstant(nanoseconds: 1_000_000) }
        var lanes: [TimelineLane] = []
        var laneIndex: [AppIdentifier?: Int] = [:]
        var scale = TimelineScale(end: endTime, plotWidth: Double(plotWidth), left: Self.labelWidth)
        for entry in entries {
            let index: Int
            if let known = laneIndex[entry.app] {
                index = known
            } else {
                index = lanes.count
                laneIndex[entry.app] = index
                lanes.append(TimelineLane(app: entry.app, scale: scale))
            }
            lanes[index].add(entry)
        }
        if lanes.isEmpty { lanes.append(TimelineLane(app: nil, scale: scale)) }
        // The phone's own lane (locks, reboots) first, then apps in order of appearance.
        lanes = lanes.filter { $0.app == nil } + lanes.filter { $0.app != nil }
        let height = Self.legendHeight + Double(lanes.count) * Self.laneHeight + 40
        let width = Self.labelWidth + Double(plotWidth) + Self.rightMargin
        scale.height = height
        var out = ""
        out.reserveCapacity(16_384 + lanes.count * plotWidth * 120)
        out += "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        out += "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"\(Self.number(width))\" "
        out += "height=\"\(Self.number(height))\" viewBox=\"0 0 \(Self.number(width)) \(Self.number(height))\" "
        out += "font-family=\"sans-serif\" font-size=\"11\">\n"
        appendStyle(to: &out)
        out += "<rect width=\"100%\" height=\"100%\" fill=\"#ffffff\"/>\n"
        appendLegend(to: &out)
        let axisTop = Self.legendHeight + Double(lanes.count) * Self.laneHeight
        TimelineAxis.append(scale: scale, top: Self.legendHeight, bottom: axisTop, to: &out)
        for (index, lane) in lanes.enumerated() {
            var lane = lane
            lane.finish(at: endTime)
            lane.append(top: Self.legendHeight + Double(index) * Self.laneHeight, to: &out)
        }
        out += "</svg>\n"
        return out
    }

    private func appendStyle(to out: inout String) {
        out += "<style>"
        for (state, colour) in Self.stateColours { out += ".s-\(state.rawValue){fill:\(colour)}" }
        out += ".wake{fill:#f2994a}.task{fill:#eb5757}"
        for source in TimelineWakeSource.allCases where source != .bluetooth {
            out += ".\(source.style){fill:\(source.colour)}"
        }
        for kind in PhoneTraceRecord.OverlayKind.allCases {
            out += ".o-\(kind.rawValue){fill:\(kind.colour);fill-opacity:0.35;stroke:\(kind.colour);stroke-width:0.5}"
        }
        for kind in PhoneTraceRecord.MarkKind.allCases { out += ".k-\(kind.rawValue){fill:\(kind.colour)}" }
        out += ".ml{font-size:9px;fill:#333333}"
        out += ".m-delivered{fill:#1e8449}.m-queued{fill:#ffffff;stroke:#e67e22;stroke-width:1.5}"
        out += ".m-coalesced{fill:#95a5a6}.m-dropped{stroke:#c0392b;stroke-width:2}"
        out += ".t-launch{stroke:#1e8449}.t-kill{stroke:#c0392b;stroke-width:2}.t-alert{stroke:#e67e22}"
        out += ".t-action{stroke:#555555}.t-restoration{stroke:#16a085}.t-denial{stroke:#8e44ad}"
        out += ".grid{stroke:#e0e0e0}.axis{stroke:#333333}.tl{font-size:9px;fill:#333333}.lane{font-weight:bold}"
        out += "</style>\n"
    }

    private func appendLegend(to out: inout String) {
        var x = 10.0
        out += "<g class=\"legend\">\n"
        for (state, _) in Self.stateColours {
            out += "<rect class=\"s-\(state.rawValue)\" x=\"\(Self.number(x))\" y=\"8\" width=\"12\" height=\"12\"/>"
            out += "<text x=\"\(Self.number(x + 16))\" y=\"18\">\(state.rawValue)</text>\n"
            x += 100
        }
        x = 10
        out += "<rect class=\"wake\" x=\"\(Self.number(x))\" y=\"30\" width=\"12\" height=\"6\"/>"
        out += "<text x=\"\(Self.number(x + 16))\" y=\"37\">wake</text>\n"
        x += 70
        out += "<rect class=\"task\" x=\"\(Self.number(x))\" y=\"30\" width=\"12\" height=\"6\"/>"
        out += "<text x=\"\(Self.number(x + 16))\" y=\"37\">background task</text>\n"
        x += 120
        for mark in PhoneTraceRecord.BluetoothMark.allCases {
            TimelineLane.appendMarker(mark, x: x + 6, y: 33, count: 1, to: &out)
            out += "<text x=\"\(Self.number(x + 16))\" y=\"37\">\(mark.rawValue)</text>\n"
            x += 90
        }
        // Wakes by source (Bluetooth's is the "wake" entry above).
        for source in TimelineWakeSource.allCases where source != .bluetooth {
            out += "<rect class=\"\(source.style)\" x=\"\(Self.number(x))\" y=\"30\" width=\"12\" height=\"6\"/>"
            out += "<text x=\"\(Self.number(x + 16))\" y=\"37\">wake: \(source.words)</text>\n"
            x += 120
        }
        x = 10
        for kind in PhoneTraceRecord.OverlayKind.allCases {
            out += "<rect class=\"o-\(kind.rawValue)\" x=\"\(Self.number(x))\" y=\"44\" width=\"12\" height=\"12\"/>"
            out += "<text x=\"\(Self.number(x + 16))\" y=\"54\">\(kind.words)</text>\n"
            x += 140
        }
        x = 10
        for kind in PhoneTraceRecord.MarkKind.allCases {
            TimelineOverlays.appendMark(kind, x: x + 6, y: 68, title: nil, to: &out)
            out += "<text x=\"\(Self.number(x + 16))\" y=\"72\">\(kind.words)</text>\n"
            x += 110
        }
        out += "</g>\n"
    }

    /// A coordinate with at most one decimal.
    static func number(_ value: Double) -> String {
        let tenths = Int((value * 10).rounded())
        let whole = tenths / 10
        let fraction = abs(tenths % 10)
        if fraction == 0 { return String(whole) }
        return (tenths < 0 && whole == 0 ? "-" : "") + String(whole) + "." + String(fraction)
    }

    /// Text for an XML element or attribute: markup characters as entities, and controls (which
    /// XML 1.0 forbids even as references) written as visible escapes (`TerminalText`).
    static func escaped(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for character in TerminalText.escaped(text) {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&apos;"
            default: out.append(character)
            }
        }
        return out
    }
}

/// Virtual time to pixels.
struct TimelineScale {
    var end: VirtualInstant
    var plotWidth: Double
    var left: Double
    var height: Double = 0

    func x(_ time: VirtualInstant) -> Double {
        left + Double(time.nanoseconds) / Double(end.nanoseconds) * plotWidth
    }
}
