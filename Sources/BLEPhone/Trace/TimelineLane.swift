import BLESimulation

/// One app's lane of the timeline picture, built entry by entry in time order. Each layer (bands,
/// overlays, ticks, markers) is a string of its own, so they stack in that order; what falls
/// within one pixel is merged as it comes, so no layer grows past a few elements per pixel.
struct TimelineLane {
    let app: AppIdentifier?
    let scale: TimelineScale

    private var state: AppState = .notRunning
    private var stateSince: VirtualInstant = .zero
    private var pendingBand: PendingBand?
    private var bands = ""

    private var wake: (start: VirtualInstant, until: VirtualInstant, source: TimelineWakeSource)?
    private var wakes: [TimelineWakeSource: SpanMerger] = [:]
    private var overlays: TimelineOverlays
    private var openTasks: [Int: VirtualInstant] = [:]
    private var taskSpans: [(start: Double, end: Double)] = []

    private var markerBuckets: [PhoneTraceRecord.BluetoothMark: (pixel: Int, x: Double, count: Int)] = [:]
    private var markers = ""
    private var tickBucket: (pixel: Int, x: Double, kind: PhoneTraceRecord.TickKind, label: String, count: Int)?
    private var lastLabelX = -Double.infinity
    private var ticks = ""

    init(app: AppIdentifier?, scale: TimelineScale) {
        self.app = app
        self.scale = scale
        overlays = TimelineOverlays(scale: scale)
    }

    mutating func add(_ entry: PhoneTraceEntry) {
        let record = entry.event.record
        switch record.timeline {
        case .state(let next):
            closeSegment(at: entry.time)
            state = next
            if next == .suspended || next == .notRunning { closeWake(at: entry.time) }
            if next == .notRunning {
                endAllTasks(at: entry.time)
                overlays.closeAll(at: entry.time)
            }
        case .bluetooth(let mark):
            addMarker(mark, x: scale.x(entry.time))
        case .wake(let until):
            let source = TimelineWakeSource(record: record)
            if let open = wake, entry.time <= open.until, open.source == source {
                wake = (open.start, max(open.until, until), source)
            } else {
                closeWake(at: entry.time)
                wake = (entry.time, until, source)
            }
        case .taskBegan(let identifier):
            openTasks[identifier] = entry.time
        case .taskEnded(let identifier):
            if let start = openTasks.removeValue(forKey: identifier) {
                taskSpans.append((scale.x(start), scale.x(entry.time)))
            }
        case .tick(let kind, let label):
            if kind == .kill { endAllTasks(at: entry.time) }
            addTick(kind, label: label, x: scale.x(entry.time))
        case .overlay(let kind, let id, let on):
            overlays.overlay(kind, id: id, on: on, at: entry.time)
        case .mark(let kind, let label):
            overlays.mark(kind, label: label, at: entry.time)
        case .none:
            break
        }
    }

    /// Closes what is still open at the end of the picture.
    mutating func finish(at end: VirtualInstant) {
        closeSegment(at: end)
        flushBand()
        closeWake(at: end)
        for source in TimelineWakeSource.allCases { wakes[source]?.flush() }
        endAllTasks(at: end)
        overlays.finish(at: end)
        for mark in PhoneTraceRecord.BluetoothMark.allCases { flushMarker(mark) }
        flushTick()
    }

    func append(top: Double, to out: inout String) {
        let name = app.map { PhoneTimelineSVG.escaped($0.bundleIdentifier) } ?? "phone"
        out += "<g class=\"app-lane\" transform=\"translate(0,\(PhoneTimelineSVG.number(top)))\">\n"
        out +=
            "<line class=\"grid\" x1=\"0\" y1=\"0\" x2=\"\(PhoneTimelineSVG.number(scale.left + scale.plotWidth))\" y2=\"0\"/>\n"
        out +=
            "<text class=\"lane\" x=\"8\" y=\"\(PhoneTimelineSVG.number(PhoneTimelineSVG.bandTop + 15))\">\(name)</text>\n"
        out += bands
        overlays.append(to: &out)
        for source in TimelineWakeSource.allCases { out += wakes[source]?.output ?? "" }
        var tasks = SpanMerger(style: "task", top: PhoneTimelineSVG.taskTop)
        for span in taskSpans.sorted(by: { $0.start < $1.start }) { tasks.add(span.start, span.end) }
        tasks.flush()
        out += tasks.output
        out += ticks
        out += markers
        out += "</g>\n"
    }

    // MARK: Bands

    /// What lies within less than a pixel, merged until it spans one: drawn in the state that
    /// held longest there.
    private struct PendingBand {
        var start: Double
        var end: Double
        var time: [AppState: Int64] = [:]
        var changes = 0
    }

    private mutating func closeSegment(at time: VirtualInstant) {
        defer { stateSince = time }
        guard app != nil, time > stateSince else { return }
        let x0 = scale.x(stateSince)
        let x1 = scale.x(time)
        if x1 - x0 >= 1 {
            flushBand()
            appendBand(state, x0, x1, title: "\(state) \(PhoneTraceText.time(stateSince))–\(PhoneTraceText.time(time))")
            return
        }
        var pending = pendingBand ?? PendingBand(start: x0, end: x0)
        pending.end = x1
        pending.time[state, default: 0] += time.nanoseconds - stateSince.nanoseconds
        pending.changes += 1
        pendingBand = pending
        if pending.end - pending.start >= 1 { flushBand() }
    }

    private mutating func flushBand() {
        guard let pending = pendingBand else { return }
        pendingBand = nil
        let dominant = PhoneTimelineSVG.stateColours.map(\.0).max {
            pending.time[$0, default: 0] < pending.time[$1, default: 0]
        }
        guard let dominant else { return }
        appendBand(dominant, pending.start, pending.end, title: "mostly \(dominant) (\(pending.changes) states)")
    }

    private mutating func appendBand(_ state: AppState, _ x0: Double, _ x1: Double, title: String) {
        bands +=
            "<rect class=\"s-\(state.rawValue)\" x=\"\(PhoneTimelineSVG.number(x0))\" y=\"\(PhoneTimelineSVG.number(PhoneTimelineSVG.bandTop))\" "
        bands +=
            "width=\"\(PhoneTimelineSVG.number(max(x1 - x0, 0.1)))\" height=\"\(PhoneTimelineSVG.number(PhoneTimelineSVG.bandHeight))\">"
        bands += "<title>\(title)</title></rect>\n"
    }

    // MARK: Overlays

    private mutating func closeWake(at time: VirtualInstant) {
        guard let open = wake else { return }
        wake = nil
        let merger = SpanMerger(
            style: open.source.style, top: PhoneTimelineSVG.wakeTop, noun: "\(open.source.words) wake")
        wakes[open.source, default: merger].add(scale.x(open.start), scale.x(min(open.until, max(time, open.start))))
    }

    private mutating func endAllTasks(at time: VirtualInstant) {
        for (_, start) in openTasks { taskSpans.append((scale.x(start), scale.x(time))) }
        openTasks.removeAll()
    }

    // MARK: Markers and ticks

    private mutating func addMarker(_ mark: PhoneTraceRecord.BluetoothMark, x: Double) {
        let pixel = Int(x)
        if var bucket = markerBuckets[mark], bucket.pixel == pixel {
            bucket.count += 1
            markerBuckets[mark] = bucket
            return
        }
        flushMarker(mark)
        markerBuckets[mark] = (pixel, x, 1)
    }

    private mutating func flushMarker(_ mark: PhoneTraceRecord.BluetoothMark) {
        guard let bucket = markerBuckets.removeValue(forKey: mark) else { return }
        let row = mark == .delivered || mark == .queued ? PhoneTimelineSVG.markerRow : PhoneTimelineSVG.markerRow + 7
        Self.appendMarker(mark, x: bucket.x, y: row, count: bucket.count, to: &markers)
    }

    static func appendMarker(
        _ mark: PhoneTraceRecord.BluetoothMark, x: Double, y: Double, count: Int, to out: inout String
    ) {
        let cx = PhoneTimelineSVG.number(x)
        let cy = PhoneTimelineSVG.number(y)
        let element: String
        switch mark {
        case .delivered, .queued:
            element = "circle"
            out += "<circle class=\"m-\(mark.rawValue)\" cx=\"\(cx)\" cy=\"\(cy)\" r=\"3\""
        case .coalesced:
            element = "rect"
            out +=
                "<rect class=\"m-coalesced\" x=\"\(PhoneTimelineSVG.number(x - 2))\" y=\"\(PhoneTimelineSVG.number(y - 2))\" width=\"4\" height=\"4\""
        case .dropped:
            element = "path"
            out +=
                "<path class=\"m-dropped\" d=\"M\(PhoneTimelineSVG.number(x - 3)) \(PhoneTimelineSVG.number(y - 3))l6 6m0 -6l-6 6\""
        }
        if count > 1 {
            out += "><title>\(count) \(mark.rawValue)</title></\(element)>\n"
        } else {
            out += "/>\n"
        }
    }

    private mutating func addTick(_ kind: PhoneTraceRecord.TickKind, label: String, x: Double) {
        let pixel = Int(x)
        if var bucket = tickBucket, bucket.pixel == pixel {
            bucket.count += 1
            // What shares a pixel is labelled by its weightiest tick (a kill over a launch over
            // the action that caused it).
            if kind.weight > bucket.kind.weight { (bucket.kind, bucket.label) = (kind, label) }
            tickBucket = bucket
            return
        }
        flushTick()
        tickBucket = (pixel, x, kind, label, 1)
    }

    private mutating func flushTick() {
        guard let bucket = tickBucket else { return }
        tickBucket = nil
        let x = PhoneTimelineSVG.number(bucket.x)
        ticks +=
            "<line class=\"t-\(bucket.kind.rawValue)\" x1=\"\(x)\" y1=\"\(PhoneTimelineSVG.number(PhoneTimelineSVG.bandTop - 4))\" "
        ticks +=
            "x2=\"\(x)\" y2=\"\(PhoneTimelineSVG.number(PhoneTimelineSVG.bandTop + PhoneTimelineSVG.bandHeight + 2))\">"
        ticks +=
            "<title>\(PhoneTimelineSVG.escaped(bucket.label))\(bucket.count > 1 ? " and \(bucket.count - 1) more" : "")</title></line>\n"
        guard bucket.x - lastLabelX >= PhoneTimelineSVG.labelSpacing else { return }
        lastLabelX = bucket.x
        ticks +=
            "<text class=\"tl\" x=\"\(PhoneTimelineSVG.number(bucket.x + 2))\" y=\"\(PhoneTimelineSVG.number(PhoneTimelineSVG.bandTop - 5))\">"
        ticks +=
            PhoneTimelineSVG.escaped(bucket.label) + (bucket.count > 1 ? " +\(bucket.count - 1)" : "") + "</text>\n"
    }
}

/// Spans (wakes, background tasks) in order of their start, merged when less than a pixel apart.
struct SpanMerger {
    let style: String
    let top: Double
    let height: Double
    /// What one span is, for its tooltip ("2 background tasks").
    let noun: String
    private var current: (start: Double, end: Double, count: Int)?
    private(set) var output = ""

    init(style: String, top: Double, height: Double = PhoneTimelineSVG.overlayHeight, noun: String = "background task") {
        self.style = style
        self.top = top
        self.height = height
        self.noun = noun
    }

    mutating func add(_ start: Double, _ end: Double) {
        if var open = current, start <= open.end + 1 {
            open.end = max(open.end, end)
            open.count += 1
            current = open
            return
        }
        flush()
        current = (start, end, 1)
    }

    mutating func flush() {
        guard let span = current else { return }
        current = nil
        output +=
            "<rect class=\"\(style)\" x=\"\(PhoneTimelineSVG.number(span.start))\" y=\"\(PhoneTimelineSVG.number(top))\" "
        output +=
            "width=\"\(PhoneTimelineSVG.number(max(span.end - span.start, 1)))\" "
        output += "height=\"\(PhoneTimelineSVG.number(height))\">"
        output += "<title>\(span.count) \(noun)\(span.count > 1 ? "s" : "")</title></rect>\n"
    }
}

extension PhoneTraceRecord.TickKind {
    /// Which tick labels a pixel several share.
    var weight: Int {
        switch self {
        case .kill: 5
        case .launch: 4
        case .restoration: 3
        case .denial: 2
        case .alert: 1
        case .action: 0
        }
    }
}
