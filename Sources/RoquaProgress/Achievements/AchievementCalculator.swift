import Foundation
import RoquaBoundaries
import RoquaRegions

/// A parameter that does not suit a calculator.
public struct AchievementParameterError: Error, Sendable, Equatable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

/// Turns the context into progress towards one achievement. One small type per kind, chosen by
/// `name` from the JSON; its initializer checks the parameters it needs.
public protocol AchievementCalculator: Sendable {
    static var name: String { get }
    init(parameters: AchievementParameters) throws(AchievementParameterError)
    func progress(_ context: AchievementContext) -> (current: Double, target: Double)
}

/// The calculators known by name.
public enum AchievementCalculators {
    public static let all: [any AchievementCalculator.Type] = [
        MilestoneCalculator.self, CityCalculator.self, DistrictCalculator.self, ProvinceCalculator.self,
        CountryCalculator.self, AreaCalculator.self, PercentageCalculator.self, DailyStreakCalculator.self,
        WeekendStreakCalculator.self, TimeOfDayCalculator.self, RegionsPerHourCalculator.self,
        RevisitCalculator.self, BoundingBoxCalculator.self,
    ]

    public static var names: [String] { all.map { $0.name } }

    /// The calculator called `name`, set up from `parameters`; nil when no calculator has that name.
    public static func make(name: String, parameters: AchievementParameters)
        throws(AchievementParameterError) -> (any AchievementCalculator)? {
        guard let type = all.first(where: { $0.name == name }) else { return nil }
        return try type.init(parameters: parameters)
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

/// Regions explored in total (seed: first_steps, explorer_100, …). Target: regions.
public struct MilestoneCalculator: AchievementCalculator {
    public static let name = "milestone"
    let target: Double
    public init(parameters: AchievementParameters) throws(AchievementParameterError) { target = try parameters.requiredTarget() }
    public func progress(_ context: AchievementContext) -> (current: Double, target: Double) {
        (Double(context.regions.count), target)
    }
}

/// Regions explored inside one unit (`unit`, required: a province such as `TR-34`, or any code).
public struct CityCalculator: AchievementCalculator {
    public static let name = "city"
    let target: Double
    let unit: String
    public init(parameters: AchievementParameters) throws(AchievementParameterError) {
        target = try parameters.requiredTarget()
        guard let unit = try parameters.optionalUnit() else { throw AchievementParameterError("missing parameter 'unit'") }
        self.unit = unit
    }
    public func progress(_ context: AchievementContext) -> (current: Double, target: Double) {
        (Double(context.regions(in: unit).count), target)
    }
}

/// Distinct units of one level (districts or provinces) entered, optionally only inside `unit`.
struct DistinctUnits: Sendable {
    let target: Double
    let unit: String?
    let level: AdminLevel

    init(_ parameters: AchievementParameters, level: AdminLevel) throws(AchievementParameterError) {
        target = try parameters.requiredTarget()
        unit = try parameters.optionalUnit()
        self.level = level
    }

    func progress(_ context: AchievementContext) -> (current: Double, target: Double) {
        let codes = context.regions(in: unit).compactMap { level == .district ? $0.districtCode : $0.provinceCode }
        return (Double(Set(codes).count), target)
    }
}

/// Distinct districts entered, optionally only those inside `unit`.
public struct DistrictCalculator: AchievementCalculator {
    public static let name = "district"
    let counter: DistinctUnits
    public init(parameters: AchievementParameters) throws(AchievementParameterError) {
        counter = try DistinctUnits(parameters, level: .district)
    }
    public func progress(_ context: AchievementContext) -> (current: Double, target: Double) { counter.progress(context) }
}

/// Distinct provinces entered, optionally only those inside `unit` (e.g. `TR`).
public struct ProvinceCalculator: AchievementCalculator {
    public static let name = "province"
    let counter: DistinctUnits
    public init(parameters: AchievementParameters) throws(AchievementParameterError) {
        counter = try DistinctUnits(parameters, level: .province)
    }
    public func progress(_ context: AchievementContext) -> (current: Double, target: Double) { counter.progress(context) }
}

/// Distinct countries entered, optionally only those on `continent` (needs the boundary tree).
public struct CountryCalculator: AchievementCalculator {
    public static let name = "country"
    let target: Double
    let continent: String?
    public init(parameters: AchievementParameters) throws(AchievementParameterError) {
        target = try parameters.requiredTarget()
        if let continent = parameters.continent, continent.trimmingCharacters(in: .whitespaces).isEmpty {
            throw AchievementParameterError("'continent' is empty")
        }
        continent = parameters.continent
    }
    public func progress(_ context: AchievementContext) -> (current: Double, target: Double) {
        guard let continent else { return (Double(context.countryCodes.count), target) }
        return (Double(context.countryCodes.filter { context.continent(ofCountry: $0) == continent }.count), target)
    }
}

/// Explored area (union of circles). Target: km² (seed 000's 1 000 000 m² is target 1).
public struct AreaCalculator: AchievementCalculator {
    public static let name = "area"
    let target: Double
    public init(parameters: AchievementParameters) throws(AchievementParameterError) { target = try parameters.requiredTarget() }
    public func progress(_ context: AchievementContext) -> (current: Double, target: Double) {
        (context.exploredSquareKilometres, target)
    }
}

/// Share of the world explored. Target: percent (0.001 = seed's "Dünya'nın Binde Biri").
public struct PercentageCalculator: AchievementCalculator {
    public static let name = "percentage"
    let target: Double
    public init(parameters: AchievementParameters) throws(AchievementParameterError) {
        target = try parameters.requiredTarget()
        guard target <= 100 else { throw AchievementParameterError("'target' is a percentage and cannot exceed 100") }
    }
    public func progress(_ context: AchievementContext) -> (current: Double, target: Double) {
        (context.worldPercent, target)
    }
}

/// Consecutive days with a new region. `streak`: `longest` (default, ever) or `current`.
public struct DailyStreakCalculator: AchievementCalculator {
    public static let name = "daily_streak"
    let target: Double
    let current: Bool
    public init(parameters: AchievementParameters) throws(AchievementParameterError) {
        target = try parameters.requiredTarget()
        current = try parameters.choice(parameters.streak, "streak", ["longest", "current"]) == "current"
    }
    public func progress(_ context: AchievementContext) -> (current: Double, target: Double) {
        let s = context.streaks
        return (Double(current ? s.currentDaily : s.longestDailyLength), target)
    }
}

/// Consecutive weekends with a new region. `streak`: `longest` (default) or `current`.
public struct WeekendStreakCalculator: AchievementCalculator {
    public static let name = "weekend_streak"
    let target: Double
    let current: Bool
    public init(parameters: AchievementParameters) throws(AchievementParameterError) {
        target = try parameters.requiredTarget()
        current = try parameters.choice(parameters.streak, "streak", ["longest", "current"]) == "current"
    }
    public func progress(_ context: AchievementContext) -> (current: Double, target: Double) {
        let s = context.streaks
        return (Double(current ? s.currentWeekend : s.longestWeekendLength), target)
    }
}
