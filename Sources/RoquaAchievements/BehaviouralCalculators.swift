import Foundation
import RoquaProgress
import RoquaRegions

/// Regions (or distinct days with a region) started between `fromHour` (inclusive) and `toHour`
/// (exclusive) local time; `fromHour > toHour` wraps midnight (23 → 5 is a night). The time zone
/// is the context's unless `timeZone` names one. For early bird, night owl.
struct TimeOfDayCalculator: AchievementCalculator {
    let target: Double
    let fromHour: Int
    let toHour: Int
    let timeZone: TimeZone?
    let countDays: Bool

    init(parameters: AchievementParameters) throws(AchievementParameterError) {
        target = try parameters.requiredTarget()
        guard let from = parameters.fromHour, let to = parameters.toHour else {
            throw AchievementParameterError("missing parameter 'fromHour' or 'toHour'")
        }
        guard (0...23).contains(from), (1...24).contains(to), from != to % 24 else {
            throw AchievementParameterError("hours must be 0…23 (from) and 1…24 (to) and differ, not \(from)–\(to)")
        }
        fromHour = from
        toHour = to
        if let identifier = parameters.timeZone {
            guard let zone = TimeZone(identifier: identifier) else {
                throw AchievementParameterError("unknown time zone '\(identifier)'")
            }
            timeZone = zone
        } else {
            timeZone = nil
        }
        countDays = try parameters.choice(parameters.count, "count", ["regions", "days"]) == "days"
    }

    func contains(hour: Int) -> Bool {
        fromHour < toHour ? (hour >= fromHour && hour < toHour) : (hour >= fromHour || hour < toHour % 24)
    }

    func progress(_ context: AchievementContext) -> (current: Double, target: Double) {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone ?? context.timeZone
        var regions = 0
        var days = Set<StreakDay>()
        for region in context.regions {
            let c = calendar.dateComponents([.year, .month, .day, .hour], from: region.timestampStart)
            guard let hour = c.hour, contains(hour: hour) else { continue }
            regions += 1
            days.insert(StreakDay(year: c.year ?? 0, month: c.month ?? 0, day: c.day ?? 0))
        }
        return (Double(countDays ? days.count : regions), target)
    }
}

/// The most regions started within any rolling window (`windowMinutes`, 60 by default).
/// For the speed explorer, "10+ regions in an hour".
struct RegionsPerHourCalculator: AchievementCalculator {
    let target: Double
    let window: TimeInterval

    init(parameters: AchievementParameters) throws(AchievementParameterError) {
        target = try parameters.requiredTarget()
        let minutes = parameters.windowMinutes ?? 60
        guard minutes.isFinite, minutes > 0 else {
            throw AchievementParameterError("'windowMinutes' must be > 0, not \(minutes)")
        }
        window = minutes * 60
    }

    func progress(_ context: AchievementContext) -> (current: Double, target: Double) {
        let starts = context.regions.map(\.timestampStart).sorted()
        var best = 0
        var low = 0
        for high in starts.indices {
            while starts[high].timeIntervalSince(starts[low]) >= window { low += 1 }
            best = max(best, high - low + 1)
        }
        return (Double(best), target)
    }
}

/// Returns to known regions: visits beyond the first, summed over regions (`mode: sum`, default)
/// or of the most revisited region (`mode: max`). For the return visitor.
struct RevisitCalculator: AchievementCalculator {
    let target: Double
    let maximum: Bool

    init(parameters: AchievementParameters) throws(AchievementParameterError) {
        target = try parameters.requiredTarget()
        maximum = try parameters.choice(parameters.mode, "mode", ["sum", "max"]) == "max"
    }

    func progress(_ context: AchievementContext) -> (current: Double, target: Double) {
        let revisits = context.regions.map { max(0, $0.visitCount - 1) }
        return (Double(maximum ? (revisits.max() ?? 0) : revisits.reduce(0, +)), target)
    }
}

/// Regions whose centre lies in `bbox` (`south`, `west`, `north`, `east`, degrees).
/// For Boğaz Kaşifi over the Bosphorus.
struct BoundingBoxCalculator: AchievementCalculator {
    let target: Double
    let box: AchievementBoundingBox

    init(parameters: AchievementParameters) throws(AchievementParameterError) {
        target = try parameters.requiredTarget()
        guard let box = parameters.bbox else { throw AchievementParameterError("missing parameter 'bbox'") }
        guard (-90...90).contains(box.south), (-90...90).contains(box.north), box.south < box.north,
              (-180...180).contains(box.west), (-180...180).contains(box.east), box.west < box.east else {
            throw AchievementParameterError("'bbox' needs -90 ≤ south < north ≤ 90 and -180 ≤ west < east ≤ 180")
        }
        self.box = box
    }

    func progress(_ context: AchievementContext) -> (current: Double, target: Double) {
        (Double(context.regions.filter { box.contains(latitude: $0.latitude, longitude: $0.longitude) }.count), target)
    }
}
