import Foundation
import RoquaBoundaries
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
        var reckoner = DayReckoner(timeZone: timeZone ?? context.timeZone)
        var regions = 0
        var days = Set<StreakDay>()
        for region in context.regions {
            let (day, hour) = reckoner.dayAndHour(of: region.timestampStart)
            guard contains(hour: hour) else { continue }
            regions += 1
            days.insert(day)
        }
        return (Double(countDays ? days.count : regions), target)
    }
}

/// The most regions entered within a rolling window (`windowMinutes`, 60 by default) while moving:
/// a run of regions counts only when, from its first region's entry to its last's, the path along
/// their centres is at least `minDistanceKm` long and was covered at `minSpeedKmh` or more on
/// average. A hop between two regions faster than `groundSpeedLimit` (a flight's ends, a jump of
/// the GPS) breaks the run. With 150 m regions a walk enters ten an hour, so the speed badges need
/// the speed and distance, not just the count.
struct RegionsPerHourCalculator: AchievementCalculator {
    /// km/h no one reaches on the ground (the fastest trains run at 350).
    static let groundSpeedLimit = 400.0

    let target: Double
    let window: TimeInterval
    let minSpeed: Double  // m/s
    let minDistance: Double  // m

    init(parameters: AchievementParameters) throws(AchievementParameterError) {
        target = try parameters.requiredTarget()
        let minutes = parameters.windowMinutes ?? 60
        guard minutes.isFinite, minutes > 0 else {
            throw AchievementParameterError("'windowMinutes' must be > 0, not \(minutes)")
        }
        window = minutes * 60
        let speed = parameters.minSpeedKmh ?? 0, distance = parameters.minDistanceKm ?? 0
        guard speed.isFinite, speed >= 0, speed < Self.groundSpeedLimit else {
            throw AchievementParameterError("'minSpeedKmh' must be 0…\(Int(Self.groundSpeedLimit)) km/h, not \(speed)")
        }
        guard distance.isFinite, distance >= 0 else {
            throw AchievementParameterError("'minDistanceKm' must be ≥ 0, not \(distance)")
        }
        minSpeed = speed / 3.6
        minDistance = distance * 1000
    }

    func progress(_ context: AchievementContext) -> (current: Double, target: Double) {
        let regions = context.startsInOrder
        guard !regions.isEmpty else { return (0, target) }
        // path[i]: metres along the centres from the run's start to region i; a too-fast hop starts a new run.
        var path = [0.0], runStart = [0]
        for i in regions.indices.dropFirst() {
            let a = regions[i - 1], b = regions[i]
            let hop = Geodesy.haversineMeters(
                Coordinate(latitude: a.latitude, longitude: a.longitude),
                Coordinate(latitude: b.latitude, longitude: b.longitude))
            let seconds = b.time - a.time
            let tooFast = hop > 1000 && hop > Self.groundSpeedLimit / 3.6 * max(seconds, 0)
            path.append(tooFast ? 0 : path[i - 1] + hop)
            runStart.append(tooFast ? i : runStart[i - 1])
        }
        var best = 0
        var low = 0
        for high in regions.indices {
            low = max(low, runStart[high])
            while regions[high].time - regions[low].time >= window { low += 1 }
            // The earliest start that qualifies gives this end its largest count.
            var start = low
            while high - start + 1 > best {
                let metres = path[high] - path[start]
                let seconds = regions[high].time - regions[start].time
                if metres >= minDistance && (minSpeed == 0 || (seconds > 0 && metres / seconds >= minSpeed)) {
                    best = high - start + 1
                }
                start += 1
            }
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
            (-180...180).contains(box.west), (-180...180).contains(box.east), box.west < box.east
        else {
            throw AchievementParameterError("'bbox' needs -90 ≤ south < north ≤ 90 and -180 ≤ west < east ≤ 180")
        }
        self.box = box
    }

    func progress(_ context: AchievementContext) -> (current: Double, target: Double) {
        (Double(context.regions.filter { box.contains(latitude: $0.latitude, longitude: $0.longitude) }.count), target)
    }
}
