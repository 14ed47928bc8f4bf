import Foundation
import RoquaBoundaries

/// Why a fix was not used.
public enum ClusterDropReason: Sendable, Hashable {
    /// Latitude/longitude not finite or outside ±90 / ±180.
    case invalidCoordinate
    /// The timestamp is not a finite date.
    case invalidTimestamp
    /// Accuracy worse than `ClusteringSettings.maxAccuracy`, or negative / NaN (receivers use those for "no fix").
    case accuracy
    /// Same timestamp and same coordinate as a fix already accepted in this run.
    case duplicate
}

/// What one fix did. Indices are positions in `ClusteringEngine.regions`.
public enum ClusterOutcome: Sendable, Equatable {
    case dropped(ClusterDropReason)
    /// The fix was in no region and started this one (id nil, no names yet: enrichment is the caller's).
    case newRegion(VisitedRegion, index: Int)
    /// The fix belongs to a visit the region already had (it may stretch that visit, or join two into one).
    case sameVisit(index: Int)
    /// The fix is a visit of its own to a region that already existed (visitCount went up by one).
    case revisit(index: Int)
}

/// Turns fixes into visited regions (the rules below): pure, deterministic, no I/O.
///
/// Rules:
/// - A fix is checked in this order: invalid coordinate, invalid timestamp, accuracy (nil accuracy is accepted,
///   accuracy equal to the threshold too), duplicate (same timestamp and coordinate as one of the last
///   `duplicateWindow` accepted fixes — loggers repeat a fix right after itself; a repeat from further back
///   falls into the same region and visit anyway, so only the drop count differs, and memory stays bounded).
/// - A fix is inside a region when its haversine distance to the centre is ≤ the region's radius. Every region
///   (loaded or created in this run) is found through `RegionGrid`, not just the last one; when several contain
///   the fix, the oldest (lowest index) wins. Not the nearest centre: with "oldest", a fix goes where it went
///   the first time whatever regions were created after it, so importing the same fixes again changes nothing.
/// - A fix in no region starts one centred on it, with the settings' radius (or walking / vehicle radius by speed
///   — the fix's own speed when valid, else distance / |Δt| to the previous accepted fix in processing order
///   when at most `speedDerivationMaxInterval` apart, else walking), and the centre's geohash.
/// - Visit bookkeeping per region is `VisitTimeline`: fixes ≤ `visitGap` apart are one visit; order of input does
///   not matter for the visit counts and times (see there for what a stored multi-visit region can and cannot
///   tell). The only order-dependent outputs are geometric: which fix becomes a centre, and so which region a
///   later fix falls in.
/// - `timestampEnd` is always set (the last fix of the latest visit), including for a region made from one fix.
public struct ClusteringEngine {
    /// The thresholds every fix is judged by.
    public let settings: ClusteringSettings
    /// All regions: the ones given at init (same order, same indices) followed by new ones in creation order,
    /// with visit fields updated.
    public private(set) var regions: [VisitedRegion]
    /// How many regions came in at init; `regions[existingRegionCount...]` are new.
    public let existingRegionCount: Int

    private var grid: RegionGrid
    /// Each region's centre and radius, with cos(latitude) so a fix pays one cosine, not one per
    /// candidate: read without touching the regions' names (no reference counting per candidate).
    private var centres: [Centre]

    private struct Centre {
        var latitude: Double
        var longitude: Double
        var radius: Double
        var cosine: Double

        init(_ latitude: Double, _ longitude: Double, radius: Int) {
            self.latitude = latitude
            self.longitude = longitude
            self.radius = Double(radius)
            cosine = cos(latitude * .pi / 180)
        }
    }
    /// Visit timelines of more than one span, made in this run: a timeline of one span is what
    /// its region's own times and count say (`VisitTimeline(start:end:lastVisit:visitCount:)` gives it back exactly), so
    /// it is made again from them at each fix rather than kept — most regions of a big import.
    private var timelines: [VisitTimeline] = []
    /// Each region's place in `timelines`, -1 for none.
    private var timelineSlots: [Int32]
    private var changedExisting = Set<Int>()
    private var recentFixes: [FixKey] = []
    private var recentNext = 0
    /// How many recent accepted fixes duplicates are looked for among (a linear scan: no hashing per fix).
    public static let duplicateWindow = 16
    private var previousAccepted: (coordinate: Coordinate, timestamp: Date)?

    private struct FixKey: Hashable {
        var time: Double
        var latitude: Double
        var longitude: Double
    }

    /// Creates an engine that clusters new fixes against `existingRegions` (kept at their indices)
    /// under `settings`, which the caller has validated.
    public init(settings: ClusteringSettings = .default, existingRegions: [VisitedRegion] = []) {
        self.settings = settings
        regions = existingRegions
        existingRegionCount = existingRegions.count
        // Room for new regions beside the existing ones, as the caller's regions may have (see
        // `RegionStore.regions(_:growing:)`): one more in arrays of a million's exact size copies them.
        let room = RegionStore.roomToGrow(existingRegions.count)
        timelineSlots = []
        timelineSlots.reserveCapacity(room)
        timelineSlots.append(contentsOf: repeatElement(-1, count: existingRegions.count))
        // Cells at least as large as the largest radius any region has or will get, so a 3 × 3 look-up sees
        // every region that can contain a fix.
        let largest = existingRegions.reduce(settings.largestNewRadius) { max($0, $1.radius) }
        grid = RegionGrid(cellMeters: Double(largest))
        centres = []
        centres.reserveCapacity(room)
        centres.append(
            contentsOf: existingRegions.lazy.map { Centre($0.latitude, $0.longitude, radius: settings.joiningRadius($0.radius)) })
        for (index, region) in existingRegions.enumerated()
        where region.latitude.isFinite && region.longitude.isFinite {
            grid.insert(index, latitude: region.latitude, longitude: region.longitude)
        }
    }

    /// Indices of loaded regions this run modified, ascending: the caller persists these plus the new ones.
    public var changedRegionIndices: [Int] { changedExisting.sorted() }

    /// How many loaded regions this run modified.
    public var changedRegionCount: Int { changedExisting.count }

    /// Indices of regions created in this run.
    public var newRegionIndices: Range<Int> { existingRegionCount..<regions.count }

    public mutating func process(_ fix: Fix) -> ClusterOutcome {
        let coordinate = fix.coordinate, time = fix.timestamp
        guard (try? coordinate.validated()) != nil else { return .dropped(.invalidCoordinate) }
        guard time.timeIntervalSinceReferenceDate.isFinite else { return .dropped(.invalidTimestamp) }
        if let accuracy = fix.accuracy, !(accuracy >= 0 && accuracy <= settings.maxAccuracy) {
            return .dropped(.accuracy)
        }
        let key = FixKey(
            time: time.timeIntervalSinceReferenceDate, latitude: coordinate.latitude,
            longitude: coordinate.longitude)
        guard !recentFixes.contains(key) else { return .dropped(.duplicate) }
        if recentFixes.count < Self.duplicateWindow {
            recentFixes.append(key)
        } else {
            recentFixes[recentNext] = key
            recentNext = (recentNext + 1) % Self.duplicateWindow
        }

        let speed = settings.speedBasedRadius ? speed(of: fix) : nil
        previousAccepted = (coordinate, time)

        guard let index = containingRegion(coordinate) else {
            return .newRegion(addRegion(fix, speed: speed), index: regions.count - 1)
        }

        let slot = Int(timelineSlots[index])
        let change: VisitTimeline.Change, timeline: VisitTimeline.Summary
        if slot >= 0 {
            // Changed and read in place: a copy would share the spans' storage and copy it on the
            // write (and retain it on the read), once per fix.
            change = timelines[slot].insert(time, gap: settings.visitGap)
            timeline = timelines[slot].summary
        } else {
            var made = VisitTimeline(
                start: regions[index].timestampStart, end: regions[index].timestampEnd,
                lastVisit: regions[index].lastVisit, visitCount: regions[index].visitCount)
            change = made.insert(time, gap: settings.visitGap)
            if made.spanCount > 1 {
                precondition(timelines.count < Int32.max, "more multi-visit regions than one import can hold")
                timelineSlots[index] = Int32(timelines.count)
                timelines.append(made)
            }
            timeline = made.summary
        }
        if case .none = change { return .sameVisit(index: index) }
        regions[index].timestampStart = timeline.timestampStart
        regions[index].timestampEnd = timeline.timestampEnd
        regions[index].lastVisit = timeline.lastVisit
        regions[index].visitCount = timeline.visitCount
        // Any change moves the start earlier, the end later or adds a visit, so the stored row is out of date.
        if index < existingRegionCount { changedExisting.insert(index) }
        if case .newVisit = change { return .revisit(index: index) }
        return .sameVisit(index: index)
    }

    /// Puts `named` — region `index` as the caller enriched and stored it (names, codes, id) — in
    /// the region's place, so that the caller keeps no second copy of every new region. Its
    /// centre, radius and visits must be the region's own.
    package mutating func adopt(_ named: VisitedRegion, at index: Int) {
        precondition(
            named.latitude == regions[index].latitude && named.longitude == regions[index].longitude
                && named.radius == regions[index].radius && named.timestampStart == regions[index].timestampStart,
            "adopt: not the same region")
        regions[index] = named
    }

    /// Hands over `regions`, leaving the engine with none (the last use of an engine whose
    /// regions the caller keeps: no second copy of a million regions).
    package mutating func takeRegions() -> [VisitedRegion] {
        defer { regions = [] }
        return regions
    }

    /// Processes fixes in order, returning one outcome per fix.
    public mutating func process<S: Sequence>(_ fixes: S) -> [ClusterOutcome] where S.Element == Fix {
        fixes.map { process($0) }
    }

    // MARK: - Internals

    /// The oldest region containing the point (distance ≤ radius): the lowest index.
    private mutating func containingRegion(_ point: Coordinate) -> Int? {
        let φ1 = point.latitude * .pi / 180, cosφ1 = cos(φ1)
        return grid.firstCandidate(latitude: point.latitude, longitude: point.longitude) { index in
            let centre = centres[index]
            let φ2 = centre.latitude * .pi / 180, radius = centre.radius
            let dλ = (centre.longitude - point.longitude) * .pi / 180
            guard !Self.isSurelyBeyond(radius, φ1: φ1, cosφ1: cosφ1, φ2: φ2, cosφ2: centre.cosine, dλ: dλ) else { return false }
            return Geodesy.haversineMeters(φ1: φ1, cosφ1: cosφ1, φ2: φ2, cosφ2: centre.cosine, dλ: dλ) <= radius
        }
    }

    /// Whether the great circle between two points (latitudes and their cosines, the longitude
    /// difference, in radians) is surely longer than `radius` metres, told without trigonometry:
    /// it is never shorter than its latitude difference, nor than its longitude term
    /// (cosφ1·cosφ2·sin²(Δλ/2) ≤ sin²(d/2R), with sin x ≥ x − x³/6 and sin x ≤ x). Most candidates
    /// of a fix are ruled out so; the margins keep rounding on the measuring side, so a point
    /// `Geodesy.haversineMeters` puts within the radius is never ruled out.
    @inline(__always)
    static func isSurelyBeyond(_ radius: Double, φ1: Double, cosφ1: Double, φ2: Double, cosφ2: Double, dλ: Double) -> Bool {
        let reach = radius * (1 + 1e-9) + 1e-6
        if Geodesy.earthRadius * abs(φ2 - φ1) > reach { return true }
        let x = abs(dλ) / 2
        return x <= .pi / 2 && x * (1 - x * x / 6) * (cosφ1 * cosφ2).squareRoot() * (1 - 1e-9) > reach / (2 * Geodesy.earthRadius)
    }

    private mutating func addRegion(_ fix: Fix, speed: Double?) -> VisitedRegion {
        let c = fix.coordinate
        let clustering = settings.newRegionRadius(speed: speed)
        let region = VisitedRegion(
            latitude: c.latitude, longitude: c.longitude, radius: settings.explorationRadius ?? clustering,
            timestampStart: fix.timestamp, timestampEnd: fix.timestamp,
            geohash: Geohash.encode(latitude: c.latitude, longitude: c.longitude, precision: settings.geohashPrecision),
            visitCount: 1, lastVisit: fix.timestamp)
        regions.append(region)
        centres.append(Centre(c.latitude, c.longitude, radius: max(clustering, settings.minDistance)))
        timelineSlots.append(-1)
        grid.insert(regions.count - 1, latitude: c.latitude, longitude: c.longitude)
        return region
    }

    /// The fix's own speed when it is a real number ≥ 0 (receivers report -1 for "unknown"), else derived from the
    /// previous accepted fix. |Δt| makes reversed input derive the same speeds as forward input.
    private func speed(of fix: Fix) -> Double? {
        if let given = fix.speed, given.isFinite, given >= 0 { return given }
        guard let previous = previousAccepted else { return nil }
        let interval = abs(fix.timestamp.timeIntervalSince(previous.timestamp))
        guard interval > 0, interval <= settings.speedDerivationMaxInterval else { return nil }
        return Geodesy.haversineMeters(previous.coordinate, fix.coordinate) / interval
    }
}
