import Foundation
import RoquaBoundaries
import RoquaProgress
import RoquaRegions

/// Everything calculators read: the regions, the boundary tree (for continents), the user's time
/// zone and "now". Build it once per evaluation; the expensive statistics (explored area, world
/// percentage, streaks, distinct unit sets) are computed on first use and then reused by every
/// achievement that needs them. Not shared across threads: one evaluation owns one context.
public final class AchievementContext {
    /// The regions every statistic is computed from (a slice: a context of the regions entered
    /// up to a moment shares the whole list's storage).
    public let regions: ArraySlice<VisitedRegion>
    /// The boundary tree, for continent counts; `nil` makes continent-limited counts 0.
    public let hierarchy: BoundaryHierarchy?
    /// The zone whose calendar days and hours the temporal calculators use.
    public let timeZone: TimeZone
    /// The instant the evaluation is made at (current streaks, validity windows).
    public let now: Date

    /// What the travel calculators read beyond the regions (explorer tiles, days abroad), loaded
    /// on first use; nil: none recorded (a context made from regions alone).
    private let travelLoader: (() throws -> TravelFacts)?

    /// Creates a context; no statistic is computed until a calculator asks for it.
    /// `memory`: where the explored area and world share of a big store are remembered.
    public convenience init(
        regions: [VisitedRegion], hierarchy: BoundaryHierarchy? = nil, timeZone: TimeZone = .current,
        now: Date = Date(), travel: (() throws -> TravelFacts)? = nil, memory: (any FigureMemory)? = nil
    ) {
        self.init(slice: regions[...], hierarchy: hierarchy, timeZone: timeZone, now: now, travel: travel, memory: memory)
    }

    /// A context of `slice`, sharing its storage.
    init(
        slice: ArraySlice<VisitedRegion>, hierarchy: BoundaryHierarchy?, timeZone: TimeZone, now: Date,
        travel: (() throws -> TravelFacts)?, memory: (any FigureMemory)? = nil
    ) {
        self.regions = slice
        self.hierarchy = hierarchy
        self.timeZone = timeZone
        self.now = now
        travelLoader = travel
        self.memory = memory
    }

    private let memory: (any FigureMemory)?
    private lazy var figures = ExploredFigures(circles, memory: memory)

    private var loadedTravel: TravelFacts?

    /// Explorer tiles and days abroad, loaded once.
    public func travel() throws -> TravelFacts {
        if let loadedTravel { return loadedTravel }
        let facts = try travelLoader?() ?? TravelFacts(tiles: TileStats(zoom: 14, visited: []), daysAbroad: 0)
        loadedTravel = facts
        return facts
    }

    public private(set) lazy var circles: [ExploredCircle] = regions.map {
        ExploredCircle(latitude: $0.latitude, longitude: $0.longitude, radius: Double($0.radius))
    }

    /// Area of the union of the regions' circles in km², computed once (or remembered).
    /// - Throws: `ExploredAreaError` when a stored region has a radius the computation refuses.
    public func exploredSquareKilometres() throws -> Double {
        try figures.squareMeters() / 1_000_000
    }

    /// After a write that changed the regions (`added`: an import that added the last ones): a big
    /// store's explored area and world share left remembered (`ExploredFigures.keepRemembered`).
    func keepFiguresRemembered(afterAdding added: Int? = nil) {
        figures.keepRemembered(afterAdding: added)
    }

    /// The share of the Earth's surface explored, in percent.
    public private(set) lazy var worldPercent: Double = figures.worldPercent()

    /// The same streaks `roqua stats` shows (one definition of activity: `Streaks.activity(of:)`),
    /// from the activity up to `now` (a context of the regions entered up to a moment does not
    /// count their later revisits).
    public private(set) lazy var streaks: StreakSummary =
        Streaks.summary(of: Streaks.activity(of: regions), now: now, timeZone: timeZone)

    public private(set) lazy var countryCodes: Set<String> = regions.distinct(\.countryCode)

    /// The regions' first entries in time order (a stable order: equal times keep the regions'
    /// order), as seconds since 2001 and centres: what the pace calculators walk, made once for
    /// all of them instead of a sorted copy of the regions each.
    lazy var startsInOrder: [(time: Double, latitude: Double, longitude: Double)] = {
        let regions = self.regions, base = regions.startIndex
        let starts = regions.map(\.timestampStart.timeIntervalSinceReferenceDate)
        let order = starts.indices.sorted { starts[$0] != starts[$1] ? starts[$0] < starts[$1] : $0 < $1 }
        return order.map { (starts[$0], regions[base + $0].latitude, regions[base + $0].longitude) }
    }()

    private var distinctCodes: [String: Int] = [:]

    /// How many distinct province or district codes the regions in `unit` have, counted once per
    /// unit and level for all the calculators that ask.
    func distinctCodes(in unit: String?, level: AdminLevel) -> Int {
        let key = "\(level == .district ? "d" : "p")\(unit.map { "=" + $0 } ?? "*")"
        if let known = distinctCodes[key] { return known }
        let count = Set(regions(in: unit).compactMap { level == .district ? $0.districtCode : $0.provinceCode }).count
        distinctCodes[key] = count
        return count
    }

    /// Regions in `unit`: a country, province or district code matching the region's own codes.
    public func regions(in unit: String?) -> ArraySlice<VisitedRegion> {
        guard let unit else { return regions }
        return regions.filter { $0.countryCode == unit || $0.provinceCode == unit || $0.districtCode == unit }[...]
    }

    /// The continent of a country code, from the boundary tree (nil without one).
    public func continent(ofCountry code: String) -> String? { hierarchy?.units[code]?.continent }

    private var restricted: [String: AchievementContext] = [:]

    /// The same context with only the regions started in `[from, until)`, cached per window.
    public func restricted(from: Date?, until: Date?) -> AchievementContext {
        let key = "\(from?.timeIntervalSince1970 ?? -.infinity)|\(until?.timeIntervalSince1970 ?? .infinity)"
        if let cached = restricted[key] { return cached }
        let kept = regions.filter { region in
            (from.map { region.timestampStart >= $0 } ?? true) && (until.map { region.timestampStart < $0 } ?? true)
        }
        let context = AchievementContext(regions: kept, hierarchy: hierarchy, timeZone: timeZone, now: now, travel: nil)
        restricted[key] = context
        return context
    }
}

/// The travel figures achievements can ask for (`explorer_tiles`, `max_square`, `days_abroad`).
public struct TravelFacts: Sendable {
    /// Zoom-14 explorer tiles, max cluster and max square.
    public var tiles: TileStats
    /// Days with a ground fix outside the home country (the one with the most days).
    public var daysAbroad: Int

    public init(tiles: TileStats, daysAbroad: Int) {
        self.tiles = tiles
        self.daysAbroad = daysAbroad
    }
}
