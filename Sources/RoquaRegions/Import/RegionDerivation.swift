import Foundation
import GRDB
import RoquaBoundaries

/// The derive stages every path that adds fixes runs — an import, a live post, a rebuild, a
/// forget: each fix of one source, in time order, through the flight filter (glitches and
/// flights light nothing), then the clustering (regions, visits) and the travel records (days
/// per place, tiles, flights); at the end the new regions enriched offline and everything
/// written in the caller's transaction, with the events it caused.
struct RegionDerivation {
    private(set) var engine: ClusteringEngine
    private var filter: FlightFilter
    private var travel = TravelRecorder()
    private var revisited: [Int] = []
    private let flights: FlightSettings
    private let enricher: RegionEnricher
    /// What the fixes did, in `TrackImportSummary`'s counters.
    private(set) var counts = Counts()
    /// The time of the latest fix settled so far (ground, glitch or flight), milliseconds.
    private(set) var settledUntil: Int64?

    struct Counts {
        var dropped: [ClusterDropReason: Int] = [:]
        var newRegions = 0
        var revisits = 0
        var flights: [Flight] = []
        var inFlight = 0
        var glitches = 0
    }

    /// Derives against `existing` regions (the store's, under the write lock; none for a rebuild).
    init(settings: ClusteringSettings, flights: FlightSettings, enricher: RegionEnricher, existing: [VisitedRegion]) {
        engine = ClusteringEngine(settings: settings, existingRegions: existing)
        filter = FlightFilter(settings: flights)
        self.flights = flights
        self.enricher = enricher
    }

    /// The current source goes on from `ground`, settled by an earlier run (`TrackReadOptions.continuing`).
    mutating func resume(after ground: Fix) {
        filter = FlightFilter(settings: flights, after: ground)
    }

    /// Fixes of the current source, in time order.
    mutating func derive(_ fixes: [KeptFix]) {
        // The filter is moved out while it runs (not copied: a flight's fixes would be copied
        // per fix), so the decisions it hands back can change the rest of `self`.
        var filter = self.filter
        self.filter = FlightFilter(settings: flights)
        for fix in fixes { filter.push(fix.fix) { settle($0) } }
        self.filter = filter
    }

    /// The current source is over: what its last fixes wait for is settled, and the next source
    /// starts with a filter of its own (speeds are never derived across sources).
    mutating func endSource() {
        let decisions = filter.finish()
        for decision in decisions { settle(decision) }
        filter = FlightFilter(settings: flights)
    }

    private mutating func settle(_ decision: FlightFilter.Decision) {
        let time: Date
        switch decision {
        case let .glitch(fix), let .ground(fix): time = fix.timestamp
        case let .flight(flight): time = flight.end
        }
        let ms = Int64((time.timeIntervalSince1970 * 1000).rounded())
        settledUntil = max(settledUntil ?? ms, ms)
        switch decision {
        case .glitch:
            counts.glitches += 1
        case let .flight(flight):
            counts.flights.append(flight)
            counts.inFlight += flight.fixCount
            travel.flight(flight)
        case let .ground(fix):
            switch engine.process(fix) {
            case let .dropped(reason): counts.dropped[reason, default: 0] += 1
            case let .newRegion(_, index):
                counts.newRegions += 1
                // Enough new regions to name from memory: said now, not after the reading.
                enricher.expect(counts.newRegions)
                travel.ground(fix, region: index)
            case let .revisit(index):
                counts.revisits += 1
                revisited.append(index)
                travel.ground(fix, region: index)
            case let .sameVisit(index): travel.ground(fix, region: index)
            }
        }
    }

    /// What `write` leaves: the events, the units seen first, and every region as stored.
    struct Written {
        var events: [RegionEvent]
        var firsts: [FirstVisit]
        var stored: [VisitedRegion]
    }

    /// Enriches the new regions and writes regions, travel records and flights in `db`'s open
    /// transaction; returns the events (new regions, first units, revisits of stored regions).
    mutating func write(_ db: Database) throws -> Written {
        var firsts: [FirstVisit] = []
        var visited = try RegionStore.visitedCodes(db)
        enricher.expect(engine.newRegionIndices.count)
        var regionWriter = try RegionWriter(db)
        for index in engine.newRegionIndices {
            var region = try enricher.enriched(engine.regions[index])
            region.id = try regionWriter.insert(region, db)
            engine.adopt(region, at: index)
            for (level, code, name) in [
                (AdminLevel.country, region.countryCode, region.country),
                (.province, region.provinceCode, region.province),
                (.district, region.districtCode, region.district),
            ] {
                guard let code, visited.insert(code).inserted else { continue }
                firsts.append(FirstVisit(level: level, code: code, name: name ?? code))
            }
        }
        for index in engine.changedRegionIndices {
            let r = engine.regions[index]
            try db.execute(
                sql: """
                    UPDATE visited_regions SET start_ms = ?, end_ms = ?, visit_count = ?, last_visit_ms = ?
                    WHERE id = ?
                    """,
                arguments: [
                    try StoreTime.milliseconds(r.timestampStart), try r.timestampEnd.map(StoreTime.milliseconds), r.visitCount,
                    try StoreTime.milliseconds(r.lastVisit), r.id,
                ])
        }
        let engine = engine
        try travel.write(db, region: { engine.regions[$0] }, place: enricher.place)
        let events = self.events(firsts: firsts)
        // The regions as stored: the clustering's times to the store's millisecond, as written
        // and read back (a rounding of their own could differ from the parse in the last bit).
        let touched = self.engine.changedRegionIndices + self.engine.newRegionIndices
        var stored = self.engine.takeRegions()
        for index in touched { try Self.asStored(&stored[index]) }
        return Written(events: events, firsts: firsts, stored: stored)
    }

    /// The events, in an array of their exact size rather than one grown by doubling.
    private func events(firsts: [FirstVisit]) -> [RegionEvent] {
        var pending: [RegionEvent] = []
        pending.reserveCapacity(engine.newRegionIndices.count + firsts.count + engine.changedRegionCount)
        for index in engine.newRegionIndices { RegionEvent.Touch(engine.regions[index]).map { pending.append(.newRegion($0)) } }
        for first in firsts {
            switch first.level {
            case .country: pending.append(.firstCountry(code: first.code, name: first.name))
            case .province: pending.append(.firstProvince(code: first.code, name: first.name))
            case .district: pending.append(.firstDistrict(code: first.code, name: first.name))
            }
        }
        // One event per stored region revisited, as it now is; regions made by this run are in
        // its new-region events, with their visits.
        var reported = Set<Int>()
        for index in revisited where index < engine.existingRegionCount && reported.insert(index).inserted {
            RegionEvent.Touch(engine.regions[index]).map { pending.append(.revisit($0)) }
        }
        return pending
    }

    /// `region`'s times as the store gives them back.
    private static func asStored(_ region: inout VisitedRegion) throws {
        func stored(_ date: Date) throws -> Date {
            guard let back = StoreTime.date(milliseconds: try StoreTime.milliseconds(date)) else {
                throw StoreTimeError(seconds: date.timeIntervalSince1970)
            }
            return back
        }
        region.timestampStart = try stored(region.timestampStart)
        region.timestampEnd = try region.timestampEnd.map(stored)
        region.lastVisit = try stored(region.lastVisit)
    }
}
