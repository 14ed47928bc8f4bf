import Foundation
import GRDB
import RoquaTiles

/// `roqua map --heat`: the lifetime map's heat as one picture, offline — the tiles of the zoom
/// that fits the width, laid side by side and cut to the box, over a light ground.
public struct HeatPoster: Sendable {
    /// South, west, north, east, degrees.
    public var box: (south: Double, west: Double, north: Double, east: Double)
    public var zoom: Int
    public var width: Int
    public var height: Int
    public var png: [UInt8]
    /// Tiles with something drawn.
    public var litTiles: Int

    /// - Parameters:
    ///   - box: the area, nil for the one every kept fix lies in (the store's heat at zoom 14).
    ///   - span: only the fixes of `[from, to)`, drawn from the fixes; nil for every one.
    /// - Throws: `RegionStoreError`, `TileBlobError`, `FixBlock.Damaged`; `HeatPoster.Empty` when
    ///   nothing was recorded.
    public init(
        store: RegionStore, box: (south: Double, west: Double, north: Double, east: Double)?, width: Int,
        span: (from: Date, to: Date)? = nil
    ) throws {
        guard let box = try box ?? store.heatBox() else { throw Empty() }
        // The deepest zoom at which the box is no wider than asked.
        var zoom = 0
        while zoom < 18, Self.pixelX(box.east, zoom + 1) - Self.pixelX(box.west, zoom + 1) <= Double(width) { zoom += 1 }
        let (x0, x1) = (Int(Self.pixelX(box.west, zoom)), Int(Self.pixelX(box.east, zoom).rounded(.up)))
        let (y0, y1) = (Int(Self.pixelY(box.north, zoom)), Int(Self.pixelY(box.south, zoom).rounded(.up)))
        let (w, h) = (max(x1 - x0, 1), max(y1 - y0, 1))
        // A light ground, the heat over it.
        var canvas = [UInt8](repeating: 0, count: w * h * 4)
        for i in stride(from: 0, to: canvas.count, by: 4) {
            (canvas[i], canvas[i + 1], canvas[i + 2], canvas[i + 3]) = (240, 240, 236, 255)
        }
        var lit = 0
        let fixes = try span.map { try store.spanFixes(from: $0.from, to: $0.to) }
        for ty in (y0 >> 8)...((y1 - 1) >> 8) {
            for tx in (x0 >> 8)...((x1 - 1) >> 8) {
                let tile = TileID(z: zoom, x: tx, y: ty)
                let image = try fixes.map { Self.heat(tile, of: $0) } ?? store.heatImage(tile)
                guard let image else { continue }
                lit += 1
                for py in 0..<256 {
                    let cy = ty * 256 + py - y0
                    guard cy >= 0, cy < h else { continue }
                    for px in 0..<256 {
                        let cx = tx * 256 + px - x0
                        guard cx >= 0, cx < w else { continue }
                        let pixel = image.pixel(x: px, y: py)
                        guard pixel.a > 0 else { continue }
                        let a = Int(pixel.a), i = (cy * w + cx) * 4
                        canvas[i] = UInt8((Int(pixel.r) * a + Int(canvas[i]) * (255 - a)) / 255)
                        canvas[i + 1] = UInt8((Int(pixel.g) * a + Int(canvas[i + 1]) * (255 - a)) / 255)
                        canvas[i + 2] = UInt8((Int(pixel.b) * a + Int(canvas[i + 2]) * (255 - a)) / 255)
                    }
                }
            }
        }
        (self.box, self.zoom, self.width, self.height, litTiles) = (box, zoom, w, h, lit)
        png = PNG.encode(width: w, height: h, rgba: canvas, level: 6)
    }

    /// Nothing recorded: no fix, so no heat.
    public struct Empty: Error, CustomStringConvertible {
        public var description: String { "no fixes kept, so no heat to draw: import a track first (roqua track import FILE)" }
    }

    /// Tile `tile`'s heat of `fixes`, nil where none lies.
    static func heat(_ tile: TileID, of fixes: [TileFix]) -> RGBAImage? {
        let window = TileRenderer.window(fixes: fixes, tile: tile, kind: .heat)
        return window.nonZero == 0 ? nil : TileRenderer.image(window, kind: .heat)
    }

    static func pixelX(_ longitude: Double, _ zoom: Int) -> Double { (longitude + 180) / 360 * 256 * Double(1 << zoom) }
    static func pixelY(_ latitude: Double, _ zoom: Int) -> Double {
        let radians = min(max(latitude, -85.05112878), 85.05112878) * .pi / 180
        return (1 - log(tan(radians) + 1 / cos(radians)) / .pi) / 2 * 256 * Double(1 << zoom)
    }
}

extension RegionStore {
    /// The box every kept fix lies in, to a zoom-14 tile (about 2 km); nil for none.
    func heatBox() throws -> (south: Double, west: Double, north: Double, east: Double)? {
        try read { db in
            guard let row = try Row.fetchOne(db, sql: "SELECT MIN(x), MAX(x), MIN(y), MAX(y) FROM map_tiles WHERE z = 14 AND kind = 0"),
                let x0: Int = row[0], let x1: Int = row[1], let y0: Int = row[2], let y1: Int = row[3]
            else { return nil }
            let longitude = { (x: Int) in Double(x) / 16384 * 360 - 180 }
            let latitude = { (y: Int) in atan(sinh(.pi * (1 - 2 * Double(y) / 16384))) * 180 / .pi }
            return (latitude(y1 + 1), longitude(x0), latitude(y0), longitude(x1 + 1))
        }
    }

    /// Tile `tile`'s heat from the pyramid, nil where nothing was recorded.
    func heatImage(_ tile: TileID) throws -> RGBAImage? {
        try read { db in
            let window = try TileRenderer.window(tile: tile, kind: .heat) { try MapTileKeeper.blob($0, db) }
            return window.nonZero == 0 ? nil : TileRenderer.image(window, kind: .heat)
        }
    }
}
