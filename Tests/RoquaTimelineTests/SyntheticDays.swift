import Foundation
import RoquaTimeline

/// Seeded synthetic phone days around Istanbul with exact truth: commutes by car, ferry and bike, a
/// high-speed train day trip and a two-day flight trip (out with the phone off, back with fixes in the air).
enum SyntheticDays {
    /// The person's time zone (UTC+3 all year).
    static let timeZone = TimeZone(identifier: "Europe/Istanbul")!
    /// Monday 2 March 2026, 00:00 in Istanbul, in seconds since 1970 UTC.
    static let firstMonday = 1_772_398_800.0

    // The places of the synthetic person (degrees): home in Kadıköy, offices in Ataşehir and Karaköy,
    // the ferry piers, cafés, a shop, a park, the Pendik and Eskişehir stations, two airports and a hotel.
    static let home = GeoPoint(latitude: 40.9880, longitude: 29.0300)
    static let homeParking = home.offset(north: 50, east: 40)
    static let kadikoyPier = GeoPoint(latitude: 40.9925, longitude: 29.0230)
    static let karakoyPier = GeoPoint(latitude: 41.0220, longitude: 28.9770)
    static let ferryOffice = GeoPoint(latitude: 41.0250, longitude: 28.9740)
    static let homeCafe = GeoPoint(latitude: 40.9905, longitude: 29.0265)
    static let office = GeoPoint(latitude: 40.9920, longitude: 29.1200)
    static let officeParking = office.offset(north: -60, east: 30)
    static let officeCafe = GeoPoint(latitude: 40.9950, longitude: 29.1235)
    static let shop = GeoPoint(latitude: 40.9800, longitude: 29.0600)
    static let park = GeoPoint(latitude: 40.9650, longitude: 29.0450)
    static let pendik = GeoPoint(latitude: 40.8780, longitude: 29.2580)
    static let eskisehir = GeoPoint(latitude: 39.7760, longitude: 30.5170)
    static let meeting = GeoPoint(latitude: 39.7800, longitude: 30.5120)
    static let sabihaGokcen = GeoPoint(latitude: 40.8986, longitude: 29.3092)
    static let orduGiresun = GeoPoint(latitude: 40.9660, longitude: 38.0850)
    static let hotel = GeoPoint(latitude: 40.9800, longitude: 38.0300)

    /// Land everywhere except the Bosphorus between the Kadıköy and Karaköy piers (a 1.2 km wide band
    /// along the ferry line, leaving 4 % of it at each pier on land).
    static func isOnLand(_ latitude: Double, _ longitude: Double) -> Bool {
        let m = 111_195.0
        let cosLat = cos(41.0 * Double.pi / 180)
        let ax = kadikoyPier.longitude * m * cosLat
        let ay = kadikoyPier.latitude * m
        let bx = karakoyPier.longitude * m * cosLat - ax
        let by = karakoyPier.latitude * m - ay
        let px = longitude * m * cosLat - ax
        let py = latitude * m - ay
        let f = (px * bx + py * by) / (bx * bx + by * by)
        let across = abs(px * by - py * bx) / (bx * bx + by * by).squareRoot()
        return !(f > 0.04 && f < 0.96 && across < 600)
    }

    /// Seconds since 1970 UTC of local `hour` (may be fractional) on day `day` after the first Monday.
    static func at(_ day: Int, _ hour: Double) -> Double { firstMonday + Double(day) * 86_400 + hour * 3_600 }

    /// Six days (car, ferry, bike, train, flight out, flight back, in a seed-dependent order) per seed.
    static func week(seed: UInt64) -> SyntheticBuilder {
        var b = SyntheticBuilder(seed: seed, start: at(0, 6.5), position: home)
        let units: [[(inout SyntheticBuilder, Int) -> Void]] = [
            [carDay], [ferryDay], [cycleDay], [trainDay], [flightOutDay, flightBackDay],
        ]
        let rotation = Int(seed % 5)
        var day = 0
        for u in 0..<units.count {
            for plan in units[(u + rotation) % units.count] {
                b.reportsSpeed = b.rng.chance(0.5)
                plan(&b, day)
                day += 1
            }
        }
        b.stay(until: at(day, 7.5), drift: true, off: (at(day - 1, 23.17), at(day, 7.3)))
        return b
    }

    /// Stays where the person is until `depart` (s), with the phone off overnight until `wake` (local hour of day `day`).
    static func night(_ b: inout SyntheticBuilder, _ day: Int, depart: Double, wake: Double) {
        b.stay(until: depart, drift: b.rng.chance(0.5), off: (at(day - 1, 23.17 + b.rng.uniform(0, 0.5)), at(day, wake)))
    }

    /// Car commute with red lights, lunch walk to a café, the shop on the way home.
    static func carDay(_ b: inout SyntheticBuilder, _ d: Int) {
        night(&b, d, depart: at(d, b.rng.uniform(7.3, 8.3)), wake: 7.0)
        b.travel(.walk, to: homeParking, kmh: 4.5)
        b.travel(.road, to: officeParking, kmh: 50)
        b.travel(.walk, to: office, kmh: 4.5)
        b.stay(until: at(d, b.rng.uniform(11.8, 12.3)), drift: true, outlier: true)
        b.travel(.walk, to: officeCafe, kmh: 4.8)
        b.stay(until: b.now + b.rng.uniform(30, 50) * 60)
        b.travel(.walk, to: office, kmh: 4.8)
        b.stay(until: at(d, b.rng.uniform(17.3, 17.8)), drift: true)
        b.travel(.walk, to: officeParking, kmh: 4.5)
        b.travel(.road, to: shop, kmh: 45)
        b.stay(until: b.now + b.rng.uniform(15, 25) * 60)
        b.travel(.road, to: homeParking, kmh: 45)
        b.travel(.walk, to: home, kmh: 4.5)
    }

    /// Ferry commute across the Bosphorus, each crossing followed straight away by a walk.
    static func ferryDay(_ b: inout SyntheticBuilder, _ d: Int) {
        night(&b, d, depart: at(d, b.rng.uniform(8.0, 8.5)), wake: 7.5)
        b.travel(.walk, to: kadikoyPier, kmh: 5)
        b.travel(.boat, to: karakoyPier, kmh: 25)
        b.travel(.walk, to: ferryOffice, kmh: 5)
        b.stay(until: at(d, b.rng.uniform(17.0, 17.5)), drift: true, outlier: true)
        b.travel(.walk, to: karakoyPier, kmh: 5)
        b.travel(.boat, to: kadikoyPier, kmh: 25)
        b.travel(.walk, to: homeCafe, kmh: 5)
        b.stay(until: b.now + b.rng.uniform(45, 70) * 60)
        b.travel(.walk, to: home, kmh: 5)
    }

    /// A bike ride to the park and the shop.
    static func cycleDay(_ b: inout SyntheticBuilder, _ d: Int) {
        night(&b, d, depart: at(d, b.rng.uniform(9.5, 10.5)), wake: 8.5)
        b.travel(.cycle, to: park, kmh: 18)
        b.stay(until: b.now + b.rng.uniform(60, 90) * 60, outlier: true)
        b.travel(.cycle, to: shop, kmh: 18)
        b.stay(until: b.now + b.rng.uniform(20, 30) * 60)
        b.travel(.cycle, to: homeParking, kmh: 16)
        b.travel(.walk, to: home, kmh: 4.5)
    }

    /// A day trip by 250 km/h train to Eskişehir, driving to the station with a 20-minute hole in the fixes.
    static func trainDay(_ b: inout SyntheticBuilder, _ d: Int) {
        night(&b, d, depart: at(d, b.rng.uniform(6.5, 7.0)), wake: 6.0)
        b.travel(.walk, to: homeParking, kmh: 4.5)
        b.travel(.road, to: pendik.offset(north: 80, east: 0), kmh: 70, hole: (8, 20))
        b.travel(.walk, to: pendik, kmh: 4.5)
        b.stay(until: b.now + b.rng.uniform(12, 20) * 60, drift: true)
        b.travel(.rail, to: eskisehir, kmh: 250)
        b.travel(.walk, to: meeting, kmh: 5)
        b.stay(until: b.now + b.rng.uniform(150, 200) * 60, drift: true, outlier: true)
        b.travel(.walk, to: eskisehir, kmh: 5)
        b.stay(until: b.now + b.rng.uniform(15, 25) * 60)
        b.travel(.rail, to: pendik, kmh: 250)
        b.travel(.walk, to: pendik.offset(north: 80, east: 0), kmh: 4.5)
        b.travel(.road, to: homeParking, kmh: 70)
        b.travel(.walk, to: home, kmh: 4.5)
    }

    /// Drive to the airport (with a 20-minute hole), fly 740 km with the phone off, drive to a hotel.
    static func flightOutDay(_ b: inout SyntheticBuilder, _ d: Int) {
        night(&b, d, depart: at(d, b.rng.uniform(7.5, 8.5)), wake: 7.0)
        b.travel(.walk, to: homeParking, kmh: 4.5)
        b.travel(.road, to: sabihaGokcen.offset(north: 150, east: 0), kmh: 70, hole: (10, 20))
        b.travel(.walk, to: sabihaGokcen, kmh: 4.5)
        b.stay(until: b.now + b.rng.uniform(60, 80) * 60, drift: true)
        b.flyPhoneOff(to: orduGiresun, minutes: 90)
        b.stay(until: b.now + b.rng.uniform(15, 25) * 60)
        b.travel(.road, to: hotel, kmh: 50)
    }

    /// Drive from the hotel to the airport, fly back with fixes in the air, drive home.
    static func flightBackDay(_ b: inout SyntheticBuilder, _ d: Int) {
        b.stay(until: at(d, b.rng.uniform(9.0, 10.0)), drift: true, off: (at(d - 1, 23.5), at(d, 7.0)))
        b.travel(.road, to: orduGiresun.offset(north: 150, east: 0), kmh: 50)
        b.travel(.walk, to: orduGiresun, kmh: 4.5)
        b.stay(until: b.now + b.rng.uniform(50, 70) * 60, drift: true)
        b.travel(.flight, to: sabihaGokcen, kmh: 780)
        b.stay(until: b.now + b.rng.uniform(15, 25) * 60)
        b.travel(.road, to: homeParking, kmh: 60)
        b.travel(.walk, to: home, kmh: 4.5)
    }
}
