import Foundation
import RoquaIO
import RoquaProgress

/// One thing wrong with an achievements file, naming the achievement when there is one.
public struct AchievementProblem: Error, Sendable, Equatable, CustomStringConvertible {
    /// Which rule an entry (or the file) broke.
    public enum Kind: String, Sendable, Equatable {
        /// One case per rule; `malformedJSON` also covers a file that cannot be read.
        case malformedJSON, invalidEntry, missingID, duplicateID, unknownCalculator, invalidParameter,
            unknownPrerequisite, prerequisiteCycle, invalidRarity, invalidCategory, missingText, invalidWindow
    }

    /// The achievement's id; nil for file-level problems or an entry without an id.
    public var id: String?
    /// Which rule was broken.
    public var kind: Kind
    /// What is wrong, in one sentence.
    public var message: String
    /// 1-based line, for malformed JSON.
    public var line: Int?

    /// Creates a problem for the achievement `id` (or the file when `nil`), at `line` for malformed JSON.
    public init(id: String?, kind: Kind, message: String, line: Int? = nil) {
        self.id = id
        self.kind = kind
        self.message = message
        self.line = line
    }

    /// `achievement 'ID': MESSAGE`, or `line N: …` / `file: …` when there is no id.
    public var description: String {
        let place = id.map { "achievement '\($0)'" } ?? line.map { "line \($0)" } ?? "file"
        return "\(place): \(message)"
    }
}

/// Every problem of an achievements file, reported together.
public struct AchievementCatalogError: Error, Sendable, CustomStringConvertible {
    /// The file's path; `nil` for data that came from no file.
    public var path: String?
    /// Every problem found, in file order.
    public var problems: [AchievementProblem]
    /// A first line naming the file and the number of problems, then one indented line per problem.
    public var description: String {
        "\(path ?? "achievements") has \(problems.count) problem\(problems.count == 1 ? "" : "s"):\n"
            + problems.map { "  \($0)" }.joined(separator: "\n")
    }
}

/// A validated set of achievement definitions with their calculators, in file order.
///
/// File format: `{"version": 1, "achievements": [ {definition}, … ]}` (see `AchievementDefinition`).
/// Validation reports every problem at once, not just the first.
public struct AchievementCatalog: Sendable {
    /// The definitions, in file order.
    public let achievements: [AchievementDefinition]
    /// Each achievement's calculator, set up from its parameters, by achievement id.
    public let calculators: [String: any AchievementCalculator]
    /// XP for exploring and the level curve: the file's `experience` object, else the defaults.
    public let experience: ExperienceRules

    /// The definitions built into Roqua (`achievements.json` in this module, compiled in, so the
    /// binary needs no data file to find).
    /// - Throws: `AchievementCatalogError` only if the built-in file is broken (a test guards it).
    public static func bundled() throws -> AchievementCatalog {
        try load(data: Data(PackageResources.achievements_json))
    }

    /// The definitions in the file at `path`.
    /// - Throws: `AchievementCatalogError` naming the file and every problem in it.
    public static func load(path: String) throws -> AchievementCatalog {
        let data: Data
        switch read(path) {
        case let .success(bytes): data = bytes
        case let .failure(problem): throw AchievementCatalogError(path: path, problems: [problem])
        }
        do { return try load(data: data) } catch var error as AchievementCatalogError {
            error.path = path
            throw error
        }
    }

    /// The definitions in `data` (the JSON of an achievements file).
    /// - Throws: `AchievementCatalogError` with every problem found.
    public static func load(data: Data) throws -> AchievementCatalog {
        let (file, definitions, calculators, problems) = check(data)
        guard problems.isEmpty else { throw AchievementCatalogError(path: nil, problems: problems) }
        return AchievementCatalog(
            achievements: definitions, calculators: calculators,
            experience: file?.experience ?? ExperienceRules())
    }

    /// Every problem in the file at `path` (empty when it is fine).
    public static func validate(path: String) -> [AchievementProblem] {
        switch read(path) {
        case let .success(data): validate(data: data)
        case let .failure(problem): [problem]
        }
    }

    /// Definitions files are small: anything but a regular file of at most 16 MiB is refused
    /// before it is read (so `/dev/zero` is an error, not an endless read).
    private static func read(_ path: String) -> Result<Data, AchievementProblem> {
        func problem(_ message: String) -> Result<Data, AchievementProblem> {
            .failure(AchievementProblem(id: nil, kind: .malformedJSON, message: message))
        }
        var info = stat()
        guard stat(path, &info) == 0 else { return problem("cannot be read: \(String(cString: strerror(errno)))") }
        guard info.st_mode & S_IFMT == S_IFREG else { return problem("is not a regular file") }
        guard info.st_size <= 16 << 20 else { return problem("is \(info.st_size >> 20) MiB; an achievements file is at most 16 MiB") }
        guard let data = FileManager.default.contents(atPath: path) else { return problem("cannot be read (no permission?)") }
        return .success(data)
    }

    /// Every problem in `data` (empty when it is fine).
    public static func validate(data: Data) -> [AchievementProblem] { check(data).problems }

    /// The definition with `id`, or `nil` when the catalog has none.
    public func definition(_ id: String) -> AchievementDefinition? { achievements.first { $0.id == id } }

    // MARK: - Checking

    private struct File: Decodable {
        var version: Int?
        var achievements: [Entry]
        var experience: ExperienceRules?
    }

    /// An entry decoded on its own, so one bad entry does not hide the others.
    private struct Entry: Decodable {
        var id: String?
        var depth: Int
        var result: Result<AchievementDefinition, any Error>

        private enum Key: String, CodingKey { case id }

        init(from decoder: any Decoder) throws {
            id = try? decoder.container(keyedBy: Key.self).decode(String.self, forKey: .id)
            depth = decoder.codingPath.count
            result = Result { try AchievementDefinition(from: decoder) }
        }
    }

    private static func check(
        _ data: Data
    ) -> (
        file: File?, definitions: [AchievementDefinition],
        calculators: [String: any AchievementCalculator], problems: [AchievementProblem]
    ) {
        do {
            _ = try JSONSerialization.jsonObject(with: data)
        } catch {
            let line = lineNumber(of: error, in: data)
            return (
                nil, [], [:],
                [
                    AchievementProblem(
                        id: nil, kind: .malformedJSON,
                        message: "malformed JSON\(line.map { " at line \($0)" } ?? ""): \(error.localizedDescription)",
                        line: line)
                ]
            )
        }
        let file: File
        do { file = try CheckedJSONDecoder().decode(File.self, from: data) } catch {
            return (
                nil, [], [:],
                [
                    AchievementProblem(
                        id: nil, kind: .malformedJSON,
                        message: "expected {\"achievements\": [ … ]}: \(describe(error, depth: 0))")
                ]
            )
        }
        var problems: [AchievementProblem] = []
        var definitions: [AchievementDefinition] = []
        var calculators: [String: any AchievementCalculator] = [:]
        var seen = Set<String>()
        for (index, entry) in file.achievements.enumerated() {
            let name = entry.id.flatMap { $0.trimmingCharacters(in: .whitespaces).isEmpty ? nil : $0 }
            func report(_ kind: AchievementProblem.Kind, _ message: String) {
                problems.append(
                    AchievementProblem(id: name, kind: kind, message: name == nil ? "entry #\(index + 1): \(message)" : message))
            }
            let definition: AchievementDefinition
            switch entry.result {
            case let .failure(error):
                report(kind(of: error, depth: entry.depth), describe(error, depth: entry.depth))
                continue
            case let .success(value): definition = value
            }
            guard name != nil else {
                report(.missingID, "'id' is empty")
                continue
            }
            if !seen.insert(definition.id).inserted {
                report(.duplicateID, "duplicate id '\(definition.id)'")
                continue
            }
            do {
                if let calculator = try AchievementCalculators.make(name: definition.calculator, parameters: definition.parameters) {
                    calculators[definition.id] = calculator
                } else {
                    report(
                        .unknownCalculator,
                        "unknown calculator '\(definition.calculator)' (known: \(AchievementCalculators.names.joined(separator: ", ")))")
                }
            } catch { report(.invalidParameter, "calculator '\(definition.calculator)': \(error.message)") }
            for (field, text) in [("title", definition.title), ("description", definition.description)] {
                for (language, value) in [("tr", text.tr), ("en", text.en)]
                where value.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty {
                    report(.missingText, "'\(field).\(language)' is empty")
                }
            }
            if definition.icon.trimmingCharacters(in: .whitespaces).isEmpty { report(.invalidEntry, "'icon' is empty") }
            if definition.xp < 0 { report(.invalidEntry, "'xp' must be ≥ 0, not \(definition.xp)") }
            problems += windowProblems(definition)
            definitions.append(definition)
        }
        problems += prerequisiteProblems(definitions)
        if let rules = file.experience { problems += rules.problems }
        return (file, definitions, calculators, problems)
    }

    private static func windowProblems(_ definition: AchievementDefinition) -> [AchievementProblem] {
        var problems: [AchievementProblem] = []
        var bounds: [String: WindowBound] = [:]
        for (field, text) in [("validFrom", definition.validFrom), ("validUntil", definition.validUntil)] {
            guard let text else { continue }
            if let bound = WindowBound(iso: text) {
                bounds[field] = bound
            } else {
                problems.append(
                    AchievementProblem(
                        id: definition.id, kind: .invalidWindow,
                        message: "'\(field)' is not an ISO 8601 date: '\(text)'"))
            }
        }
        let utc = TimeZone(identifier: "UTC")!
        if let from = bounds["validFrom"], let until = bounds["validUntil"],
            until.date(in: utc, endOfDay: true) <= from.date(in: utc, endOfDay: false)
        {
            problems.append(
                AchievementProblem(
                    id: definition.id, kind: .invalidWindow,
                    message: "'validUntil' \(definition.validUntil!) is before 'validFrom' \(definition.validFrom!)"))
        }
        return problems
    }

    private static func prerequisiteProblems(_ definitions: [AchievementDefinition]) -> [AchievementProblem] {
        var problems: [AchievementProblem] = []
        let byID = Dictionary(definitions.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        for definition in definitions {
            for prerequisite in definition.prerequisites where byID[prerequisite] == nil {
                problems.append(
                    AchievementProblem(
                        id: definition.id, kind: .unknownPrerequisite,
                        message: "unknown prerequisite '\(prerequisite)'"))
            }
        }
        // Depth-first search; every achievement on a cycle is reported with the cycle.
        var state: [String: Int] = [:]  // 1 = on the stack, 2 = done
        var stack: [String] = []
        var onCycle: [String: [String]] = [:]
        func visit(_ id: String) {
            state[id] = 1
            stack.append(id)
            for next in byID[id]?.prerequisites ?? [] where byID[next] != nil {
                if state[next] == 1, let start = stack.firstIndex(of: next) {
                    let cycle = Array(stack[start...]) + [next]
                    for member in stack[start...] where onCycle[member] == nil { onCycle[member] = cycle }
                } else if state[next] == nil {
                    visit(next)
                }
            }
            stack.removeLast()
            state[id] = 2
        }
        for definition in definitions where state[definition.id] == nil { visit(definition.id) }
        for definition in definitions {
            if let cycle = onCycle[definition.id] {
                problems.append(
                    AchievementProblem(
                        id: definition.id, kind: .prerequisiteCycle,
                        message: "prerequisite cycle: \(cycle.joined(separator: " → "))"))
            }
        }
        return problems
    }

    private static func fields(_ error: any Error, depth: Int) -> [String] {
        guard let error = error as? DecodingError else { return [] }
        var path: [any CodingKey]
        switch error {
        case let .keyNotFound(key, context): path = context.codingPath + [key]
        case let .typeMismatch(_, context), let .valueNotFound(_, context), let .dataCorrupted(context): path = context.codingPath
        @unknown default: path = []
        }
        return path.dropFirst(depth).map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }
    }

    private static func kind(of error: any Error, depth: Int) -> AchievementProblem.Kind {
        switch fields(error, depth: depth).first {
        case "id": .missingID
        case "calculator": .unknownCalculator
        case "parameters": .invalidParameter
        case "rarity": .invalidRarity
        case "category": .invalidCategory
        case "title", "description": .missingText
        case "validFrom", "validUntil": .invalidWindow
        default: .invalidEntry
        }
    }

    private static func describe(_ error: any Error, depth: Int) -> String {
        let field = fields(error, depth: depth).joined(separator: ".").replacingOccurrences(of: ".[", with: "[")
        guard let error = error as? DecodingError else { return "\(error)" }
        switch error {
        case .keyNotFound: return "missing '\(field)'"
        case let .typeMismatch(type, _): return "'\(field)' should be \(type)"
        case .valueNotFound: return "'\(field)' is null"
        case let .dataCorrupted(context): return field.isEmpty ? context.debugDescription : "'\(field)': \(context.debugDescription)"
        @unknown default: return "\(error)"
        }
    }

    private struct Ignored: Decodable { init(from decoder: any Decoder) throws {} }

    /// The line a JSON syntax error is on, from the error's text or its byte offset.
    static func lineNumber(of error: any Error, in data: Data) -> Int? {
        let ns = error as NSError
        var texts = [ns.localizedDescription, "\(error)"]
        // JSONDecoder's syntax errors say "around line N, column M"; JSONSerialization's may not.
        do { _ = try CheckedJSONDecoder().decode(Ignored.self, from: data) } catch let DecodingError.dataCorrupted(context) {
            texts.append(context.debugDescription)
            if let underlying = context.underlyingError {
                texts.append("\(underlying)")
                texts += (underlying as NSError).userInfo.values.map { "\($0)" }
            }
        } catch {}
        for value in ns.userInfo.values { texts.append("\(value)") }
        for text in texts {
            if let range = text.range(of: #"line \d+"#, options: .regularExpression) {
                return Int(text[range].dropFirst(5))
            }
        }
        if let offset = ns.userInfo["NSJSONSerializationErrorIndex"] as? Int {
            return data.prefix(offset).reduce(1) { $0 + ($1 == 0x0A ? 1 : 0) }
        }
        return JSONSyntaxLocator.errorLine(in: data)
    }
}
