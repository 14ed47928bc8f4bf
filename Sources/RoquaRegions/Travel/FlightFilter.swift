import Foundation
import RoquaBoundaries

/// When a fix counts as taken in flight (`FlightFilter`).
public struct FlightSettings: Sendable, Equatable {
    /// Ground speed above which a fix is in flight, m/s (250 km/h by default: faster than any
    /// car or most trains on a phone's track, slower than any airliner between climb and descent).
    public var speed: Double
    /// A speed derived from two fixes counts for take-off only when they are at least this far
    /// apart, metres: GPS noise between close fixes makes any speed.
    public var takeOffDistance: Double
    /// A jump no airliner makes (faster than this, m/s: 1,100 km/h) is a glitch, never a flight.
    public var impossibleSpeed: Double

    public init(speedKmh: Double = 250, takeOffDistance: Double = 1_000, impossibleKmh: Double = 1_100) {
        speed = speedKmh / 3.6
        self.takeOffDistance = takeOffDistance
        impossibleSpeed = impossibleKmh / 3.6
    }

    public static let `default` = FlightSettings()

    /// - Throws: `ClusteringSettingsError` unless the speed is between 50 and 1,000 km/h.
    public func validate() throws {
        guard speed.isFinite, (50 / 3.6...1_000 / 3.6).contains(speed) else {
            throw ClusteringSettingsError("--flight-speed must be between 50 and 1000 km/h")
        }
    }
}

/// A flight: the fixes taken in the air, with the ground fixes before and after (either may be
/// missing at the start or end of a track; a phone off in the air leaves no fix between them).
public struct Flight: Sendable, Equatable {
    public var departure: Fix?
    /// The fixes in the air, in order; on a very long one (more than `FlightFilter.keptFixes`)
    /// thinned to every other one as often as needed, so memory stays bounded.
    public var fixes: [Fix]
    public var arrival: Fix?
    /// How many fixes were taken in the air (thinned or not).
    public var fixCount: Int

    public init(departure: Fix?, fixes: [Fix], arrival: Fix?, fixCount: Int? = nil) {
        self.departure = departure
        self.fixes = fixes
        self.arrival = arrival
        self.fixCount = fixCount ?? fixes.count
    }

    /// From the departure (or the first fix in the air) to the arrival (or the last).
    public var start: Date { (departure ?? fixes.first ?? arrival)?.timestamp ?? .distantPast }
    public var end: Date { (arrival ?? fixes.last ?? departure)?.timestamp ?? .distantPast }
    /// Every point in order: departure, the fixes in the air, arrival.
    public var path: [Fix] { [departure].compactMap { $0 } + fixes + [arrival].compactMap { $0 } }
    /// The great-circle length along the path, km.
    public var kilometres: Double {
        let points = path
        return zip(points, points.dropFirst()).reduce(0) { $0 + Geodesy.haversineMeters($1.0.coordinate, $1.1.coordinate) } / 1000
    }
}

/// Sorts a track's fixes, in file order, into ground fixes, flights and glitches, deciding each
/// fix with at most one fix of look-ahead (streaming, bounded memory but for one flight's fixes).
///
/// Rules (`settings.speed` is the flight speed, 250 km/h by default):
/// - A fix is *fast* from a reference fix when its reported speed is above the flight speed, or
///   when the speed derived from the reference (distance / |Δt|) is, the two being at least
///   `takeOffDistance` apart (close fixes: GPS noise makes any speed).
/// - On the ground, a fast fix P after the last ground fix G waits for the next fix N:
///   - N is back near G (not fast from G): P was a **glitch** — lights nothing, counted;
///   - N is fast from P: a **flight** took off at G, P and N in the air;
///   - N is slow from P: P is an **arrival** after a flight the phone did not record (it was
///     off); unless G → P is faster than any airliner (`impossibleSpeed`), then P was a glitch
///     (two bad fixes in a row are rare; one is what receivers produce).
/// - In the air, a fix whose speed from the last fix in the air is above the flight speed
///   (reported or derived, at any distance: the plane is known to fly) stays in the air; the
///   first that is not is the **arrival**, a ground fix.
/// - A track ending on a fast fix: a flight when the jump is one an airliner can make, else a glitch.
public struct FlightFilter {
    public enum Decision: Equatable {
        case ground(Fix)
        case glitch(Fix)
        /// Boxed: a flight is over twice a fix's size, and every fix's decision was copied at
        /// that size (memmove was 2.5 % of the importing thread).
        indirect case flight(Flight)
    }

    public let settings: FlightSettings
    private var lastGround: Fix?
    private var pending: Fix?
    private var airborne: [Fix]?
    private var airborneCount = 0
    private var departure: Fix?
    /// In-air fixes kept in memory at most (a hostile file of nothing but jumps is one "flight").
    public static let keptFixes = 20_000

    public init(settings: FlightSettings = .default) {
        self.settings = settings
    }

    /// A filter that goes on from `ground`, a fix already settled on the ground (the last one a
    /// source's earlier batch settled): the next fixes' speeds are judged from it.
    package init(settings: FlightSettings, after ground: Fix) {
        self.settings = settings
        lastGround = ground
    }

    /// Whether `fix` is above the flight speed: by its own report, or from `reference` (derived
    /// only at `minimumDistance` or more).
    private func isFast(_ fix: Fix, from reference: Fix?, minimumDistance: Double) -> Bool {
        if let reported = fix.speed, reported.isFinite, reported > settings.speed { return true }
        guard let reference else { return false }
        // Most fixes are a few metres from the last: within 0.006° both ways is under 1 km (a
        // degree is at most 111.32 km), no trigonometry needed.
        if minimumDistance >= 1_000, abs(fix.coordinate.latitude - reference.coordinate.latitude) < 0.006,
            abs(fix.coordinate.longitude - reference.coordinate.longitude) < 0.006
        {
            return false
        }
        let distance = Geodesy.haversineMeters(reference.coordinate, fix.coordinate)
        guard distance >= minimumDistance else { return false }
        let interval = abs(fix.timestamp.timeIntervalSince(reference.timestamp))
        return interval == 0 || distance / interval > settings.speed
    }

    private func isPlausibleFlight(from ground: Fix?, to fix: Fix) -> Bool {
        guard let ground else { return true }
        let interval = abs(fix.timestamp.timeIntervalSince(ground.timestamp))
        return interval > 0 && Geodesy.haversineMeters(ground.coordinate, fix.coordinate) / interval <= settings.impossibleSpeed
    }

    /// The decisions `fix` settles (none while it waits for the next fix).
    public mutating func push(_ fix: Fix) -> [Decision] {
        var decisions: [Decision] = []
        push(fix) { decisions.append($0) }
        return decisions
    }

    /// As `push(_:)`, handing each decision to `emit` (no array per fix: the import's hot path).
    public mutating func push(_ fix: Fix, _ emit: (Decision) -> Void) {
        // Fixes the clustering drops anyway (off the globe, no time) are no reference for speeds.
        guard (try? fix.coordinate.validated()) != nil, fix.timestamp.timeIntervalSinceReferenceDate.isFinite else {
            emit(.ground(fix))
            return
        }
        if airborne != nil {
            if isFast(fix, from: airborne?.last, minimumDistance: 0) {
                airborne?.append(fix)  // in place (no binding holds the array): not copied per fix
                airborneCount += 1
                if airborne?.count ?? 0 >= 2 * Self.keptFixes {
                    airborne = airborne?.enumerated().filter { $0.offset % 2 == 0 || $0.offset == 2 * Self.keptFixes - 1 }.map(\.element)
                }
                return
            }
            let air = airborne ?? []
            airborne = nil
            lastGround = fix
            emit(.flight(Flight(departure: departure, fixes: air, arrival: fix, fixCount: airborneCount)))
            emit(.ground(fix))
            return
        }
        if let suspect = pending {
            pending = nil
            if !isFast(fix, from: lastGround, minimumDistance: settings.takeOffDistance), lastGround != nil {
                lastGround = fix
                emit(.glitch(suspect))
                emit(.ground(fix))
                return
            }
            if isFast(fix, from: suspect, minimumDistance: 0) {
                departure = lastGround
                airborne = [suspect, fix]
                airborneCount = 2
                return
            }
            guard isPlausibleFlight(from: lastGround, to: suspect) else {
                lastGround = fix
                emit(.glitch(suspect))
                emit(.ground(fix))
                return
            }
            // Landed: the phone was off in the air (or the suspect is the touchdown itself).
            let flown = suspect.speed.map { $0.isFinite && $0 > settings.speed } ?? false
            let flight =
                flown
                ? Flight(departure: lastGround, fixes: [suspect], arrival: fix)
                : Flight(departure: lastGround, fixes: [], arrival: suspect)
            lastGround = fix
            if flown {
                emit(.flight(flight))
                emit(.ground(fix))
            } else {
                emit(.flight(flight))
                emit(.ground(suspect))
                emit(.ground(fix))
            }
            return
        }
        if isFast(fix, from: lastGround, minimumDistance: settings.takeOffDistance) {
            pending = fix
            return
        }
        lastGround = fix
        emit(.ground(fix))
    }

    /// What the end of the track settles.
    public mutating func finish() -> [Decision] {
        if let air = airborne {
            airborne = nil
            return [.flight(Flight(departure: departure, fixes: air, arrival: nil, fixCount: airborneCount))]
        }
        guard let suspect = pending else { return [] }
        pending = nil
        if let reported = suspect.speed, reported.isFinite, reported > settings.speed {
            return [.flight(Flight(departure: lastGround, fixes: [suspect], arrival: nil))]
        }
        guard isPlausibleFlight(from: lastGround, to: suspect) else { return [.glitch(suspect)] }
        let flight = Flight(departure: lastGround, fixes: [], arrival: suspect)
        lastGround = suspect
        return [.flight(flight), .ground(suspect)]
    }
}
