import Foundation
import RoquaRegions

/// What a `ProgressReport` is made of, gathered one region at a time in id order, so that a
/// store's million regions are read once and never held (`RegionStore.forEachRegionFacts`). The
/// report from an array of regions is made by the same tally: one definition of every figure.
struct ProgressTally: Sendable {
    private(set) var regions = 0
    private(set) var circles: [ExploredCircle] = []
    private var firstVisits = FirstVisitTally()
    private var localities = LocalityTally()
    private var days: StreakDayTally

    init(timeZone: TimeZone, now: Date, expected: Int = 0) {
        days = StreakDayTally(timeZone: timeZone, now: now)
        circles.reserveCapacity(expected)
    }

    mutating func add(_ region: RegionFacts) {
        regions += 1
        circles.append(ExploredCircle(latitude: region.latitude, longitude: region.longitude, radius: Double(region.radius)))
        firstVisits.add(country: region.countryCode, province: region.provinceCode, district: region.districtCode, start: region.start)
        localities.add(
            countryCode: region.countryCode, country: region.country, id: region.localityID, name: region.locality,
            start: region.start)
        days.add(region.start)
        if region.lastVisit != region.start { days.add(region.lastVisit) }
    }

    /// Adds the tally of the regions after this one's (in id order): the same tally as one made
    /// of both in order.
    mutating func append(_ later: consuming ProgressTally) {
        regions += later.regions
        circles += later.circles
        firstVisits.append(later.firstVisits)
        localities.append(later.localities)
        days.append(later.days)
    }

    /// Every unit's first visit, the localities per country and the streak days.
    mutating func finish() -> (firstVisits: [String: Date], localities: [CountryLocalities], days: Set<StreakDay>) {
        (firstVisits.finish(), localities.finish(), days.days)
    }
}

/// Every unit (country, province, district) → the start of its earliest region. Regions in id
/// order mostly share their units with the region before, so a run of equal units is one minimum
/// until the units change.
struct FirstVisitTally: Sendable {
    private var first: [String: Date] = [:]
    private var run: (country: String?, province: String?, district: String?)?
    private var runStart = Date.distantFuture

    mutating func add(country: String?, province: String?, district: String?, start: Date) {
        if let run, run.country == country, run.province == province, run.district == district {
            runStart = min(runStart, start)
            return
        }
        flush()
        run = (country, province, district)
        runStart = start
    }

    private mutating func flush() {
        guard let run else { return }
        for code in [run.country, run.province, run.district].compactMap({ $0 }) {
            first[code] = min(first[code] ?? runStart, runStart)
        }
    }

    mutating func finish() -> [String: Date] {
        flush()
        run = nil
        return first
    }

    /// Adds the first visits of later regions (a minimum: order does not matter).
    mutating func append(_ later: consuming FirstVisitTally) {
        for (code, date) in later.finish() { first[code] = min(first[code] ?? date, date) }
    }
}

/// The localities visited per country: each locality once (by GeoNames id) with its earliest
/// visit, the first region in id order winning a tie; a country named by its first region with a
/// locality. Regions without a country code, locality id or locality name do not count.
struct LocalityTally: Sendable {
    private var first: [String: [Int64: ChildVisit]] = [:]
    private var names: [String: String] = [:]
    private var run: (country: String, id: Int64, best: ChildVisit)?

    mutating func add(countryCode: String?, country: String?, id: Int64?, name: String?, start: Date) {
        guard let countryCode, let id, let name else { return }
        if let current = run, current.country == countryCode, current.id == id {
            if start < current.best.firstVisit! { run!.best = ChildVisit(code: String(id), name: name, firstVisit: start) }
            return
        }
        flush()
        if names[countryCode] == nil { names[countryCode] = country ?? countryCode }
        run = (countryCode, id, ChildVisit(code: String(id), name: name, firstVisit: start))
    }

    private mutating func flush() {
        guard let (country, id, best) = run else { return }
        if let known = first[country]?[id], let date = known.firstVisit, date <= best.firstVisit! { return }
        first[country, default: [:]][id] = best
    }

    /// Adds the localities of later regions: a place keeps this tally's visit on a tie, a country
    /// this tally's name.
    mutating func append(_ later: consuming LocalityTally) {
        flush()
        run = nil
        later.flush()
        for (country, places) in later.first {
            for (id, visit) in places {
                if let known = first[country]?[id], let date = known.firstVisit, date <= visit.firstVisit! { continue }
                first[country, default: [:]][id] = visit
            }
        }
        for (country, name) in later.names where names[country] == nil { names[country] = name }
    }

    mutating func finish() -> [CountryLocalities] {
        flush()
        run = nil
        let countries = first.map { code, places in
            CountryLocalities(
                code: code, name: names[code] ?? code,
                localities: places.values.sorted {
                    ($0.firstVisit ?? .distantFuture, $0.code) < ($1.firstVisit ?? .distantFuture, $1.code)
                })
        }
        return countries.sorted {
            ($0.localities.first?.firstVisit ?? .distantFuture, $0.code) < ($1.localities.first?.firstVisit ?? .distantFuture, $1.code)
        }
    }
}

/// The calendar days (in a zone) with activity up to `now`: instants after `now` do not count.
struct StreakDayTally: Sendable {
    private var reckoner: DayReckoner
    private let now: Date
    private(set) var days = Set<StreakDay>()
    private var last: StreakDay?

    init(timeZone: TimeZone, now: Date) {
        reckoner = DayReckoner(timeZone: timeZone)
        self.now = now
    }

    /// Adds the days of another tally (a set: order does not matter).
    mutating func append(_ later: StreakDayTally) {
        days.formUnion(later.days)
        last = nil
    }

    mutating func add(_ instant: Date) {
        guard instant <= now else { return }
        let day = reckoner.day(of: instant)
        if day != last {
            days.insert(day)
            last = day
        }
    }
}
