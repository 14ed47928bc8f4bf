import Foundation
import RoquaBoundaries
import RoquaRegions

/// Everything `roqua stats` shows, computed from the region store and the boundary DB.
public struct ProgressReport: Sendable, Codable {
    /// Number of visited regions the report was computed from.
    public var regions: Int
    /// Visited countries, earliest first visit first.
    public var countries: [ChildVisit]
    /// Countries visited per continent (only continents with a visit), in name order.
    public var continents: [UnitProgress]
    /// Every visited unit that has children: countries (provinces x/N), provinces (districts x/N).
    public var units: [UnitProgress]
    /// Localities (GeoNames towns and cities) visited per country.
    public var localities: [CountryLocalities]
    /// Area of the union of all region circles.
    public var exploredSquareKilometres: Double
    /// Share of the Earth's surface in visited 0.001° cells, 0…100.
    public var worldPercent: Double
    /// `worldPercent` with `Options.decimals` decimals (4…9), as printed.
    public var worldPercentText: String
    /// Daily and weekend streaks as of `Options.now`.
    public var streaks: StreakSummary
    /// Identifier of the time zone streak days were counted in, e.g. `Europe/Istanbul`.
    public var timeZone: String

    /// How the report counts days and prints the world share.
    public struct Options: Sendable {
        /// The zone whose calendar days the streaks count.
        public var timeZone: TimeZone
        /// Decimals of `worldPercentText`; clamped to 4…9.
        public var decimals: Int
        /// The instant the current streaks are counted up to.
        public var now: Date

        /// Creates options: by default the current zone, 5 decimals, and now.
        public init(timeZone: TimeZone = .current, decimals: Int = 5, now: Date = Date()) {
            self.timeZone = timeZone
            self.decimals = decimals
            self.now = now
        }
    }

    /// Computes the report for `regions` (enriched with unit codes) over the units of `hierarchy`.
    ///
    /// - Throws: `ExploredAreaError.invalidCircle` when a region's centre or radius cannot be
    ///   measured (not finite, latitude outside ±90°, radius negative or over `ExploredArea.maximumRadius`).
    ///   `memory`: where the explored area and world share of a big store are remembered (see
    ///   `ExploredFigures`); nil computes them.
    public init(
        regions: [VisitedRegion], hierarchy: BoundaryHierarchy, options: Options = Options(),
        memory: (any FigureMemory)? = nil
    ) throws {
        var tally = ProgressTally(timeZone: options.timeZone, now: options.now, expected: regions.count)
        for region in regions { tally.add(RegionFacts(region)) }
        try self.init(tally: tally, hierarchy: hierarchy, options: options, memory: memory)
    }

    /// The report of every readable region of `store`, read once and not held (a million regions
    /// in well under a second): the same report as from `store.allRegions()`.
    ///
    /// `together`: a second handle of the same store and a writable one (all three distinct): a
    /// big store's regions are then read in two halves at once, on one snapshot (see
    /// `RegionStore.readTogether`); alone when a writer is at work.
    /// - Throws: as `init(regions:…)`; `RegionStoreError` when the store cannot be read.
    public init(
        store: RegionStore, hierarchy: BoundaryHierarchy, options: Options = Options(),
        memory: (any FigureMemory)? = nil, together: (second: RegionStore, lock: RegionStore)? = nil
    ) throws {
        if let together, let tally = try Self.tallyInHalves(store, together.second, lock: together.lock, options: options) {
            try self.init(tally: tally, hierarchy: hierarchy, options: options, memory: memory)
            return
        }
        var tally = ProgressTally(timeZone: options.timeZone, now: options.now, expected: try store.regionCount())
        try store.forEachRegionFacts { tally.add($0) }
        try self.init(tally: tally, hierarchy: hierarchy, options: options, memory: memory)
    }

    /// Stores with fewer region ids are read alone (two threads gain nothing worth a lock).
    public static let halvesFrom: Int64 = 100_000

    private static func tallyInHalves(
        _ store: RegionStore, _ second: RegionStore, lock: RegionStore,
        options: Options
    ) throws -> ProgressTally? {
        let (zone, now) = (options.timeZone, options.now)
        guard
            let (first, later) = try store.tallyFactsInHalves(
                second: second, lock: lock, minimumIDs: halvesFrom,
                start: { ProgressTally(timeZone: zone, now: now, expected: $0) }, add: { $0.add($1) })
        else { return nil }
        var tally = first
        tally.append(later)
        return tally
    }

    private init(tally: consuming ProgressTally, hierarchy: BoundaryHierarchy, options: Options, memory: (any FigureMemory)?) throws {
        let (firstVisits, localities, days) = tally.finish()
        let calculator = ProgressCalculator(hierarchy: hierarchy, firstVisits: firstVisits)
        regions = tally.regions
        countries = calculator.countries
        continents = calculator.continents
        units = calculator.visitedUnitsWithChildren
        self.localities = localities
        let figures = ExploredFigures(tally.circles, memory: memory)
        let (squareMeters, percent) = try figures.squareMetersAndWorldPercent()
        exploredSquareKilometres = squareMeters / 1e6
        worldPercent = percent
        worldPercentText = WorldGrid.format(worldPercent, decimals: options.decimals)
        streaks = Streaks.summary(days: days, now: options.now, timeZone: options.timeZone)
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
        if !localities.isEmpty {
            lines.append("Localities: \(localities.reduce(0) { $0 + $1.localities.count })")
            for country in localities { lines.append("  " + country.label) }
        }
        lines.append(String(format: "Explored area: %.3f km² (union of the region circles)", exploredSquareKilometres))
        let cells = worldPercent / 100 * WorldGrid.earthSquareKilometres
        lines.append(
            "World explored: \(WorldGrid.readable(worldPercent)) of the Earth's surface"
                + " (\(cells < 10 ? String(format: "%.2f", cells) : String(format: "%.0f", cells)) km² of"
                + " \(Int((WorldGrid.earthSquareKilometres / 1e6).rounded())) million, counted in 0.001° cells)")
        let longest = streaks.longestDaily.map { " (\($0.first) – \($0.last))" } ?? ""
        lines.append("Daily streak: \(streaks.currentDaily) current, \(streaks.longestDailyLength) longest\(longest)")
        lines.append(
            "Weekend streak: \(streaks.currentWeekend) current, \(streaks.longestWeekendLength) longest"
                + " (days counted in \(timeZone))")
        return lines.joined(separator: "\n")
    }
}
