import ArgumentParser
import Foundation
import RoquaBoundaries
import RoquaCommandLine
import RoquaCommandOptions
import RoquaIO
import RoquaProgress
import RoquaRegions
import RoquaTimeline

/// What `timeline` and `places` share: the store, the boundaries that name places, the zone of
/// days and hours, and the stay thresholds.
struct TimelineOptions: ParsableArguments {
    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var boundaryOptions: BoundaryOptions

    @Option(help: ArgumentHelp("The zone of days and hours (default: $TZ or the system's).", valueName: "zone"))
    var timeZone: String?

    @OptionGroup var stays: StayOptions

    func validate() throws {
        _ = try zone()
        _ = try stays.applied(to: .standard)
    }

    /// - Throws: `ValidationError` unless `year` is one of the calendar's 1…9999.
    static func checkYear(_ year: Int, name: String) throws {
        guard (1...9999).contains(year) else { throw ValidationError("\(name) must be a year from 1 to 9999, not \(year)") }
    }

    /// - Throws: `ValidationError` naming an unknown zone.
    func zone() throws -> TimeZone { try TimeZones.checked(timeZone) }

    /// The whole kept history as stays and moves, and a namer for its places.
    func timeline() throws -> (HistoryTimeline, PlaceNamer) {
        let opened = try open()
        return (opened.timeline, opened.namer)
    }

    /// The store, its history as stays and moves, and a namer for places.
    func open() throws -> (store: RegionStore, timeline: HistoryTimeline, namer: PlaceNamer) {
        let store = try storeOptions.open(.readOnly)
        let namer = try PlaceNamer(boundaries: boundaryOptions.path)
        // Thresholds other than those the store's timeline was kept with segment the fixes now.
        let settings = try stays.isEmpty ? nil : stays.applied(to: store.timelineSettings() ?? .standard)
        let timeline = try HistoryTimeline(store: store, settings: settings, timeZone: try zone(), isOnLand: namer.isOnLand)
        return (store, timeline, namer)
    }

    /// The names of the stays at `indices` of `timeline`.
    static func names(ofStays indices: some Sequence<Int>, in timeline: HistoryTimeline, namer: PlaceNamer) throws -> [Int: PlaceNames] {
        var names: [Int: PlaceNames] = [:]
        for index in indices where names[index] == nil {
            guard let stay = timeline.entries[index].stay else { continue }
            names[index] = try namer.names(latitude: stay.latitude, longitude: stay.longitude)
        }
        return names
    }

    /// The trips of `timeline` that began in `year` (all when nil), named.
    func trips(_ timeline: HistoryTimeline, namer: PlaceNamer, year: Int?) throws -> [TripAnswer] {
        let zone = try zone()
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        return try Trips.find(timeline.entries, places: timeline.places, placeOfEntry: timeline.placeOfEntry, timeZone: zone)
            .filter { trip in
                year.map { calendar.component(.year, from: Date(timeIntervalSince1970: Double(trip.start) / 1000)) == $0 } ?? true
            }
            .map { trip in
                TripAnswer(trip, farStayNames: try Self.names(ofStays: trip.farStays, in: timeline, namer: namer), language: .local)
            }
    }
}

/// The stay thresholds, as options: unset ones keep what the store remembers.
struct StayOptions: ParsableArguments {
    @Option(help: ArgumentHelp("A stay lasts at least this long (1–240; default: remembered, else 5).", valueName: "minutes"))
    var stayMinutes: Int?

    @Option(help: ArgumentHelp("A stay keeps within about this distance (20–2000; default: remembered, else 100).", valueName: "metres"))
    var stayMeters: Double?

    /// Neither option was given.
    var isEmpty: Bool { stayMinutes == nil && stayMeters == nil }

    /// `remembered` with the options given.
    /// - Throws: `ValidationError` naming the option out of range.
    func applied(to remembered: TimelineSettings) throws -> TimelineSettings {
        do {
            return try TimelineSettings(
                stayMinutes: stayMinutes ?? remembered.stayMinutes, stayMeters: stayMeters ?? remembered.stayMeters)
        } catch {
            throw ValidationError(error.description)
        }
    }
}

/// `roqua timeline DAY`.
struct TimelineCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "timeline",
        abstract: "Where you were on a day: its stays and moves, with the place of each stay named offline.",
        discussion: "A stay is at least --stay-minutes within about --stay-meters; a night with the phone off at one "
            + "place is one stay. A move has one mode (walk, cycle, road, rail, boat, flight or unknown): a ferry then a "
            + "walk is two moves. Entries are whole: a stay over midnight shows in both days with its true start and end."
    )

    @Argument(help: ArgumentHelp("The day, in --time-zone (2024-05-03).", valueName: "day")) var day: String
    @OptionGroup var options: TimelineOptions
    @Flag(help: "Print one JSON document: {date, time_zone, entries: [stay or move…]}.") var json = false
    @Option(help: ArgumentHelp("The entries of every day from DAY through this one (2024-05-31).", valueName: "day"))
    var to: String?

    func validate() throws {
        let zone = try options.zone()
        guard TimelineAnswer.span(of: day, zone: zone) != nil else {
            throw ValidationError("\(Echo.quoted(day)) is not a day (e.g. 2024-05-03)")
        }
        if let to {
            guard let last = TimelineAnswer.span(of: to, zone: zone) else {
                throw ValidationError("--to \(Echo.quoted(to)) is not a day (e.g. 2024-05-31)")
            }
            guard let first = TimelineAnswer.span(of: day, zone: zone), last.0 >= first.0 else {
                throw ValidationError("--to must not be before the day")
            }
        }
    }

    func run() throws {
        let zone = try options.zone()
        let (store, timeline, namer) = try options.open()
        var answer = try TimelineAnswer(
            day: day, through: to, zone: zone, timeline: timeline, namer: namer, photos: { try store.photos(from: $0, to: $1) })
        // The zone as asked ("UTC" stays "UTC", not Foundation's "GMT").
        answer.timeZone = options.timeZone ?? zone.identifier
        if json { return try RoquaProgram.printJSON(answer, dates: zone) }
        if answer.entries.isEmpty && answer.photos.isEmpty {
            return print(to.map { "No fixes kept from \(day) through \($0)." } ?? "No fixes kept on \(day).")
        }
        for entry in answer.entries { print(Self.line(entry, day: day, zone: zone)) }
        if !answer.photos.isEmpty {
            print("\(answer.photos.count) photo(s) outside any stay or move: " + answer.photos.map(\.path).joined(separator: ", "))
        }
    }

    /// One entry as a line: `09:12–17:40  work · Levent, Beşiktaş`, `17:40–18:25  boat 4.1 km`.
    static func line(_ entry: TimelineAnswer.Entry, day: String, zone: TimeZone) -> String {
        func photos(_ photos: [PhotoAnswer]) -> String { photos.isEmpty ? "" : " · \(photos.count) photo(s)" }
        func time(_ date: Date) -> String {
            let formatter = DateFormatter()
            formatter.locale = Locale(identifier: "en_US_POSIX")
            formatter.timeZone = zone
            formatter.dateFormat = "yyyy-MM-dd"
            let other = formatter.string(from: date) != day
            formatter.dateFormat = other ? "yyyy-MM-dd HH:mm" : "HH:mm"
            return formatter.string(from: date)
        }
        switch entry {
        case let .stay(stay):
            let what = [stay.label?.rawValue, stay.names.short(language: .local) ?? "at sea"].compactMap { $0 }
            return "\(time(stay.start))–\(time(stay.end))  " + what.joined(separator: " · ") + photos(stay.photos)
        case let .move(move):
            return "\(time(move.start))–\(time(move.end))  \(move.mode.rawValue) \(String(format: "%.1f", move.distanceKm)) km"
                + photos(move.photos)
        }
    }
}

/// `roqua places`.
struct PlacesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "places",
        abstract: "The places your stays make, most hours first, named offline; home and work labelled.",
        discussion: "Home is the place with most hours between 22:00 and 06:00, work the other place with most hours between "
            + "09:00 and 17:00 on weekdays (each needs at least 10 hours)."
    )

    @OptionGroup var options: TimelineOptions
    @Flag(help: "Print JSON: [{place_id, lat, lon, label, stays, hours, country, province, district, locality}].") var json = false
    @Option(help: "Show this many places (text only; 0: all).") var limit = 20

    func run() throws {
        let (timeline, namer) = try options.timeline()
        let places = timeline.places.sorted { ($0.hours, -$0.id) > ($1.hours, -$1.id) }
        let shown = json || limit <= 0 ? places : Array(places.prefix(limit))
        let answers = try shown.map { place in
            PlaceAnswer(place, names: try namer.names(latitude: place.latitude, longitude: place.longitude), language: .local)
        }
        if json { return try RoquaProgram.printJSON(answers) }
        if answers.isEmpty { return print("No stays yet: import a track (roqua track import FILE).") }
        for answer in answers {
            let label = answer.label.map { "\($0.rawValue) · " } ?? ""
            print(
                String(format: "%5d  %8.1f h  %4d stays  ", answer.placeId, answer.hours, answer.stays) + label
                    + (answer.names.short(language: .local) ?? "at sea"))
        }
        if places.count > shown.count { print("… and \(places.count - shown.count) more (--limit 0 shows all)") }
    }
}

/// `roqua trips`.
struct TripsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "trips",
        abstract: "Your trips: away from home with at least one night 50 km or more from it, named offline.",
        discussion: "A trip runs from leaving home to coming back; a night is where you were at 03:00. A day trip is no "
            + "trip. Countries and provinces are those of the trip's stays 50 km or more from home (not the airport near "
            + "home, not what was flown over)."
    )

    @OptionGroup var options: TimelineOptions
    @Option(help: "Only the trips that began this year.") var year: Int?

    func validate() throws { try year.map { try TimelineOptions.checkYear($0, name: "--year") } }
    @Flag(help: "Print JSON: [{start, end, nights, countries, provinces, distance_km, destination}].") var json = false

    func run() throws {
        let (timeline, namer) = try options.timeline()
        let trips = try options.trips(timeline, namer: namer, year: year)
        let zone = try options.zone()
        if json { return try RoquaProgram.printJSON(trips, dates: zone) }
        if trips.isEmpty { return print(timeline.places.contains { $0.label == .home } ? "No trips yet." : "No home yet, so no trips.") }
        for trip in trips { print(Self.line(trip, zone: zone)) }
    }

    /// `2024-05-10 → 2024-05-14  4 nights  Paris, France  2345.0 km`.
    static func line(_ trip: TripAnswer, zone: TimeZone) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = zone
        formatter.dateFormat = "yyyy-MM-dd"
        let nights = trip.nights == 1 ? "1 night" : "\(trip.nights) nights"
        let place = trip.destination?.short(language: .local) ?? trip.countries.joined(separator: ", ")
        return "\(formatter.string(from: trip.start)) → \(formatter.string(from: trip.end))  \(nights)  \(place)  "
            + String(format: "%.1f km", trip.distanceKm)
    }
}

/// `roqua year YEAR`.
struct YearCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "year",
        abstract: "A year in review: new countries, provinces and districts, days abroad, kilometres by mode, top places, trips.",
        discussion: "New units are those first visited that year by any region (a road passed through counts); days abroad "
            + "are local days with a stay in another country than home's."
    )

    @Argument(help: "The year (2024).") var year: Int
    @OptionGroup var options: TimelineOptions
    @Flag(help: "Print one JSON document: {year, new, days_abroad, distance_km, top_places, trips}.") var json = false

    func validate() throws { try TimelineOptions.checkYear(year, name: "YEAR") }

    func run() throws {
        let zone = try options.zone()
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        guard let from = calendar.date(from: DateComponents(year: year, month: 1, day: 1)),
            let to = calendar.date(from: DateComponents(year: year + 1, month: 1, day: 1))
        else { throw ValidationError("\(year) is not a year") }
        let (store, timeline, namer) = try options.open()
        let found = timeline.entries(overlapping: from, to)
        let (a, b) = (HistoryTimeline.milliseconds(from), HistoryTimeline.milliseconds(to))

        var kilometres = Dictionary(uniqueKeysWithValues: TravelMode.allCases.map { ($0.rawValue, 0.0) })
        var hours: [Int: Double] = [:]
        for (index, entry) in found {
            if let move = entry.move, move.start >= a {
                kilometres[move.mode.rawValue, default: 0] += move.meters / 1000
            } else if let stay = entry.stay, let place = timeline.placeOfEntry[index] {
                hours[place, default: 0] += Double(min(stay.end, b) - max(stay.start, a)) / 3_600_000
            }
        }
        let names = try TimelineOptions.names(ofStays: found.lazy.filter { $0.entry.stay != nil }.map(\.index), in: timeline, namer: namer)
        let home = timeline.places.first { $0.label == .home }
        let homeCountry = home.flatMap { place in
            timeline.placeOfEntry.indices.first { timeline.placeOfEntry[$0] == place.id }.flatMap { names[$0]?.country?.code }
                ?? (try? namer.names(latitude: place.latitude, longitude: place.longitude))?.country?.code
        }
        var abroad = Set<Date>()
        for (index, entry) in found {
            guard let stay = entry.stay, let country = names[index]?.country?.code, country != homeCountry, homeCountry != nil else {
                continue
            }
            var day = calendar.startOfDay(for: HistoryTimeline.date(max(stay.start, a)))
            let last = HistoryTimeline.date(min(stay.end, b - 1))
            while day <= last {
                abroad.insert(day)
                guard let next = calendar.date(byAdding: .day, value: 1, to: day) else { break }
                day = next
            }
        }
        let top = hours.sorted { ($0.value, -$0.key) > ($1.value, -$1.key) }.prefix(5).map { id, hours in
            let place = timeline.places.first { $0.id == id }
            let name = place.flatMap { try? namer.names(latitude: $0.latitude, longitude: $0.longitude) }?.short(language: .local)
            return YearAnswer.TopPlace(placeId: id, label: place?.label, hours: hours, name: name)
        }
        let answer = YearAnswer(
            year: year, new: try Self.newUnits(store.allRegions(), year: year, calendar: calendar), daysAbroad: abroad.count,
            distanceKm: kilometres.mapValues { ($0 * 10).rounded() / 10 }, topPlaces: Array(top),
            trips: try options.trips(timeline, namer: namer, year: year))
        if json { return try RoquaProgram.printJSON(answer, dates: zone) }
        print(Self.text(answer, zone: zone))
    }

    /// The units whose first region was entered in `year`, by level, sorted by code.
    static func newUnits(_ regions: [VisitedRegion], year: Int, calendar: Calendar) -> YearAnswer.NewUnits {
        var first: [String: Date] = [:]
        var levels: [String: Int] = [:]
        for region in regions {
            for (level, code) in [region.countryCode, region.provinceCode, region.districtCode].enumerated() {
                guard let code else { continue }
                levels[code] = level
                if first[code].map({ region.timestampStart < $0 }) ?? true { first[code] = region.timestampStart }
            }
        }
        let new = first.filter { calendar.component(.year, from: $0.value) == year }.keys.sorted()
        return YearAnswer.NewUnits(
            countries: new.filter { levels[$0] == 0 }, provinces: new.filter { levels[$0] == 1 }, districts: new.filter { levels[$0] == 2 })
    }

    static func text(_ answer: YearAnswer, zone: TimeZone) -> String {
        var lines = ["\(answer.year) in review"]
        let new = answer.new
        lines.append(
            "  new: \(new.countries.count) countries" + (new.countries.isEmpty ? "" : " (\(new.countries.joined(separator: ", ")))")
                + ", \(new.provinces.count) provinces, \(new.districts.count) districts")
        lines.append("  days abroad: \(answer.daysAbroad)")
        let moved = TravelMode.allCases.compactMap { mode in
            answer.distanceKm[mode.rawValue].flatMap { $0 > 0 ? "\(mode.rawValue) " + String(format: "%.1f km", $0) : nil }
        }
        lines.append("  moved: " + (moved.isEmpty ? "nothing" : moved.joined(separator: ", ")))
        for place in answer.topPlaces {
            lines.append(
                "  " + [place.label?.rawValue, place.name].compactMap { $0 }.joined(separator: " · ")
                    + String(format: ": %.1f h", place.hours))
        }
        lines.append("  trips: \(answer.trips.count)")
        lines += answer.trips.map { "    " + TripsCommand.line($0, zone: zone) }
        return lines.joined(separator: "\n")
    }
}
