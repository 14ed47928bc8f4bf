import Foundation

/// What one thread's last nearest-unit search over a nearby-unit list learnt, so that the next
/// search of the same list (the next fix of a track) can skip most of the work and still give the
/// same answer: per unit a lower bound of its planar distance, and the unit and edge that
/// answered.
///
/// A bound is kept as `distance + travelled` at the time it was measured, where `travelled` is
/// the length of the path of search points since the list was first searched: the distance to a
/// set of edges changes by at most the step (1-Lipschitz), so `kept - travelled` stays a lower
/// bound however many steps later.
struct NearMemory {
    /// The search a memory is valid for: the same list of the same tile, asked the same question.
    struct Key: Equatable {
        var tile: UnsafePointer<CellTile>?
        var list: Int
        var belowLevel: Int
        var country: Int32
        var meters: Double
    }

    /// The unit that answered: its position in the list, the offset of its entry in the tile's
    /// words, its level, and the edge nearest to the last point.
    struct Winner {
        var ordinal: Int
        var at: Int
        var level: Int
        var edge: Int
        static let none = Winner(ordinal: -1, at: -1, level: -1, edge: -1)
    }

    /// Rounding in the distances and in the step is far below this (degrees, ~0.1 mm).
    static let slack = 1e-9

    private var key = Key(tile: nil, list: -1, belowLevel: 0, country: 0, meters: 0)
    private var x = 0.0, y = 0.0
    private var travelled = 0.0
    private var kept: [Double] = []
    var winner = Winner.none

    /// Starts a search at (x, y): continues the memory when `key` is the last search's, else
    /// forgets everything.
    @inline(__always)
    mutating func begin(_ key: Key, x: Double, y: Double, units: Int) {
        if key == self.key, kept.count == units {
            let dx = x - self.x, dy = y - self.y
            travelled += (dx * dx + dy * dy).squareRoot()
        } else {
            self.key = key
            travelled = 0
            kept.removeAll(keepingCapacity: true)
            kept.append(contentsOf: repeatElement(-.infinity, count: units))
            winner = .none
        }
        (self.x, self.y) = (x, y)
    }

    /// A lower bound of unit `ordinal`'s planar distance from the current point (-∞: unknown).
    @inline(__always)
    func lowerBound(_ ordinal: Int) -> Double {
        kept[ordinal] - travelled - Self.slack
    }

    /// Unit `ordinal` was just measured: its planar distance is at least `floor`.
    @inline(__always)
    mutating func measured(_ ordinal: Int, _ floor: Double) {
        kept[ordinal] = floor + travelled
    }
}
