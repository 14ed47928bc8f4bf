import Foundation
import RoquaIO
import RoquaRegions
import Synchronization

/// The explored area and world share of a set of circles, remembered in a `FigureMemory` for big
/// sets (the union's area of a million circles takes over a second here; its fingerprint, a
/// SHA-256 of the circles, ~20 ms). Small sets are computed every time.
public final class ExploredFigures {
    /// Sets with fewer circles are not remembered (computed in well under 50 ms).
    public static let rememberedFrom = 20_000
    /// Part of every fingerprint: change it when `ExploredArea` or `WorldGrid` change a result,
    /// and every remembered figure is computed again.
    static let version = "roqua explored figures 1"

    public let circles: [ExploredCircle]
    private let memory: (any FigureMemory)?
    private var area: Double?
    private var share: Double?

    /// `memory`: where to look the figures up and remember them; nil computes them every time.
    public init(_ circles: [ExploredCircle], memory: (any FigureMemory)?) {
        self.circles = circles
        self.memory = circles.count >= Self.rememberedFrom ? memory : nil
    }

    /// SHA-256 of the version and every circle's centre and radius, in order.
    public private(set) lazy var fingerprint: String = Self.fingerprint(of: circles[...])

    static func fingerprint(of circles: ArraySlice<ExploredCircle>) -> String {
        var hasher = SHA256()
        Array(Self.version.utf8).withUnsafeBytes { hasher.update($0) }
        var words: [UInt64] = []
        words.reserveCapacity(3 * 4096)
        for start in stride(from: circles.startIndex, to: circles.endIndex, by: 4096) {
            words.removeAll(keepingCapacity: true)
            for circle in circles[start..<min(circles.endIndex, start + 4096)] {
                words.append(circle.latitude.bitPattern.littleEndian)
                words.append(circle.longitude.bitPattern.littleEndian)
                words.append(circle.radius.bitPattern.littleEndian)
            }
            words.withUnsafeBytes { hasher.update($0) }
        }
        return hasher.finalize()
    }

    /// Leaves both figures remembered for these circles (a big set with a memory; nothing
    /// otherwise), so the next reader — `roqua stats` after an import, a rebuild or a restore —
    /// need not measure a million circles. When the circles are earlier ones whose figures are
    /// remembered followed by the last `added` (an import's new regions), each figure is carried:
    /// the remembered one plus what the added circles add (`ExploredArea.squareMetersAdded`,
    /// `WorldGrid.percentageAdded`). A figure that cannot be carried (nothing remembered before,
    /// `added` nil, added circles too spread out) is measured whole.
    public func keepRemembered(afterAdding added: Int? = nil) {
        guard let memory else { return }
        var measureArea = false, measureShare = false
        let earlier = circles.count - (added ?? 0)
        // Taken only when a figure is not remembered for all the circles already.
        lazy var earlierPrint =
            added != nil && earlier >= Self.rememberedFrom && earlier < circles.count
            ? Self.fingerprint(of: circles[..<earlier]) : nil
        if area == nil {
            let value = carried("explored_m2", { earlierPrint }, memory) {
                try? ExploredArea.squareMetersAdded(by: self.circles[earlier...], to: self.circles[..<earlier])
            }
            area = value
            measureArea = value == nil
        }
        if share == nil {
            let value = carried("world_percent", { earlierPrint }, memory) {
                WorldGrid.percentageAdded(by: self.circles[earlier...], to: self.circles[..<earlier])
            }
            share = value
            measureShare = value == nil
        }
        switch (measureArea, measureShare) {
        case (true, true): _ = try? squareMetersAndWorldPercent()
        case (true, false): _ = try? squareMeters()
        case (false, true): _ = worldPercent()
        case (false, false): break
        }
    }

    /// The figure `name` for all the circles: remembered already, or the earlier circles'
    /// (`earlierPrint`) plus `more()`, then remembered; nil when neither can be had.
    private func carried(
        _ name: String, _ earlierPrint: () -> String?, _ memory: any FigureMemory,
        _ more: () -> Double??
    ) -> Double? {
        if let known = memory.figure(name, fingerprint: fingerprint) { return known }
        guard let earlierPrint = earlierPrint(), let before = memory.figure(name, fingerprint: earlierPrint),
            let added = more() ?? nil
        else { return nil }
        let value = name == "world_percent" ? min(100, before + added) : before + added
        memory.remember(name, fingerprint: fingerprint, value: value)
        return value
    }

    /// `ExploredArea.squareMeters(of: circles)`.
    /// - Throws: `ExploredAreaError` as `ExploredArea.squareMeters` does (a value is only ever
    ///   remembered for circles it accepted).
    public func squareMeters() throws -> Double {
        if let area { return area }
        let value = try remembered("explored_m2") { try ExploredArea.squareMeters(of: circles) }
        area = value
        return value
    }

    /// `WorldGrid.percentage(of: circles)`.
    public func worldPercent() -> Double {
        if let share { return share }
        let value = remembered("world_percent") { WorldGrid.percentage(of: circles) }
        share = value
        return value
    }

    /// Both figures; for a big set where neither is known, the world share is computed on a
    /// thread of its own while the area is measured (the area's grouping runs on one core), then
    /// both remembered.
    /// - Throws: as `squareMeters()`.
    public func squareMetersAndWorldPercent() throws -> (squareMeters: Double, worldPercent: Double) {
        if circles.count >= Self.rememberedFrom, area == nil, share == nil,
            memory?.figure("world_percent", fingerprint: fingerprint) == nil, memory?.figure("explored_m2", fingerprint: fingerprint) == nil
        {
            let circles = circles
            let computed = Mutex<Double?>(nil), done = DispatchSemaphore(value: 0)
            Thread.detachNewThread {
                computed.withLock { $0 = WorldGrid.percentage(of: circles) }
                done.signal()
            }
            let area: Double
            do {
                area = try squareMeters()
            } catch {
                done.wait()
                throw error
            }
            done.wait()
            let value = computed.withLock { $0 } ?? WorldGrid.percentage(of: circles)
            memory?.remember("world_percent", fingerprint: fingerprint, value: value)
            share = value
            return (area, value)
        }
        return (try squareMeters(), worldPercent())
    }

    private func remembered(_ name: String, _ compute: () throws -> Double) rethrows -> Double {
        guard let memory else { return try compute() }
        if let known = memory.figure(name, fingerprint: fingerprint) { return known }
        let value = try compute()
        memory.remember(name, fingerprint: fingerprint, value: value)
        return value
    }
}

extension ExploredFigures {
    /// Leaves the figures of `store`'s regions (as `roqua stats` reads them: every readable region,
    /// in id order) remembered in it, measuring what is not: for a write that replaced the regions
    /// wholesale (a restore). Best effort, as remembering is: a store that cannot be read now
    /// leaves them to the next reader, which reports why.
    public static func keepRemembered(in store: RegionStore) {
        var circles: [ExploredCircle] = []
        circles.reserveCapacity((try? store.regionCount()) ?? 0)
        do {
            try store.forEachRegionFacts { region in
                circles.append(ExploredCircle(latitude: region.latitude, longitude: region.longitude, radius: Double(region.radius)))
            }
        } catch { return }
        ExploredFigures(circles, memory: StoredFigures(store: store)).keepRemembered()
    }
}
