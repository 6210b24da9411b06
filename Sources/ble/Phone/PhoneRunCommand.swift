import ArgumentParser
import BLEDevices
import BLEPhone
import BLETransport

/// `ble phone run SCENARIO.json`: runs a scenario and checks its expectations.
struct PhoneRunCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Run a phone scenario and check its expectations (format: docs/phone-scenarios.md).",
        discussion: """
            Runs the scenario's app on a simulated phone among its virtual devices, in virtual \
            time, performing its timeline; prints the phone's trace, one line per event (--json: \
            a JSON object with the trace and the expectations), then each expectation with pass \
            or FAIL. --svg writes the timeline picture: a lane per app, a band per state, the \
            Bluetooth events on it. Exit status: 0 when every expectation passed, 2 when one \
            failed, 1 when the file cannot be read or is not a scenario (the error names the \
            place: its path in the document, line and column).

            Example: ble phone run docs/examples/phone/central-heartbeat-wakes.json --svg wakes.svg
            """)

    @Argument(help: ArgumentHelp("The scenario.", valueName: "scenario.json"))
    var scenario: String

    @Flag(help: "Print the trace and the expectations as JSON.")
    var json = false

    @Option(help: ArgumentHelp("Write the timeline picture to this file.", valueName: "file.svg"))
    var svg: String?

    @OptionGroup var logging: LoggingOptions

    func run() async throws {
        let scenario = try PhoneScenario.load(path: self.scenario)
        if let svg {
            do {
                try FileAccess.checkReplaceable(svg)
            } catch {
                throw CommandFailure("cannot write \(error)")
            }
        }
        let result = try await PhoneScenarioRunner.run(scenario, logger: logging.logger("ble.phone"))
        if json {
            Console.out(Self.json(result))
        } else {
            let lines = PhoneTraceText.lines(result.trace)
            if !lines.isEmpty { Console.out(String(lines.dropLast())) }
            for expectation in result.expectations { Console.out(expectation.description) }
        }
        if let svg {
            let picture = PhoneTimelineSVG().render(result.trace, end: result.end)
            do {
                try FileAccess.writeAtomically(Array(picture.utf8), to: svg)
            } catch {
                throw CommandFailure("cannot write \(error)")
            }
        }
        guard result.passed else {
            let failed = result.expectations.filter { !$0.passed }.count
            Console.err("\(failed) of \(result.expectations.count) expectations failed")
            throw ExitCode(2)
        }
    }

    /// `{"trace": [...], "expectations": [{"expectation", "passed", "observed"}], "passed": bool}`.
    static func json(_ result: PhoneScenarioResult) -> String {
        var out = "{\"trace\":"
        out += PhoneTraceJSON.document(result.trace)
        out += ",\"expectations\":["
        for (index, expectation) in result.expectations.enumerated() {
            if index > 0 { out += "," }
            out += "\n{\"expectation\":" + PhoneTraceJSON.string(expectation.expectation.description)
            out += ",\"passed\":" + (expectation.passed ? "true" : "false")
            out += ",\"observed\":" + PhoneTraceJSON.string(expectation.observed) + "}"
        }
        out += "],\n\"passed\":" + (result.passed ? "true" : "false") + "}"
        return out
    }
}
