import Foundation
import GRDB

/// The administrative tree of a boundary DB (no geometry): who is whose child, for "x/N".
public struct BoundaryHierarchy: Sendable {
    /// One unit of the tree, without geometry.
    public struct Unit: Sendable, Equatable {
        /// The unit's code, unique in the DB.
        public var code: String
        /// The unit's local name.
        public var name: String
        /// The unit's level.
        public var level: AdminLevel
        /// The parent unit's code, or `nil` for a country.
        public var parent: String?
        /// The code of the unit's country (its own code for a country).
        public var country: String
        /// The continent the source gives, or `nil` when the layer maps none.
        public var continent: String?
    }

    /// Every unit, by code.
    public let units: [String: Unit]
    /// Children codes by parent code, in code order.
    public let children: [String: [String]]

    /// Reads every unit and its parent from `database`.
    ///
    /// - Throws: GRDB's `DatabaseError` when the `boundaries` table cannot be read.
    public init(database: BoundaryDatabase) throws {
        var units: [String: Unit] = [:]
        var children: [String: [String]] = [:]
        try database.read { db in
            let rows = try Row.fetchAll(
                db,
                sql: """
                    SELECT b.code, b.name, b.level, p.code AS parent, b.country_code, b.continent
                    FROM boundaries b LEFT JOIN boundaries p ON b.parent_id = p.id ORDER BY b.code
                    """)
            for row in rows {
                let unit = Unit(
                    code: row["code"], name: row["name"], level: AdminLevel(rawValue: row["level"]) ?? .country,
                    parent: row["parent"], country: row["country_code"], continent: row["continent"])
                units[unit.code] = unit
                if let parent = unit.parent { children[parent, default: []].append(unit.code) }
            }
        }
        self.units = units
        self.children = children
    }

    /// Why `unit(named:)` found no single unit; each case names the query.
    public enum LookupError: Error, CustomStringConvertible, Equatable, Sendable {
        /// No unit has this name or code; `suggestions` are up to five close names, as `Name (CODE)`.
        case unknown(String, suggestions: [String])
        /// Several units of the widest matching level share the name; `candidates` lists them as `Name (CODE)`.
        case ambiguous(String, candidates: [String])
        /// The query is longer than any unit name (its length in characters).
        case tooLong(Int)

        /// One line naming the query, with suggestions or candidates where there are some.
        public var description: String {
            switch self {
            case let .unknown(name, suggestions):
                "no unit called '\(name)'" + (suggestions.isEmpty ? "" : "; did you mean \(suggestions.joined(separator: ", "))?")
            case let .tooLong(length):
                "a unit name or code has at most \(BoundaryHierarchy.longestQuery) characters, not \(length)"
            case let .ambiguous(name, candidates):
                "'\(name)' names \(candidates.count) units: \(candidates.prefix(8).joined(separator: ", "))"
                    + (candidates.count > 8 ? ", … and \(candidates.count - 8) more" : "") + "; give a code"
            }
        }
    }

    /// The unit named by a code (`TR-34`) or a name (`istanbul`, `İSTANBUL`), without case or
    /// Turkish dots mattering; an unknown name gets the closest names as suggestions.
    /// - Throws: `LookupError.tooLong` for a query over 200 characters; `.ambiguous` when several
    ///   units of the widest matching level match; `.unknown`, with suggestions, when none does.
    public func unit(named query: String) throws -> Unit {
        guard query.count <= Self.longestQuery else { throw LookupError.tooLong(query.count) }
        if let unit = units[query] ?? units[query.uppercased()] { return unit }
        let wanted = NameFolding.fold(query)
        let matches = units.values.filter { NameFolding.fold($0.name) == wanted || NameFolding.fold($0.code) == wanted }
        if matches.count == 1 { return matches[0] }
        // A country and its namesake province (e.g. a city-state) differ in level: prefer the wider.
        if let widest = matches.min(by: { $0.level < $1.level }), matches.filter({ $0.level == widest.level }).count == 1 {
            return widest
        }
        if matches.count > 1 {
            throw LookupError.ambiguous(query, candidates: matches.map { "\($0.name) (\($0.code))" }.sorted())
        }
        let scored = units.values.map { (unit: $0, distance: Self.editDistance(wanted, NameFolding.fold($0.name))) }
            .filter { $0.distance <= max(2, wanted.count / 3) }
            .sorted { ($0.distance, $0.unit.code) < ($1.distance, $1.unit.code) }
        throw LookupError.unknown(query, suggestions: scored.prefix(5).map { "\($0.unit.name) (\($0.unit.code))" })
    }

    /// Longer than any unit's name in any language: a longer query is a mistake, and would make
    /// the suggestion search (an edit distance per unit) slow.
    static let longestQuery = 200

    /// Levenshtein distance over characters.
    static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        if a.isEmpty || b.isEmpty { return max(a.count, b.count) }
        var previous = Array(0...b.count)
        for i in 1...a.count {
            var current = [i] + Array(repeating: 0, count: b.count)
            for j in 1...b.count {
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
            previous = current
        }
        return previous[b.count]
    }
}
