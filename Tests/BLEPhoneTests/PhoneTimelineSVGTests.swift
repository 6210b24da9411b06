import BLESimulation
import Foundation
import Testing

@testable import BLEPhone

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// Parses an SVG text as XML and counts its elements by name and class.
private final class SVGShape: NSObject, XMLParserDelegate {
    var elements: [String: Int] = [:]
    var classes: [String: Int] = [:]
    var texts: [String] = []
    var root: String?
    private var inText = false

    static func parse(_ svg: String) -> (SVGShape, Bool) {
        let shape = SVGShape()
        let parser = XMLParser(data: Data(svg.utf8))
        parser.delegate = shape
        let ok = parser.parse()
        return (shape, ok)
    }

    func parser(
        _ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
        attributes: [String: String] = [:]
    ) {
        if root == nil { root = name }
        elements[name, default: 0] += 1
        if let style = attributes["class"] { classes[style, default: 0] += 1 }
        inText = name == "text"
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) {
        if inText { texts.append(string) }
    }

    func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
        inText = false
    }
}

@Suite("Trace rendering: the SVG timeline")
struct PhoneTimelineSVGTests {
    @Test("Well-formed XML with an svg root, a legend of the five states and a band per state reached")
    func bandsPerState() {
        let svg = PhoneTimelineSVG().render(SampleTrace.entries, end: VirtualInstant(nanoseconds: 60_000_000_000))
        let (shape, ok) = SVGShape.parse(svg)
        #expect(ok)
        #expect(shape.root == "svg")
        // Legend (1 each) plus the bands the sample reaches: inactive, active, background (twice),
        // suspended (twice), notRunning (before the launch is zero-length; after the kill, once).
        #expect(shape.classes["s-inactive"] == 1 + 1)
        #expect(shape.classes["s-active"] == 1 + 1)
        #expect(shape.classes["s-background"] == 1 + 2)
        #expect(shape.classes["s-suspended"] == 1 + 2)
        #expect(shape.classes["s-notRunning"] == 1 + 1)
        #expect(shape.texts.contains("com.example.headset"))
        #expect(shape.texts.contains("phone"))
    }

    @Test("Wakes and background tasks are overlays; delivered, queued and dropped events distinct markers; kills ticks")
    func overlaysAndMarkers() {
        let svg = PhoneTimelineSVG().render(SampleTrace.entries, end: VirtualInstant(nanoseconds: 60_000_000_000))
        let (shape, ok) = SVGShape.parse(svg)
        #expect(ok)
        #expect(shape.classes["wake"] == 1 + 1)
        #expect(shape.classes["task"] == 1 + 1)
        #expect(shape.classes["m-delivered"] == 1 + 1)
        #expect(shape.classes["m-queued"] == 1 + 1)
        #expect(shape.classes["m-dropped"] == 1 + 1)
        #expect(shape.classes["t-kill"] == 1)
        #expect(shape.classes["t-alert"] == 1)
        #expect(shape.classes["t-launch"] == 1)
        #expect(shape.texts.contains("killed"))
    }

    @Test("Text is escaped: markup in a bundle identifier or an alert stays text, controls are visible escapes")
    func escapesText() {
        let app = AppIdentifier("a<b>&\"c\u{1B}")
        let entries = [
            PhoneTraceEntry(time: .zero, app: app, event: .stateChanged(from: .notRunning, to: .active)),
            PhoneTraceEntry(time: VirtualInstant(nanoseconds: 1_000_000), app: app, event: .alert("<script>")),
        ]
        let svg = PhoneTimelineSVG().render(entries)
        let (shape, ok) = SVGShape.parse(svg)
        #expect(ok)
        #expect(shape.elements["script"] == nil)
        #expect(shape.texts.joined().contains("a<b>&\"c\\u{1B}"))
        #expect(!svg.unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" })
    }

    @Test("Ticks within one pixel merge into one, labelled by the weightiest: a kill over a launch over an action")
    func tickMerging() {
        let app = AppIdentifier("a")
        let at = VirtualInstant(nanoseconds: 5_000_000_000)
        let entries = [
            PhoneTraceEntry(time: at, app: app, event: .user(.open(app))),
            PhoneTraceEntry(time: at, app: app, event: .launched(.user)),
            PhoneTraceEntry(time: VirtualInstant(nanoseconds: 60_000_000_000), app: app, event: .system(.crash(app))),
            PhoneTraceEntry(time: VirtualInstant(nanoseconds: 60_000_000_000), app: app, event: .killed(.crash)),
        ]
        let (shape, ok) = SVGShape.parse(PhoneTimelineSVG().render(entries))
        #expect(ok)
        #expect(shape.classes["t-launch"] == 1)
        #expect(shape.classes["t-kill"] == 1)
        #expect(shape.classes["t-action"] == nil)
        #expect(shape.texts.contains("launch +1"))
        #expect(shape.texts.contains("killed +1"))
    }

    @Test("Axis steps suit the span: seconds, minutes and a day each get five to ten ticks")
    func axisTicks() {
        for span: Int64 in [2_000, 10_000, 90_000, 3_600_000, 86_400_000] {
            let ticks = TimelineAxis.ticks(forSpan: span)
            #expect((3...11).contains(ticks.count), "\(span) ms: \(ticks.count) ticks")
        }
        #expect(TimelineAxis.step(forSpan: 86_400_000) == 10_800_000)
        #expect(TimelineAxis.label(10_800_000, step: 10_800_000) == "3 h")
        #expect(TimelineAxis.label(90_000, step: 15_000) == "90 s")
        #expect(TimelineAxis.label(150_000, step: 60_000) == "2:30")
        #expect(TimelineAxis.label(1_500, step: 500) == "1.500 s")
    }

    @Test("100 000 events over 24 h stay bounded: markers merge within a pixel, bands within a pixel")
    func boundedSize() {
        let app = AppIdentifier("com.example.headset")
        var entries: [PhoneTraceEntry] = []
        entries.reserveCapacity(100_000)
        var state = AppState.suspended
        for index in 0..<100_000 {
            let time = VirtualInstant(nanoseconds: Int64(index) * 864_000_000)  // every 0.864 s: a day
            if index % 4 == 0 {
                let next: AppState = state == .suspended ? .background : .suspended
                entries.append(PhoneTraceEntry(time: time, app: app, event: .stateChanged(from: state, to: next)))
                state = next
            } else {
                entries.append(
                    PhoneTraceEntry(time: time, app: app, event: .eventDelivered(.valueUpdate, summary: "tick")))
            }
        }
        let svg = PhoneTimelineSVG(plotWidth: 1000).render(entries)
        #expect(svg.utf8.count < 1_000_000, "\(svg.utf8.count) octets")
        let (shape, ok) = SVGShape.parse(svg)
        #expect(ok)
        // At most one delivered marker per pixel (plus the legend's), a band or two per pixel.
        #expect((shape.classes["m-delivered"] ?? 0) <= 1_002)
        #expect((shape.classes["s-background"] ?? 0) + (shape.classes["s-suspended"] ?? 0) <= 2_004)
    }
}

@Suite("Trace rendering: overlays, marks and wake sources on the SVG timeline")
struct PhoneTimelineOverlayTests {
    private func time(_ seconds: Int64) -> VirtualInstant { VirtualInstant(nanoseconds: seconds * 1_000_000_000) }

    @Test("A scheduled task's request is a mark and its run a translucent overlay; a scheduled-task wake has its own class; each kind has a legend entry")
    func scheduledTaskOverlay() {
        let app = AppIdentifier("com.example.tasks")
        let entries = [
            PhoneTraceEntry(time: .zero, app: app, event: .stateChanged(from: .notRunning, to: .active)),
            PhoneTraceEntry(
                time: time(1), app: app,
                event: .scheduledTask(.submitted("refresh", kind: .appRefresh, earliestBeginDate: time(10)))),
            PhoneTraceEntry(time: time(2), app: app, event: .stateChanged(from: .active, to: .suspended)),
            PhoneTraceEntry(time: time(10), app: app, event: .woken(.scheduledTask("refresh"), until: time(40))),
            PhoneTraceEntry(time: time(10), app: app, event: .stateChanged(from: .suspended, to: .background)),
            PhoneTraceEntry(
                time: time(10), app: app,
                event: .scheduledTask(.started("refresh", run: 1, until: time(40), simulated: false))),
            PhoneTraceEntry(
                time: time(25), app: app,
                event: .scheduledTask(.completed("refresh", run: 1, success: true, bySystem: false))),
            PhoneTraceEntry(time: time(26), app: app, event: .stateChanged(from: .background, to: .suspended)),
        ]
        let (shape, ok) = SVGShape.parse(PhoneTimelineSVG().render(entries, end: time(60)))
        #expect(ok)
        #expect(shape.classes["o-scheduledTask"] == 1 + 1)
        #expect(shape.classes["k-taskRequest"] == 1 + 1)
        #expect(shape.classes["wake-scheduled_task"] == 1 + 1)
        #expect(shape.classes["wake"] == 1)
        #expect(shape.texts.contains("refresh"))
        for kind in PhoneTraceRecord.OverlayKind.allCases { #expect(shape.classes["o-\(kind.rawValue)"] ?? 0 >= 1) }
        for kind in PhoneTraceRecord.MarkKind.allCases { #expect(shape.classes["k-\(kind.rawValue)"] ?? 0 >= 1) }
        #expect(shape.texts.contains("wake: scheduled task"))
    }

    @Test("Every overlay and mark kind is drawn with its own class; a kill closes open overlays; overlays within a pixel merge")
    func everyKind() {
        var layer = TimelineOverlays(scale: TimelineScale(end: time(1_000), plotWidth: 1_000, left: 0))
        for (index, kind) in PhoneTraceRecord.OverlayKind.allCases.enumerated() {
            layer.overlay(kind, id: "a", on: true, at: time(Int64(index * 100)))
            layer.overlay(kind, id: "a", on: false, at: time(Int64(index * 100 + 50)))
            layer.overlay(kind, id: "b", on: true, at: time(Int64(index * 100 + 60)))
        }
        for (index, kind) in PhoneTraceRecord.MarkKind.allCases.enumerated() {
            layer.mark(kind, label: "\(kind)", at: time(Int64(index * 150)))
        }
        layer.closeAll(at: time(800))
        layer.finish(at: time(1_000))
        var out = "<svg xmlns=\"http://www.w3.org/2000/svg\">"
        layer.append(to: &out)
        out += "</svg>"
        let (shape, ok) = SVGShape.parse(out)
        #expect(ok)
        // "a" and "b" of each kind are 10 px apart: two spans; the "b"s end at the close.
        for kind in PhoneTraceRecord.OverlayKind.allCases { #expect(shape.classes["o-\(kind.rawValue)"] == 2) }
        for kind in PhoneTraceRecord.MarkKind.allCases { #expect(shape.classes["k-\(kind.rawValue)"] == 1) }

        var dense = TimelineOverlays(scale: TimelineScale(end: time(86_400), plotWidth: 1_000, left: 0))
        for second in stride(from: Int64(0), to: 86_400, by: 2) {
            dense.overlay(.audioPlaying, id: "\(second)", on: true, at: time(second))
            dense.overlay(.audioPlaying, id: "\(second)", on: false, at: time(second + 1))
            dense.mark(.push, label: "p", at: time(second))
        }
        dense.finish(at: time(86_400))
        var big = ""
        dense.append(to: &big)
        #expect(big.utf8.count < 300_000, "\(big.utf8.count) octets")
    }
}
