import BLESimulation

/// The overlays and marks of one lane of the timeline picture (issue 16's roles): a translucent
/// band over the state bands for each overlay kind while it is on (a scheduled task's run, the
/// audio session's states, location updates, a call, event handling), and small labelled marks
/// (a task requested, a push, a file shared). Like the rest of the lane, what falls within one
/// pixel is merged as it comes, so the picture stays bounded whatever the trace's length.
struct TimelineOverlays {
    let scale: TimelineScale

    /// Overlays on now, by kind and id, since when.
    private var open: [PhoneTraceRecord.OverlayKind: [String: VirtualInstant]] = [:]
    private var spans: [PhoneTraceRecord.OverlayKind: [(start: Double, end: Double)]] = [:]

    private var markBuckets: [PhoneTraceRecord.MarkKind: (pixel: Int, x: Double, label: String, count: Int)] = [:]
    private var lastMarkLabelX = -Double.infinity
    private var marks = ""

    init(scale: TimelineScale) {
        self.scale = scale
    }

    mutating func overlay(_ kind: PhoneTraceRecord.OverlayKind, id: String, on: Bool, at time: VirtualInstant) {
        if on {
            // A second start of an open overlay keeps the first start.
            if open[kind]?[id] == nil { open[kind, default: [:]][id] = time }
        } else if let start = open[kind]?.removeValue(forKey: id) {
            spans[kind, default: []].append((scale.x(start), scale.x(time)))
        }
    }

    /// The process ended: every overlay of the app stops.
    mutating func closeAll(at time: VirtualInstant) {
        for (kind, ids) in open {
            for (_, start) in ids { spans[kind, default: []].append((scale.x(start), scale.x(time))) }
        }
        open.removeAll()
    }

    mutating func mark(_ kind: PhoneTraceRecord.MarkKind, label: String, at time: VirtualInstant) {
        let x = scale.x(time)
        let pixel = Int(x)
        if var bucket = markBuckets[kind], bucket.pixel == pixel {
            bucket.count += 1
            markBuckets[kind] = bucket
            return
        }
        flushMark(kind)
        markBuckets[kind] = (pixel, x, label, 1)
    }

    mutating func finish(at end: VirtualInstant) {
        closeAll(at: end)
        for kind in PhoneTraceRecord.MarkKind.allCases { flushMark(kind) }
    }

    /// The overlays (drawn over the state bands) and the marks (their own row).
    func append(to out: inout String) {
        for kind in PhoneTraceRecord.OverlayKind.allCases {
            guard let list = spans[kind] else { continue }
            var merger = SpanMerger(
                style: "o-\(kind.rawValue)", top: PhoneTimelineSVG.bandTop, height: PhoneTimelineSVG.bandHeight,
                noun: kind.words)
            for span in list.sorted(by: { $0.start < $1.start }) { merger.add(span.start, span.end) }
            merger.flush()
            out += merger.output
        }
        out += marks
    }

    private mutating func flushMark(_ kind: PhoneTraceRecord.MarkKind) {
        guard let bucket = markBuckets.removeValue(forKey: kind) else { return }
        let y = PhoneTimelineSVG.markRow
        let more = bucket.count > 1 ? " and \(bucket.count - 1) more" : ""
        Self.appendMark(kind, x: bucket.x, y: y, title: "\(kind.words): \(bucket.label)\(more)", to: &marks)
        guard bucket.x - lastMarkLabelX >= PhoneTimelineSVG.labelSpacing else { return }
        lastMarkLabelX = bucket.x
        marks +=
            "<text class=\"ml\" x=\"\(PhoneTimelineSVG.number(bucket.x + 5))\" y=\"\(PhoneTimelineSVG.number(y + 3))\">"
        marks +=
            PhoneTimelineSVG.escaped(bucket.label) + (bucket.count > 1 ? " +\(bucket.count - 1)" : "") + "</text>\n"
    }

    /// A mark: a small downward triangle in its kind's colour.
    static func appendMark(
        _ kind: PhoneTraceRecord.MarkKind, x: Double, y: Double, title: String?, to out: inout String
    ) {
        out +=
            "<path class=\"k-\(kind.rawValue)\" d=\"M\(PhoneTimelineSVG.number(x - 4)) \(PhoneTimelineSVG.number(y - 4))"
        if let title {
            out += "h8l-4 7z\"><title>\(PhoneTimelineSVG.escaped(title))</title></path>\n"
        } else {
            out += "h8l-4 7z\"/>\n"
        }
    }
}

extension PhoneTraceRecord.OverlayKind {
    /// The overlay's fill (drawn translucent over the state bands).
    var colour: String {
        switch self {
        case .scheduledTask: "#e74c3c"
        case .audioActive: "#00bcd4"
        case .audioPlaying: "#1565c0"
        case .audioDucking: "#ff9800"
        case .location: "#2e7d32"
        case .call: "#ad1457"
        case .eventHandling: "#6d4c41"
        }
    }

    var words: String {
        switch self {
        case .scheduledTask: "scheduled task"
        case .audioActive: "audio session active"
        case .audioPlaying: "audio playing"
        case .audioDucking: "ducking others"
        case .location: "location updates"
        case .call: "call"
        case .eventHandling: "event handling"
        }
    }
}

extension PhoneTraceRecord.MarkKind {
    var colour: String {
        switch self {
        case .taskRequest: "#c0392b"
        case .push: "#8e44ad"
        case .urlSession: "#2980b9"
        case .location: "#27ae60"
        case .document: "#d35400"
        case .audio: "#16a085"
        }
    }

    var words: String {
        switch self {
        case .taskRequest: "task request"
        case .push: "push"
        case .urlSession: "URLSession"
        case .location: "location"
        case .document: "document"
        case .audio: "audio"
        }
    }
}

/// The sources of wakes the picture tells apart (a `woken` record's `reason` field).
enum TimelineWakeSource: String, CaseIterable {
    case bluetooth
    case scheduledTask = "scheduled_task"
    case location
    case urlSession = "url_session"
    case voipPush = "voip_push"
    case silentPush = "silent_push"

    /// The class of its wake overlay: Bluetooth keeps the picture's original `wake`.
    var style: String { self == .bluetooth ? "wake" : "wake-\(rawValue)" }

    var colour: String {
        switch self {
        case .bluetooth: "#f2994a"
        case .scheduledTask: "#e74c3c"
        case .location: "#27ae60"
        case .urlSession: "#2980b9"
        case .voipPush: "#ad1457"
        case .silentPush: "#8e44ad"
        }
    }

    var words: String {
        switch self {
        case .bluetooth: "Bluetooth"
        case .scheduledTask: "scheduled task"
        case .location: "location"
        case .urlSession: "URLSession"
        case .voipPush: "VoIP push"
        case .silentPush: "silent push"
        }
    }

    /// The source a `woken` record names (Bluetooth for a record without one).
    init(record: PhoneTraceRecord) {
        for field in record.fields where field.name == "reason" {
            if case .text(let name) = field.value, let source = TimelineWakeSource(rawValue: name) {
                self = source
                return
            }
        }
        self = .bluetooth
    }
}
