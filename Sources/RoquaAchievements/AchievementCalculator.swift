import Foundation
import RoquaBoundaries
import RoquaProgress
import RoquaRegions

/// A parameter that does not suit a calculator.
public struct AchievementParameterError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What is wrong with the parameter, naming it.
    public var message: String
    /// Creates an error with `message`.
    public init(_ message: String) { self.message = message }
    /// The message itself.
    public var description: String { message }
}

/// Turns the context into progress towards one achievement. One small type per kind, chosen by
/// its name in the JSON (see `AchievementCalculators`); its initializer checks the parameters.
public protocol AchievementCalculator: Sendable {
    /// - Throws: when a statistic it needs cannot be computed (say, a stored radius out of range).
    func progress(_ context: AchievementContext) throws -> (current: Double, target: Double)
}

/// The calculators known by name, each with the function that sets it up from parameters.
public enum AchievementCalculators {
    typealias Maker = @Sendable (AchievementParameters) throws(AchievementParameterError) -> any AchievementCalculator

    static let makers: [(name: String, make: Maker)] = [
        ("milestone", { p throws(AchievementParameterError) in try MilestoneCalculator(parameters: p) }),
        ("city", { p throws(AchievementParameterError) in try CityCalculator(parameters: p) }),
        ("locality", { p throws(AchievementParameterError) in try LocalityCalculator(parameters: p) }),
        ("district", { p throws(AchievementParameterError) in try DistinctUnitCalculator(parameters: p, level: .district) }),
        ("province", { p throws(AchievementParameterError) in try DistinctUnitCalculator(parameters: p, level: .province) }),
        ("country", { p throws(AchievementParameterError) in try CountryCalculator(parameters: p) }),
        ("area", { p throws(AchievementParameterError) in try AreaCalculator(parameters: p) }),
        ("percentage", { p throws(AchievementParameterError) in try PercentageCalculator(parameters: p) }),
        ("daily_streak", { p throws(AchievementParameterError) in try StreakCalculator(parameters: p, weekends: false) }),
        ("weekend_streak", { p throws(AchievementParameterError) in try StreakCalculator(parameters: p, weekends: true) }),
        ("time_of_day", { p throws(AchievementParameterError) in try TimeOfDayCalculator(parameters: p) }),
        ("regions_per_hour", { p throws(AchievementParameterError) in try RegionsPerHourCalculator(parameters: p) }),
        ("revisit", { p throws(AchievementParameterError) in try RevisitCalculator(parameters: p) }),
        ("bounding_box", { p throws(AchievementParameterError) in try BoundingBoxCalculator(parameters: p) }),
        ("explorer_tiles", { p throws(AchievementParameterError) in try TravelCalculator(parameters: p, figure: .tiles) }),
        ("max_square", { p throws(AchievementParameterError) in try TravelCalculator(parameters: p, figure: .maxSquare) }),
        ("days_abroad", { p throws(AchievementParameterError) in try TravelCalculator(parameters: p, figure: .daysAbroad) }),
    ]

    /// Every calculator name an achievement may use, in a fixed order.
    public static var names: [String] { makers.map(\.name) }

    /// The calculator called `name`, set up from `parameters`; nil when no calculator has that name.
    /// - Throws: `AchievementParameterError` when a parameter does not suit it.
    public static func make(
        name: String, parameters: AchievementParameters
    )
        throws(AchievementParameterError) -> (any AchievementCalculator)?
    {
        guard let maker = makers.first(where: { $0.name == name }) else { return nil }
        return try maker.make(parameters)
    }
}

extension AchievementParameters {
    /// `target`, required, finite and > 0.
    func requiredTarget() throws(AchievementParameterError) -> Double {
        guard let target else { throw AchievementParameterError("missing parameter 'target'") }
        guard target.isFinite, target > 0 else { throw AchievementParameterError("'target' must be a number > 0, not \(target)") }
        return target
    }

    func optionalUnit() throws(AchievementParameterError) -> String? {
        guard let unit else { return nil }
        guard !unit.trimmingCharacters(in: .whitespaces).isEmpty else { throw AchievementParameterError("'unit' is empty") }
        return unit
    }

    func choice(_ value: String?, _ key: String, _ allowed: [String]) throws(AchievementParameterError) -> String {
        guard let value else { return allowed[0] }
        guard allowed.contains(value) else {
            throw AchievementParameterError("'\(key)' must be one of \(allowed.joined(separator: ", ")), not '\(value)'")
        }
        return value
    }
}

/// Travel figures: zoom-14 explorer tiles (target: tiles), the max square (target: its side) or
/// days abroad (target: days).
struct TravelCalculator: AchievementCalculator {
    enum Figure { case tiles, maxSquare, daysAbroad }
    let target: Double
    let figure: Figure
    init(parameters: AchievementParameters, figure: Figure) throws(AchievementParameterError) {
        target = try parameters.requiredTarget()
        self.figure = figure
    }
    func progress(_ context: AchievementContext) throws -> (current: Double, target: Double) {
        let travel = try context.travel()
        return switch figure {
        case .tiles: (Double(travel.tiles.tiles), target)
        case .maxSquare: (Double(travel.tiles.maxSquare), target)
        case .daysAbroad: (Double(travel.daysAbroad), target)
        }
    }
}

/// Regions explored in total (first_steps, explorer_100, …). Target: regions.
struct MilestoneCalculator: AchievementCalculator {
    let target: Double
    init(parameters: AchievementParameters) throws(AchievementParameterError) { target = try parameters.requiredTarget() }
    func progress(_ context: AchievementContext) -> (current: Double, target: Double) {
        (Double(context.regions.count), target)
    }
}

/// Regions explored inside one unit (`unit`, required: a province such as `TR-34`, or any code).
struct CityCalculator: AchievementCalculator {
    let target: Double
    let unit: String
    init(parameters: AchievementParameters) throws(AchievementParameterError) {
        target = try parameters.requiredTarget()
        guard let unit = try parameters.optionalUnit() else { throw AchievementParameterError("missing parameter 'unit'") }
        self.unit = unit
    }
    func progress(_ context: AchievementContext) -> (current: Double, target: Double) {
        (Double(context.regions(in: unit).count), target)
    }
}

/// Distinct localities (GeoNames towns and cities, by id) entered, optionally only inside `unit`.
struct LocalityCalculator: AchievementCalculator {
    let target: Double
    let unit: String?

    init(parameters: AchievementParameters) throws(AchievementParameterError) {
        target = try parameters.requiredTarget()
        unit = try parameters.optionalUnit()
    }

    func progress(_ context: AchievementContext) -> (current: Double, target: Double) {
        (Double(context.regions(in: unit).distinct(\.localityID).count), target)
    }
}

/// Distinct units of one level (districts or provinces) entered, optionally only inside `unit`.
struct DistinctUnitCalculator: AchievementCalculator {
    let target: Double
    let unit: String?
    let level: AdminLevel

    init(parameters: AchievementParameters, level: AdminLevel) throws(AchievementParameterError) {
        target = try parameters.requiredTarget()
        unit = try parameters.optionalUnit()
        self.level = level
    }

    func progress(_ context: AchievementContext) -> (current: Double, target: Double) {
        (Double(context.distinctCodes(in: unit, level: level)), target)
    }
}

/// Distinct countries entered, optionally only those on `continent` (needs the boundary tree).
struct CountryCalculator: AchievementCalculator {
    let target: Double
    let continent: String?
    init(parameters: AchievementParameters) throws(AchievementParameterError) {
        target = try parameters.requiredTarget()
        if let continent = parameters.continent, continent.trimmingCharacters(in: .whitespaces).isEmpty {
            throw AchievementParameterError("'continent' is empty")
        }
        continent = parameters.continent
    }
    func progress(_ context: AchievementContext) -> (current: Double, target: Double) {
        guard let continent else { return (Double(context.countryCodes.count), target) }
        return (Double(context.countryCodes.filter { context.continent(ofCountry: $0) == continent }.count), target)
    }
}

/// Explored area (union of circles). Target: km² (1 000 000 m² is target 1).
struct AreaCalculator: AchievementCalculator {
    let target: Double
    init(parameters: AchievementParameters) throws(AchievementParameterError) { target = try parameters.requiredTarget() }
    func progress(_ context: AchievementContext) throws -> (current: Double, target: Double) {
        (try context.exploredSquareKilometres(), target)
    }
}

/// Share of the world explored. Target: percent (0.001 = "Dünya'nın Binde Biri", a thousandth of the world).
struct PercentageCalculator: AchievementCalculator {
    let target: Double
    init(parameters: AchievementParameters) throws(AchievementParameterError) {
        target = try parameters.requiredTarget()
        guard target <= 100 else { throw AchievementParameterError("'target' is a percentage and cannot exceed 100") }
    }
    func progress(_ context: AchievementContext) -> (current: Double, target: Double) {
        (context.worldPercent, target)
    }
}

/// Consecutive days (or weekends) with a visit. `streak`: `longest` (default, ever) or `current`.
struct StreakCalculator: AchievementCalculator {
    let target: Double
    let current: Bool
    let weekends: Bool

    init(parameters: AchievementParameters, weekends: Bool) throws(AchievementParameterError) {
        target = try parameters.requiredTarget()
        current = try parameters.choice(parameters.streak, "streak", ["longest", "current"]) == "current"
        self.weekends = weekends
    }

    func progress(_ context: AchievementContext) -> (current: Double, target: Double) {
        let s = context.streaks
        let value = weekends ? (current ? s.currentWeekend : s.longestWeekendLength) : (current ? s.currentDaily : s.longestDailyLength)
        return (Double(value), target)
    }
}
