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
    /// each figure on its own.
    @Test func carriedForwardOnlyFromTheEarlierCirclesOwnValues() throws {
        let directory = try TempDirectory()
        let store = try RegionStore(path: directory.file("regions.sqlite"))
        let circles = Self.walk(ExploredFigures.rememberedFrom + 10)
        let earlier = circles.prefix(ExploredFigures.rememberedFrom)
        func rows() throws -> [String] {
            try store.read { db in
                try Row.fetchAll(db, sql: "SELECT name, fingerprint, value FROM explored_figures ORDER BY name").map {
                    "\($0["name"] as String) \(($0["fingerprint"] as String).prefix(8)) \($0["value"] as Double)"
                }
            }
        }
        let all = ExploredFigures(circles, memory: nil).fingerprint.prefix(8)
        let before = ExploredFigures(Array(earlier), memory: nil).fingerprint.prefix(8)
        // Nothing remembered; no memory: nothing written.
        ExploredFigures(circles, memory: StoredFigures(store: store)).rememberAfterAdding(10)
        ExploredFigures(circles, memory: nil).rememberAfterAdding(10)
        #expect(try rows().isEmpty)
        // Remembered for other circles (one moved), or asked with the wrong count: not taken.
        var moved = Array(earlier)
        moved[5].radius += 1
        StoredFigures(store: store).remember("explored_m2", fingerprint: ExploredFigures(moved, memory: nil).fingerprint, value: 1)
        for added in [10, 11, 9, 0] { ExploredFigures(circles, memory: StoredFigures(store: store)).rememberAfterAdding(added) }
        #expect(try rows().count == 1 && rows()[0].hasPrefix("explored_m2 ") && !rows()[0].contains(all))
        // The area remembered for the earlier circles themselves, not the share: the area carried
        // forward and remembered for all of them; the share left alone.
        StoredFigures(store: store).remember("explored_m2", fingerprint: ExploredFigures(Array(earlier), memory: nil).fingerprint, value: 1)
        ExploredFigures(circles, memory: StoredFigures(store: store)).rememberAfterAdding(10)
        let area = 1 + (try #require(try ExploredArea.squareMetersAdded(by: circles[earlier.count...], to: earlier)))
        #expect(try rows() == ["explored_m2 \(all) \(area)"])
        // Then the share too.
        StoredFigures(store: store).remember(
            "world_percent", fingerprint: ExploredFigures(Array(earlier), memory: nil).fingerprint, value: 2)
        #expect(try rows() == ["explored_m2 \(all) \(area)", "world_percent \(before) 2.0"])
        let figures = ExploredFigures(circles, memory: StoredFigures(store: store))
        figures.rememberAfterAdding(10)
        let share = 2 + (try #require(WorldGrid.percentageAdded(by: circles[earlier.count...], to: earlier)))
        #expect(try rows() == ["explored_m2 \(all) \(area)", "world_percent \(all) \(share)"])
        #expect(try figures.squareMeters() == area && figures.worldPercent() == share)
    }

    /// Added circles too spread out to carry (in more than `addedGroupLimit` cells, as a long
    /// journey imported at once): a figure remembered for the earlier circles is measured whole and
    /// remembered, so a store whose figures were remembered keeps them; one that was not is left
    /// for the next reader.
    @Test func tooSpreadToCarryIsMeasuredWholeWhenTheEarlierWereRemembered() throws {
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
            ExploredFigures(circles, memory: StoredFigures(store: store)).rememberAfterAdding(spread.count)
            return try store.read { db in
                try Row.fetchAll(
                    db, sql: "SELECT name, value FROM explored_figures WHERE fingerprint = ? ORDER BY name",
                    arguments: [all]
                ).map { "\($0["name"] as String) \($0["value"] as Double)" }
            }
        }
        #expect(try after(remembering: []).isEmpty)
        #expect(try after(remembering: ["explored_m2"]) == ["explored_m2 \(area)"])
        #expect(try after(remembering: ["world_percent"]) == ["world_percent \(share)"])
        #expect(try after(remembering: ["explored_m2", "world_percent"]) == ["explored_m2 \(area)", "world_percent \(share)"])
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
