import Foundation
import GRDB
import RoquaProgress
import RoquaRegions
import RoquaTestSupport
import Testing

/// The explored area and world share of a big store, remembered in the store with the fingerprint
/// of the circles: taken only for the very same circles, never from a stale row.
@Suite struct ExploredFiguresTests {
    static func walk(_ count: Int) -> [ExploredCircle] {
        var random = SeededGenerator(state: 77)
        var latitude = 41.0, longitude = 29.0
        return (0..<count).map { _ in
            latitude += Double.random(in: -0.002...0.0021, using: &random)
            longitude += Double.random(in: -0.002...0.0022, using: &random)
            return ExploredCircle(latitude: latitude, longitude: longitude, radius: 150)
        }
    }

    /// An empty store in a directory of its own, `count` circles of a walk, their area and share.
    struct BigSet {
        let directory: TempDirectory
        let store: RegionStore
        let circles: [ExploredCircle]
        let area, share: Double

        init(_ count: Int) throws {
            directory = try TempDirectory()
            store = try RegionStore(path: directory.file("regions.sqlite"))
            circles = walk(count)
            area = try ExploredArea.squareMeters(of: circles)
            share = WorldGrid.percentage(of: circles)
        }
    }

    @Test func aBigSetIsRememberedForTheSameCirclesOnly() throws {
        let set = try BigSet(ExploredFigures.rememberedFrom + 500)
        let (store, circles, area, share) = (set.store, set.circles, set.area, set.share)

        let first = ExploredFigures(circles, memory: StoredFigures(store: store))
        #expect(try first.squareMeters() == area && first.worldPercent() == share)
        let rows = try store.read { db in try Row.fetchAll(db, sql: "SELECT name, fingerprint, value FROM explored_figures ORDER BY name") }
        #expect(rows.map { $0["name"] as String } == ["explored_m2", "world_percent"])
        #expect(rows.allSatisfy { $0["fingerprint"] as String == first.fingerprint } && first.fingerprint.count == 64)
        #expect(rows.map { $0["value"] as Double } == [area, share])  // exact: REAL keeps every bit

        // The next reader of the same circles takes the stored values (changed here to show it does).
        try store.write { db in try db.execute(sql: "UPDATE explored_figures SET value = value * 2") }
        let second = ExploredFigures(circles, memory: StoredFigures(store: store))
        #expect(try second.squareMeters() == area * 2 && second.worldPercent() == share * 2)

        // One circle moved by a millimetre: another fingerprint, computed again, and remembered.
        var moved = circles
        moved[9_999].latitude += 1e-8
        let third = ExploredFigures(moved, memory: StoredFigures(store: store))
        #expect(third.fingerprint != first.fingerprint)
        #expect(try third.squareMeters() == ExploredArea.squareMeters(of: moved) && third.worldPercent() == WorldGrid.percentage(of: moved))
        #expect(
            try store.read { db in try String.fetchAll(db, sql: "SELECT DISTINCT fingerprint FROM explored_figures") } == [
                third.fingerprint
            ])
        // The same circles in another order are other circles to the fingerprint.
        #expect(ExploredFigures(circles.reversed(), memory: nil).fingerprint != first.fingerprint)
        withExtendedLifetime(set) {}  // the store's directory lives to the end
    }

    @Test func smallSetsAndReadOnlyStoresRememberNothing() throws {
        let directory = try TempDirectory()
        let path = directory.file("regions.sqlite")
        let store = try RegionStore(path: path)
        let small = Self.walk(ExploredFigures.rememberedFrom - 1)
        #expect(try ExploredFigures(small, memory: StoredFigures(store: store)).squareMeters() == ExploredArea.squareMeters(of: small))
        #expect(try store.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM explored_figures") } == 0)
        // Opened read-only: computed, nothing written, no error.
        let readOnly = try RegionStore(path: path, access: .readOnly)
        let big = Self.walk(ExploredFigures.rememberedFrom)
        #expect(try ExploredFigures(big, memory: StoredFigures(store: readOnly)).squareMeters() == ExploredArea.squareMeters(of: big))
        #expect(try store.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM explored_figures") } == 0)
        // Inside a read transaction the savepoint fails and the transaction goes on.
        let inside = try store.read { db in
            let figures = ExploredFigures(big, memory: StoredFigures(db))
            return (try figures.squareMeters(), try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM visited_regions"))
        }
        #expect(inside.0 == (try ExploredArea.squareMeters(of: big)) && inside.1 == 0)
    }

    /// Carried forward only from values remembered for the very circles before the added ones,
    /// each figure on its own; a figure that cannot be carried is measured whole, so both are
    /// always left remembered (a carried value is told from a measured one by the remembered
    /// value it was carried from: 1 and 2 here, no real figure).
    @Test func carriedForwardOnlyFromTheEarlierCirclesOwnValuesElseMeasured() throws {
        let set = try BigSet(ExploredFigures.rememberedFrom + 10)
        let (store, circles) = (set.store, set.circles)
        let earlier = Array(circles.prefix(ExploredFigures.rememberedFrom))
        func rows() throws -> [String] {
            try store.read { db in
                try Row.fetchAll(db, sql: "SELECT name, fingerprint, value FROM explored_figures ORDER BY name").map {
                    "\($0["name"] as String) \(($0["fingerprint"] as String).prefix(8)) \($0["value"] as Double)"
                }
            }
        }
        func forget() throws { try store.write { db in try db.execute(sql: "DELETE FROM explored_figures") } }
        let all = ExploredFigures(circles, memory: nil).fingerprint.prefix(8)
        let before = ExploredFigures(earlier, memory: nil).fingerprint
        let measured = ["explored_m2 \(all) \(set.area)", "world_percent \(all) \(set.share)"]
        // No memory: nothing written. Nothing remembered: both measured whole.
        ExploredFigures(circles, memory: nil).keepRemembered(afterAdding: 10)
        #expect(try rows().isEmpty)
        ExploredFigures(circles, memory: StoredFigures(store: store)).keepRemembered(afterAdding: 10)
        #expect(try rows() == measured)
        // Remembered for other circles (one moved), asked with the wrong count or with none: not
        // carried from, measured.
        var moved = earlier
        moved[5].radius += 1
        for (print, added) in [(ExploredFigures(moved, memory: nil).fingerprint, 10), (before, 11), (before, 9), (before, nil)] {
            try forget()
            StoredFigures(store: store).remember("explored_m2", fingerprint: print, value: 1)
            StoredFigures(store: store).remember("world_percent", fingerprint: print, value: 2)
            ExploredFigures(circles, memory: StoredFigures(store: store)).keepRemembered(afterAdding: added)
            #expect(try rows().filter { $0.contains(String(all)) } == measured)
        }
        // The area remembered for the earlier circles themselves, not the share: the area carried
        // forward, the share measured.
        try forget()
        StoredFigures(store: store).remember("explored_m2", fingerprint: before, value: 1)
        ExploredFigures(circles, memory: StoredFigures(store: store)).keepRemembered(afterAdding: 10)
        let area = 1 + (try #require(try ExploredArea.squareMetersAdded(by: circles[earlier.count...], to: earlier[...])))
        #expect(try rows() == ["explored_m2 \(all) \(area)", measured[1]])
        // Both remembered for the earlier circles: both carried, and taken by the next reader.
        try forget()
        StoredFigures(store: store).remember("explored_m2", fingerprint: before, value: 1)
        StoredFigures(store: store).remember("world_percent", fingerprint: before, value: 2)
        let figures = ExploredFigures(circles, memory: StoredFigures(store: store))
        figures.keepRemembered(afterAdding: 10)
        let share = 2 + (try #require(WorldGrid.percentageAdded(by: circles[earlier.count...], to: earlier[...])))
        let carried = ["explored_m2 \(all) \(area)", "world_percent \(all) \(share)"]
        #expect(try rows().filter { $0.contains(String(all)) } == carried)
        #expect(try figures.squareMeters() == area && figures.worldPercent() == share)
        // Already remembered for all of them: left as they are.
        ExploredFigures(circles, memory: StoredFigures(store: store)).keepRemembered()
        #expect(try rows().filter { $0.contains(String(all)) } == carried)
        // Fewer circles than are remembered: nothing written.
        try forget()
        ExploredFigures(earlier.dropLast(), memory: StoredFigures(store: store)).keepRemembered()
        #expect(try rows().isEmpty)
    }

    /// Added circles too spread out to carry (in more than `addedGroupLimit` cells, as a long
    /// journey imported at once): each figure is measured whole and remembered, whether or not
    /// one was remembered for the earlier circles.
    @Test func tooSpreadToCarryIsMeasuredWhole() throws {
        let directory = try TempDirectory()
        let store = try RegionStore(path: directory.file("regions.sqlite"))
        let earlier = Self.walk(ExploredFigures.rememberedFrom)
        // 300 circles a degree of latitude apart on two meridians: 300 cells of ~64 km.
        let spread = (0..<300).map { ExploredCircle(latitude: -75 + Double($0 % 150), longitude: $0 < 150 ? 10 : 100, radius: 150) }
        let circles = earlier + spread
        #expect(try ExploredArea.squareMetersAdded(by: circles[earlier.count...], to: circles[..<earlier.count]) == nil)
        #expect(WorldGrid.percentageAdded(by: circles[earlier.count...], to: circles[..<earlier.count]) == nil)
        let before = ExploredFigures(earlier, memory: nil).fingerprint, all = ExploredFigures(circles, memory: nil).fingerprint
        let area = try ExploredArea.squareMeters(of: circles), share = WorldGrid.percentage(of: circles)
        func after(remembering names: [String]) throws -> [String] {
            try store.write { db in try db.execute(sql: "DELETE FROM explored_figures") }
            for name in names { StoredFigures(store: store).remember(name, fingerprint: before, value: 1) }
            ExploredFigures(circles, memory: StoredFigures(store: store)).keepRemembered(afterAdding: spread.count)
            return try store.read { db in
                try Row.fetchAll(
                    db, sql: "SELECT name, value FROM explored_figures WHERE fingerprint = ? ORDER BY name",
                    arguments: [all]
                ).map { "\($0["name"] as String) \($0["value"] as Double)" }
            }
        }
        for names in [[], ["explored_m2"], ["world_percent"], ["explored_m2", "world_percent"]] {
            #expect(try after(remembering: names) == ["explored_m2 \(area)", "world_percent \(share)"])
        }
    }

    /// Both figures at once (the share on a thread of its own while the area is measured): the
    /// same values as one by one, both remembered; one already known is taken, the other computed.
    @Test func bothAtOnceAreTheSameAndBothRemembered() throws {
        let set = try BigSet(ExploredFigures.rememberedFrom + 20)
        let (store, circles, area, share) = (set.store, set.circles, set.area, set.share)
        let figures = ExploredFigures(circles, memory: StoredFigures(store: store))
        #expect(try figures.squareMetersAndWorldPercent() == (area, share))
        let rows = try store.read { db in try Row.fetchAll(db, sql: "SELECT name, value FROM explored_figures ORDER BY name") }
        #expect(
            rows.map { $0["name"] as String } == ["explored_m2", "world_percent"] && rows.map { $0["value"] as Double } == [area, share])
        // The share known (marked, to show it is taken), the area forgotten: the area measured again.
        try store.write { db in
            try db.execute(sql: "DELETE FROM explored_figures WHERE name = 'explored_m2'")
            try db.execute(sql: "UPDATE explored_figures SET value = 42")
        }
        #expect(try ExploredFigures(circles, memory: StoredFigures(store: store)).squareMetersAndWorldPercent() == (area, 42))
        // An invalid circle: the error, after the share's thread has ended.
        var broken = circles
        broken[3].latitude = .nan
        #expect(throws: ExploredAreaError.self) { try ExploredFigures(broken, memory: nil).squareMetersAndWorldPercent() }
        withExtendedLifetime(set) {}  // the store's directory lives to the end
    }
}
