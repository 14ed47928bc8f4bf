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

    @Option(help: ArgumentHelp("A stay lasts at least this long (1–240).", valueName: "minutes"))
    var stayMinutes = 5

    @Option(help: ArgumentHelp("A stay keeps within about this distance (20–2000).", valueName: "metres"))
    var stayMeters = 100.0

    func validate() throws {
        _ = try zone()
        _ = try settings()
    }

    /// - Throws: `ValidationError` naming an unknown zone.
    func zone() throws -> TimeZone {
        if let timeZone, TimeZone(identifier: timeZone) == nil {
            throw ValidationError("unknown time zone \(Echo.quoted(timeZone)) (use an IANA name such as Europe/Istanbul)")
        }
        return TimeZones.chosen(timeZone)
    }

    /// - Throws: `ValidationError` naming the option out of range.
    func settings() throws -> TimelineSettings {
        do { return try TimelineSettings(stayMinutes: stayMinutes, stayMeters: stayMeters) } catch {
            throw ValidationError(error.description)
        }
    }

    /// The whole kept history as stays and moves, and a namer for its places.
    func timeline() throws -> (HistoryTimeline, PlaceNamer) {
        let store = try storeOptions.open(.readOnly)
        let namer = try PlaceNamer(boundaries: boundaryOptions.path)
        let timeline = try HistoryTimeline(
            store: store, settings: try settings(), timeZone: try zone(), isOnLand: namer.isOnLand)
        return (timeline, namer)
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

    func validate() throws { _ = try span() }

    /// The day's first and last instant (exclusive) in the chosen zone.
    func span() throws -> (Date, Date) {
        let zone = try options.zone()
        guard day.count == 10, !day.contains("T"), let start = LocalTime.parse(day, zone: zone) else {
            throw ValidationError("\(Echo.quoted(day)) is not a day (e.g. 2024-05-03)")
        }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        return (start, calendar.date(byAdding: .day, value: 1, to: start) ?? start.addingTimeInterval(86_400))
    }

    func run() throws {
        let zone = try options.zone()
        let (from, to) = try span()
        let (timeline, namer) = try options.timeline()
        let found = timeline.entries(overlapping: from, to)
        var answers: [TimelineAnswer.Entry] = []
        for (index, entry) in found {
            switch entry {
            case let .stay(stay):
                guard let place = timeline.place(ofEntry: index) else { continue }
                let names = try namer.names(latitude: stay.latitude, longitude: stay.longitude)
                answers.append(.stay(StayAnswer(stay, place: place, names: names, language: .local)))
            case let .move(move):
                answers.append(
                    .move(
                        MoveAnswer(
                            move, from: timeline.place(ofEntry: move.fromStay), to: timeline.place(ofEntry: move.toStay))))
            }
        }
        if json {
            return try RoquaProgram.printJSON(TimelineAnswer(date: day, timeZone: zone.identifier, entries: answers), dates: zone)
        }
        if answers.isEmpty { return print("No fixes kept on \(day).") }
        for answer in answers { print(Self.line(answer, day: day, zone: zone)) }
    }

    /// One entry as a line: `09:12–17:40  work · Levent, Beşiktaş`, `17:40–18:25  boat 4.1 km`.
    static func line(_ entry: TimelineAnswer.Entry, day: String, zone: TimeZone) -> String {
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
            return "\(time(stay.start))–\(time(stay.end))  " + what.joined(separator: " · ")
        case let .move(move):
            return "\(time(move.start))–\(time(move.end))  \(move.mode.rawValue) \(String(format: "%.1f", move.distanceKm)) km"
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
