import Foundation
import RoquaTimeline
import Testing

/// Places with their home and work labels, and trips away from home.
@Suite struct PlacesTripsTests {
    /// Five car-commute days from Monday, ending at home on Saturday morning.
    func workingWeek() -> SyntheticBuilder {
        var b = SyntheticBuilder(seed: 29, start: SyntheticDays.at(0, 6.5), position: SyntheticDays.home)
        for d in 0..<5 { SyntheticDays.carDay(&b, d) }
        return b
    }

    @Test func homeAndWorkAreLabelledAndIdsFollowFirstVisits() {
        let b = workingWeek()
        let entries = Timeline.segment(b.fixes, isOnLand: SyntheticDays.isOnLand)
        let (places, placeOfEntry) = Places.cluster(entries, meters: 100, timeZone: SyntheticDays.timeZone)
        #expect(places.map(\.id) == Array(1...places.count))
        #expect(places.first?.label == .home)
        let work = places.first { $0.label == .work }
        #expect(work.map { GeoPoint(latitude: $0.latitude, longitude: $0.longitude).distance(to: SyntheticDays.office) < 100 } == true)
        #expect(places.filter { $0.label != nil }.count == 2)
        #expect(placeOfEntry.count == entries.count)
        #expect(entries.indices.allSatisfy { (entries[$0].stay != nil) == (placeOfEntry[$0] != nil) })
        let home = places[0]
        #expect(home.stays == 5 || home.stays == 6)
        #expect(home.hours > 50)
    }

    @Test func aDayTripIsNotATripAndAFlightAwayWithANightIs() {
        let week = SyntheticDays.week(seed: 1)
        let entries = Timeline.segment(week.fixes, isOnLand: SyntheticDays.isOnLand)
        let (places, placeOfEntry) = Places.cluster(entries, meters: 100, timeZone: SyntheticDays.timeZone)
        let trips = Trips.find(entries, places: places, placeOfEntry: placeOfEntry, timeZone: SyntheticDays.timeZone)
        #expect(trips.count == 1)
        guard let trip = trips.first else { return }
        #expect(trip.nights == 1)
        let hotel = trip.destination.flatMap { entries[$0].stay }
        #expect(hotel.map { GeoPoint(latitude: $0.latitude, longitude: $0.longitude).distance(to: SyntheticDays.hotel) < 100 } == true)
        #expect(trip.meters > 1_450_000)
    }

    @Test func aWeekendAwayIsATripWithTwoNights() {
        var b = workingWeek()
        let bursa = GeoPoint(latitude: 40.1950, longitude: 29.0600)
        b.stay(until: SyntheticDays.at(4, 20))
        b.travel(.road, to: bursa, kmh: 90)
        b.stay(until: SyntheticDays.at(6, 16), drift: true, off: (SyntheticDays.at(5, 23.5), SyntheticDays.at(6, 8.5)))
        b.travel(.road, to: SyntheticDays.home, kmh: 90)
        b.stay(until: SyntheticDays.at(7, 7.5), off: (SyntheticDays.at(6, 23), SyntheticDays.at(7, 7)))
        let entries = Timeline.segment(b.fixes, isOnLand: SyntheticDays.isOnLand)
        let (places, placeOfEntry) = Places.cluster(entries, meters: 100, timeZone: SyntheticDays.timeZone)
        let trips = Trips.find(entries, places: places, placeOfEntry: placeOfEntry, timeZone: SyntheticDays.timeZone)
        #expect(trips.count == 1)
        guard let trip = trips.first else { return }
        #expect(trip.nights == 2)
        #expect(trip.farStays.count == 1)
        #expect(trip.destination == trip.farStays.first)
        let oneWay = SyntheticDays.home.distance(to: bursa)
        #expect(abs(trip.meters - 2 * oneWay) < 0.05 * oneWay)
    }

    @Test func withoutAHomeThereAreNoTrips() {
        var b = SyntheticBuilder(seed: 31, start: SyntheticDays.at(0, 9), position: SyntheticDays.home)
        b.stay(until: SyntheticDays.at(0, 12))
        let entries = Timeline.segment(b.fixes, isOnLand: SyntheticDays.isOnLand)
        let (places, placeOfEntry) = Places.cluster(entries, meters: 100, timeZone: SyntheticDays.timeZone)
        #expect(places.count == 1 && places[0].label == nil)
        #expect(Trips.find(entries, places: places, placeOfEntry: placeOfEntry, timeZone: SyntheticDays.timeZone).isEmpty)
    }
}
