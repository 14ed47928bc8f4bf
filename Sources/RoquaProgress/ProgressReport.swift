import Foundation
import RoquaBoundaries
import RoquaRegions

/// Everything `roqua stats` shows, computed from the region store and the boundary DB.
public struct ProgressReport: Sendable, Codable {
    public var regions: Int
    public var countries: [ChildVisit]
    public var continents: [UnitProgress]
    /// Every visited unit that has children: countries (provinces x/N), provinces (districts x/N).
    public var units: [UnitProgress]
    /// Area of the union of all region circles.
    public var exploredSquareKilometres: Double
    /// Share of the Earth's surface in visited 0.001° cells, 0…100.
    public var worldPercent: Double
    public var worldPercentText: String
    public var streaks: StreakSummary
    public var timeZone: String

    public struct Options: Sendable {
        public var timeZone: TimeZone
        public var decimals: Int
        public var now: Date

        public init(timeZone: TimeZone = .current, decimals: Int = 5, now: Date = Date()) {
            self.timeZone = timeZone
            self.decimals = decimals
            self.now = now
        }
    }

    public init(regions: [VisitedRegion], hierarchy: BoundaryHierarchy, options: Options = Options()) throws {
        let calculator = ProgressCalculator(hierarchy: hierarchy, regions: regions)
        let circles = regions.map { ExploredCircle(latitude: $0.latitude, longitude: $0.longitude, radius: Double($0.radius)) }
        self.regions = regions.count
        countries = calculator.countries
        continents = calculator.continents
        units = calculator.visitedUnitsWithChildren
        exploredSquareKilometres = try ExploredArea.squareMeters(of: circles) / 1e6
        worldPercent = WorldGrid.percentage(of: circles)
        worldPercentText = WorldGrid.format(worldPercent, decimals: options.decimals)
        streaks = Streaks.summary(of: Streaks.activity(of: regions), now: options.now, timeZone: options.timeZone)
        timeZone = options.timeZone.identifier
    }

    /// The readable summary.
    public var text: String {
        var lines = ["\(regions) visited region(s)"]
        lines.append("Countries: \(countries.count)" + (countries.isEmpty ? "" : " — " + countries.map(\.name).joined(separator: ", ")))
        for continent in continents { lines.append("  \(continent.name): \(continent.visited)/\(continent.total) countries") }
        for unit in units {
            lines.append((unit.level == "country" ? "" : "  ") + unit.label)
        }
        lines.append(String(format: "Explored area: %.3f km² (union of the region circles)", exploredSquareKilometres))
        lines.append("World explored: \(worldPercentText) % (0.001° cells, weighted by their true area)")
        let longest = streaks.longestDaily.map { " (\($0.first) – \($0.last))" } ?? ""
        lines.append("Daily streak: \(streaks.currentDaily) current, \(streaks.longestDailyLength) longest\(longest)")
        lines.append("Weekend streak: \(streaks.currentWeekend) current, \(streaks.longestWeekendLength) longest"
                     + " (days counted in \(timeZone))")
        return lines.joined(separator: "\n")
    }
}
