/// Explorer-tile figures as VeloViewer and Statshunters define them, on the tiles visited at one
/// zoom (14: ~2.4 km at the equator; 17, "squadratinhos": ~300 m):
/// - `tiles`: tiles holding at least one ground fix;
/// - `maxCluster`: the largest group of *cluster tiles* — visited tiles whose four neighbours
///   (north, south, east, west) are all visited — connected through shared edges;
/// - `maxSquare`: the side of the largest N×N block of visited tiles; `square` is its top-left
///   tile (of several as large, the one with the smallest y, then x).
public struct TileStats: Sendable, Equatable, Encodable {
    public struct Square: Sendable, Equatable, Encodable {
        public var x: Int
        public var y: Int
        public var size: Int
    }

    public var zoom: Int
    public var tiles: Int
    public var maxCluster: Int
    public var maxSquare: Int
    public var square: Square?
    /// The largest cluster's tiles (sorted), for maps; not in JSON.
    public var cluster: [Tile] = []

    enum CodingKeys: String, CodingKey { case zoom, tiles, maxCluster, maxSquare, square }

    public init(zoom: Int, visited: Set<Tile>) {
        self.zoom = zoom
        tiles = visited.count
        // Max square: the side of the largest square ending at each tile (bottom-right corner),
        // from the three squares above, to the left and diagonally (tiles in row order).
        var side: [Tile: Int] = [:]
        side.reserveCapacity(visited.count)
        var best: Square?
        for tile in visited.sorted() {
            let n =
                1
                + min(
                    side[Tile(x: tile.x - 1, y: tile.y)] ?? 0, side[Tile(x: tile.x, y: tile.y - 1)] ?? 0,
                    side[Tile(x: tile.x - 1, y: tile.y - 1)] ?? 0)
            side[tile] = n
            let candidate = Square(x: tile.x - n + 1, y: tile.y - n + 1, size: n)
            if let current = best {
                if n > current.size || n == current.size && (candidate.y, candidate.x) < (current.y, current.x) { best = candidate }
            } else {
                best = candidate
            }
        }
        square = best
        maxSquare = best?.size ?? 0
        // Max cluster: connected components of cluster tiles.
        func neighbours(_ t: Tile) -> [Tile] {
            [Tile(x: t.x + 1, y: t.y), Tile(x: t.x - 1, y: t.y), Tile(x: t.x, y: t.y + 1), Tile(x: t.x, y: t.y - 1)]
        }
        let clustered = Set(visited.filter { neighbours($0).allSatisfy(visited.contains) })
        var seen = Set<Tile>()
        var largest: [Tile] = []
        for start in clustered.sorted() where !seen.contains(start) {
            var component: [Tile] = [start]
            seen.insert(start)
            var next = 0
            while next < component.count {
                for n in neighbours(component[next]) where clustered.contains(n) && seen.insert(n).inserted { component.append(n) }
                next += 1
            }
            if component.count > largest.count { largest = component }
        }
        maxCluster = largest.count
        cluster = largest.sorted()
    }
}
