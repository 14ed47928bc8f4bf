import Foundation
import RoquaProgress

/// How rare an achievement is meant to be (the share of users meant to unlock it).
public enum AchievementRarity: String, Sendable, Codable, CaseIterable {
    case common, rare, epic, legendary

    /// Decodes a rarity from its name.
    ///
    /// - Throws: `DecodingError.dataCorrupted` for a name that is not a rarity, listing the valid ones.
    public init(from decoder: any Decoder) throws {
        let raw = try decoder.singleValueContainer().decode(String.self)
        guard let value = Self(rawValue: raw) else {
            throw DecodingError.dataCorrupted(
                .init(
                    codingPath: decoder.codingPath,
                    debugDescription:
                        "unknown rarity '\(raw)' (expected \(Self.allCases.map(\.rawValue).joined(separator: ", ")))"))
        }
        self = value
    }
}

/// The shelf an achievement is shown on.
public enum AchievementCategory: String, Sendable, Codable, CaseIterable {
    case milestone, city, district, province, country, exploration, temporal, behavioral, regional, landmark

    /// Decodes a category from its name.
    ///
    /// - Throws: `DecodingError.dataCorrupted` for a name that is not a category, listing the valid ones.
    public init(from decoder: any Decoder) throws {
        let raw = try decoder.singleValueContainer().decode(String.self)
        guard let value = Self(rawValue: raw) else {
            throw DecodingError.dataCorrupted(
                .init(
                    codingPath: decoder.codingPath,
                    debugDescription:
                        "unknown category '\(raw)' (expected \(Self.allCases.map(\.rawValue).joined(separator: ", ")))"))
        }
        self = value
    }
}

/// A text in Turkish and English; both are required and must not be blank.
public struct LocalizedText: Sendable, Codable, Equatable {
    /// The Turkish text.
    public var tr: String
    /// The English text.
    public var en: String

    /// Creates a text from both languages (not checked; the catalog refuses blank ones).
    public init(tr: String, en: String) {
        self.tr = tr
        self.en = en
    }

    /// The Turkish text for `tr`, the English text for any other language code.
    public func text(language: String) -> String { language == "tr" ? tr : en }
}

/// A latitude/longitude box (degrees); `west > east` would cross the antimeridian and is rejected.
public struct AchievementBoundingBox: Sendable, Codable, Equatable {
    /// Southern edge, degrees latitude.
    public var south: Double
    /// Western edge, degrees longitude.
    public var west: Double
    /// Northern edge, degrees latitude.
    public var north: Double
    /// Eastern edge, degrees longitude.
    public var east: Double

    /// Creates a box from its edges in degrees, unchecked (the catalog validates).
    public init(south: Double, west: Double, north: Double, east: Double) {
        self.south = south
        self.west = west
        self.north = north
        self.east = east
    }

    /// Whether the point lies in the box, edges included.
    public func contains(latitude: Double, longitude: Double) -> Bool {
        latitude >= south && latitude <= north && longitude >= west && longitude <= east
    }
}

/// The knobs a calculator reads; which ones are required depends on the calculator.
/// Unknown keys are an error, so a typo (`"continant"`) is reported instead of silently ignored.
public struct AchievementParameters: Sendable, Codable, Equatable {
    /// The amount to reach: regions, districts, km², percent, days, … (see each calculator).
    public var target: Double?
    /// An admin unit code (`TR-34`, `TR`) the count is limited to.
    public var unit: String?
    /// A continent name as in the boundary DB (`Europe`, `Asia`, …).
    public var continent: String?
    /// A box the count is limited to (the `bounding_box` calculator).
    public var bbox: AchievementBoundingBox?
    /// Time of day: start hour (inclusive) and end hour (exclusive), 0…24; `from > to` wraps midnight.
    public var fromHour: Int?
    /// Time of day: end hour (exclusive), 0…24; see `fromHour`.
    public var toHour: Int?
    /// An IANA time zone overriding the context's for time-of-day.
    public var timeZone: String?
    /// Time of day: count `regions` (default) or distinct `days`.
    public var count: String?
    /// Revisits: `sum` (default) or `max` over regions.
    public var mode: String?
    /// Regions per hour: the rolling window, 60 minutes by default.
    public var windowMinutes: Double?
    /// Regions per hour: the average speed (km/h) the regions must be reached at, 0 by default.
    public var minSpeedKmh: Double?
    /// Regions per hour: the distance (km) they must span, along their centres, 0 by default.
    public var minDistanceKm: Double?
    /// Streaks: `longest` (default) or `current`.
    public var streak: String?

    static let knownKeys: Set<String> = [
        "target", "unit", "continent", "bbox", "fromHour", "toHour", "timeZone",
        "count", "mode", "windowMinutes", "minSpeedKmh", "minDistanceKm", "streak",
    ]

    /// Creates parameters; every one left `nil` is absent, as in a JSON object without the key.
    public init(
        target: Double? = nil, unit: String? = nil, continent: String? = nil, bbox: AchievementBoundingBox? = nil,
        fromHour: Int? = nil, toHour: Int? = nil, timeZone: String? = nil, count: String? = nil,
        mode: String? = nil, windowMinutes: Double? = nil, minSpeedKmh: Double? = nil,
        minDistanceKm: Double? = nil, streak: String? = nil
    ) {
        self.target = target
        self.unit = unit
        self.continent = continent
        self.bbox = bbox
        self.fromHour = fromHour
        self.toHour = toHour
        self.timeZone = timeZone
        self.count = count
        self.mode = mode
        self.windowMinutes = windowMinutes
        self.minSpeedKmh = minSpeedKmh
        self.minDistanceKm = minDistanceKm
        self.streak = streak
    }

    private struct AnyKey: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    private enum CodingKeys: String, CodingKey {
        case target, unit, continent, bbox, fromHour, toHour, timeZone, count, mode, windowMinutes, minSpeedKmh,
            minDistanceKm, streak
    }

    /// Decodes the parameters object of a definition.
    ///
    /// - Throws: `DecodingError.dataCorrupted` naming every unknown key; `DecodingError.typeMismatch`
    ///   when a known key has a value of the wrong type.
    public init(from decoder: any Decoder) throws {
        let unknown = try decoder.container(keyedBy: AnyKey.self).allKeys.map(\.stringValue)
            .filter { !Self.knownKeys.contains($0) }.sorted()
        if !unknown.isEmpty {
            throw DecodingError.dataCorrupted(
                .init(
                    codingPath: decoder.codingPath,
                    debugDescription:
                        "unknown parameter\(unknown.count > 1 ? "s" : "") \(unknown.joined(separator: ", "))"))
        }
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            target: try c.decodeIfPresent(Double.self, forKey: .target),
            unit: try c.decodeIfPresent(String.self, forKey: .unit),
            continent: try c.decodeIfPresent(String.self, forKey: .continent),
            bbox: try c.decodeIfPresent(AchievementBoundingBox.self, forKey: .bbox),
            fromHour: try c.decodeIfPresent(Int.self, forKey: .fromHour),
            toHour: try c.decodeIfPresent(Int.self, forKey: .toHour),
            timeZone: try c.decodeIfPresent(String.self, forKey: .timeZone),
            count: try c.decodeIfPresent(String.self, forKey: .count),
            mode: try c.decodeIfPresent(String.self, forKey: .mode),
            windowMinutes: try c.decodeIfPresent(Double.self, forKey: .windowMinutes),
            minSpeedKmh: try c.decodeIfPresent(Double.self, forKey: .minSpeedKmh),
            minDistanceKm: try c.decodeIfPresent(Double.self, forKey: .minDistanceKm),
            streak: try c.decodeIfPresent(String.self, forKey: .streak))
    }
}

/// One bound of a validity window: a calendar date (`2025-06-01`, taken in the evaluation time
/// zone: `from` at the start of that day, `until` at its end) or an absolute ISO 8601 instant
/// (`2025-06-01T00:00:00Z`, `2025-06-01T09:00:00+03:00`).
public enum WindowBound: Sendable, Equatable {
    case day(year: Int, month: Int, day: Int)
    case instant(Date)

    /// Parses `YYYY-MM-DD` as a day (a date that does not exist is `nil`) or an ISO 8601 instant
    /// with or without fractional seconds; anything else is `nil`.
    public init?(iso text: String) {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        if text.count == 10, parts.count == 3, let y = Int(parts[0]), let m = Int(parts[1]), let d = Int(parts[2]),
            parts[0].count == 4, (1...12).contains(m), (1...31).contains(d)
        {
            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = TimeZone(identifier: "UTC")!
            guard let date = calendar.date(from: DateComponents(year: y, month: m, day: d)),
                calendar.component(.day, from: date) == d
            else { return nil }
            self = .day(year: y, month: m, day: d)
            return
        }
        let formatter = ISO8601DateFormatter()
        if let date = formatter.date(from: text) {
            self = .instant(date)
            return
        }
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        guard let date = formatter.date(from: text) else { return nil }
        self = .instant(date)
    }

    /// The instant this bound stands for: a day's start (`endOfDay` false) or the start of the next day.
    public func date(in timeZone: TimeZone, endOfDay: Bool) -> Date {
        switch self {
        case let .instant(date): return date
        case let .day(year, month, day):
            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = timeZone
            let start = calendar.date(from: DateComponents(year: year, month: month, day: day)) ?? Date.distantPast
            return endOfDay ? (calendar.date(byAdding: .day, value: 1, to: start) ?? start) : start
        }
    }
}

/// One achievement as written in `data/achievements.json` (or a user's file).
///
/// Validity window: when `validFrom`/`validUntil` are set, only regions *started* inside the
/// window count towards it, so progress freezes once the window has closed and nothing explored
/// outside it can unlock it (a reached target is still reported unlocked afterwards: it was earned
/// in time). Before the window opens its progress is 0.
public struct AchievementDefinition: Sendable, Codable, Equatable {
    /// The achievement's id, unique in its catalog.
    public var id: String
    /// The calculator's name, e.g. `milestone`, `district` (see `AchievementCalculators.names`).
    public var calculator: String
    /// The calculator's parameters (an empty set when the JSON has none).
    public var parameters: AchievementParameters
    /// The title shown to the user, in Turkish and English.
    public var title: LocalizedText
    /// What to do to unlock it, in Turkish and English.
    public var description: LocalizedText
    /// The icon shown with the achievement, as written in the file (never blank).
    public var icon: String
    /// How rare the achievement is meant to be.
    public var rarity: AchievementRarity
    /// The shelf it is shown on.
    public var category: AchievementCategory
    /// Whether its title is hidden (shown as `???`) until it is unlocked; `false` when absent.
    public var hidden: Bool
    /// Ids that must all be unlocked before this one can be.
    public var prerequisites: [String]
    /// Start of the validity window: a `YYYY-MM-DD` day or an ISO 8601 instant (see `WindowBound`).
    public var validFrom: String?
    /// End of the validity window, inclusive of the whole day for a `YYYY-MM-DD` day.
    public var validUntil: String?
    /// XP the unlock awards; 0 when absent.
    public var xp: Int

    /// Creates a definition, unchecked; `AchievementCatalog.load` validates definitions from a file.
    public init(
        id: String, calculator: String, parameters: AchievementParameters, title: LocalizedText,
        description: LocalizedText, icon: String, rarity: AchievementRarity, category: AchievementCategory,
        hidden: Bool = false, prerequisites: [String] = [], validFrom: String? = nil, validUntil: String? = nil,
        xp: Int = 0
    ) {
        self.id = id
        self.calculator = calculator
        self.parameters = parameters
        self.title = title
        self.description = description
        self.icon = icon
        self.rarity = rarity
        self.category = category
        self.hidden = hidden
        self.prerequisites = prerequisites
        self.validFrom = validFrom
        self.validUntil = validUntil
        self.xp = xp
    }

    private enum CodingKeys: String, CodingKey {
        case id, calculator, parameters, title, description, icon, rarity, category, hidden, prerequisites,
            validFrom, validUntil, xp
    }

    /// Decodes one definition; absent `parameters`, `hidden`, `prerequisites` and `xp` take their defaults.
    ///
    /// - Throws: `DecodingError` when a required key is missing or a value has the wrong type, or
    ///   what the rarity, category and parameters decoders throw.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            id: try c.decode(String.self, forKey: .id),
            calculator: try c.decode(String.self, forKey: .calculator),
            parameters: try c.decodeIfPresent(AchievementParameters.self, forKey: .parameters) ?? AchievementParameters(),
            title: try c.decode(LocalizedText.self, forKey: .title),
            description: try c.decode(LocalizedText.self, forKey: .description),
            icon: try c.decode(String.self, forKey: .icon),
            rarity: try c.decode(AchievementRarity.self, forKey: .rarity),
            category: try c.decode(AchievementCategory.self, forKey: .category),
            hidden: try c.decodeIfPresent(Bool.self, forKey: .hidden) ?? false,
            prerequisites: try c.decodeIfPresent([String].self, forKey: .prerequisites) ?? [],
            validFrom: try c.decodeIfPresent(String.self, forKey: .validFrom),
            validUntil: try c.decodeIfPresent(String.self, forKey: .validUntil),
            xp: try c.decodeIfPresent(Int.self, forKey: .xp) ?? 0)
    }

    /// The window's instants in `timeZone` (nil bounds are open), or nil when there is no window.
    public func window(in timeZone: TimeZone) -> (from: Date?, until: Date?)? {
        guard validFrom != nil || validUntil != nil else { return nil }
        return (
            validFrom.flatMap { WindowBound(iso: $0) }?.date(in: timeZone, endOfDay: false),
            validUntil.flatMap { WindowBound(iso: $0) }?.date(in: timeZone, endOfDay: true)
        )
    }
}
