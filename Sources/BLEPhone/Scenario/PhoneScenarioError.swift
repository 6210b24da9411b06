/// Why octets are not a scenario, and where: the path in the document
/// (`timeline[3].action`, empty for a JSON syntax error) and the line and column where the
/// value (or the syntax error) starts.
public struct PhoneScenarioError: Error, Sendable, Equatable, CustomStringConvertible {
    public var path: String
    public var problem: String
    public var line: Int
    public var column: Int

    public init(path: String, problem: String, line: Int, column: Int) {
        self.path = path
        self.problem = problem
        self.line = line
        self.column = column
    }

    /// `timeline[3].action: unknown action "opne"; expected one of: … (line 12, column 17)`.
    public var description: String {
        (path.isEmpty ? problem : "\(path): \(problem)") + " (line \(line), column \(column))"
    }
}
