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

    /// When the circles are earlier ones whose figures are remembered followed by the last
    /// `added`: both figures from the remembered ones and what the added circles add
    /// (`ExploredArea.squareMetersAdded`, `WorldGrid.percentageAdded`), remembered for all of them,
    /// so the next reader (`roqua stats` after an import into a big store) need not measure a
    /// million circles again. Each is carried only when there is a memory holding it for the
    /// earlier circles and every circle is valid. A figure remembered for the earlier circles whose
    /// added circles are too spread out to carry (a long journey imported at once) is measured
    /// whole here instead: a store whose figures were remembered keeps them remembered.
    public func rememberAfterAdding(_ added: Int) {
        let earlier = circles.count - added
        guard let memory, added > 0, earlier >= Self.rememberedFrom else { return }
        let earlierPrint = Self.fingerprint(of: circles[..<earlier])
        var measureArea = false, measureShare = false
        if area == nil {
            let carry = carried("explored_m2", earlierPrint, memory) {
                try? ExploredArea.squareMetersAdded(by: self.circles[earlier...], to: self.circles[..<earlier])
            }
            area = carry.value
            measureArea = carry.value == nil && carry.wasRemembered
        }
        if share == nil {
            let carry = carried("world_percent", earlierPrint, memory) {
                WorldGrid.percentageAdded(by: self.circles[earlier...], to: self.circles[..<earlier])
            }
            share = carry.value
            measureShare = carry.value == nil && carry.wasRemembered
        }
        switch (measureArea, measureShare) {
        case (true, true): _ = try? squareMetersAndWorldPercent()
        case (true, false): _ = try? squareMeters()
        case (false, true): _ = worldPercent()
        case (false, false): break
        }
    }

    /// The figure `name` for all the circles: remembered already, or the earlier circles' plus
    /// `more()`, then remembered; nil when neither can be had (`wasRemembered`: whether the
    /// earlier circles' value was).
    private func carried(
        _ name: String, _ earlierPrint: String, _ memory: any FigureMemory,
        _ more: () -> Double??
    ) -> (value: Double?, wasRemembered: Bool) {
        if let known = memory.figure(name, fingerprint: fingerprint) { return (known, true) }
        guard let before = memory.figure(name, fingerprint: earlierPrint) else { return (nil, false) }
        guard let added = more() ?? nil else { return (nil, true) }
        let value = name == "world_percent" ? min(100, before + added) : before + added
        memory.remember(name, fingerprint: fingerprint, value: value)
        return (value, true)
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
