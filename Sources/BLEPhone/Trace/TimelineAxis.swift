/// The time axis of the timeline picture: a step from a millisecond to a week chosen so that
/// about five to ten ticks cover the span, a faint grid line at each, labelled in the unit that
/// suits the step (seconds, minutes, hours).
enum TimelineAxis {
    /// Candidate steps in milliseconds, smallest first.
    static let steps: [Int64] = [
        1, 2, 5, 10, 20, 50, 100, 200, 500, 1_000, 2_000, 5_000, 10_000, 15_000, 30_000, 60_000, 120_000, 300_000,
        600_000, 900_000, 1_800_000, 3_600_000, 7_200_000, 10_800_000, 21_600_000, 43_200_000, 86_400_000,
        172_800_000, 604_800_000,
    ]

    /// The step for a span of `milliseconds`: the smallest giving at most ten intervals.
    static func step(forSpan milliseconds: Int64) -> Int64 {
        steps.first { milliseconds / $0 <= 10 } ?? steps[steps.count - 1]
            * max(1, milliseconds / (10 * steps[steps.count - 1]))
    }

    /// A tick's label: `250 ms`, `1.5 s`, `45 s`, `2:30` (minutes), `6 h`, `1 h 30`.
    static func label(_ milliseconds: Int64, step: Int64) -> String {
        if step < 1_000 {
            let seconds = milliseconds / 1_000
            let rest = milliseconds % 1_000
            if seconds == 0 { return "\(rest) ms" }
            return "\(seconds).\(PhoneTraceText.padded(rest, 3)) s"
        }
        if step < 60_000 { return "\(milliseconds / 1_000) s" }
        if step < 3_600_000 {
            return "\(milliseconds / 60_000):\(PhoneTraceText.padded(milliseconds / 1_000 % 60, 2))"
        }
        let hours = milliseconds / 3_600_000
        let minutes = milliseconds / 60_000 % 60
        return minutes == 0 ? "\(hours) h" : "\(hours) h \(PhoneTraceText.padded(minutes, 2))"
    }

    /// The tick positions (milliseconds) of a span.
    static func ticks(forSpan milliseconds: Int64) -> [Int64] {
        let step = step(forSpan: milliseconds)
        return Array(stride(from: Int64(0), through: milliseconds, by: Int(step)))
    }

    static func append(scale: TimelineScale, top: Double, bottom: Double, to out: inout String) {
        let span = max(1, scale.end.nanoseconds / 1_000_000)
        let step = step(forSpan: span)
        let y0 = PhoneTimelineSVG.number(top)
        let y1 = PhoneTimelineSVG.number(bottom)
        out += "<g class=\"axis\">\n"
        out += "<line class=\"axis\" x1=\"\(PhoneTimelineSVG.number(scale.left))\" y1=\"\(y1)\" "
        out += "x2=\"\(PhoneTimelineSVG.number(scale.left + scale.plotWidth))\" y2=\"\(y1)\"/>\n"
        for tick in ticks(forSpan: span) {
            let x = PhoneTimelineSVG.number(scale.x(.init(nanoseconds: tick * 1_000_000)))
            out += "<line class=\"grid\" x1=\"\(x)\" y1=\"\(y0)\" x2=\"\(x)\" y2=\"\(y1)\"/>"
            out += "<text x=\"\(x)\" y=\"\(PhoneTimelineSVG.number(bottom + 14))\" text-anchor=\"middle\">"
            out += label(tick, step: step) + "</text>\n"
        }
        out += "</g>\n"
    }
}
