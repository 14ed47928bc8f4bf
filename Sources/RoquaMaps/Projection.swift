import Foundation
import RoquaBoundaries

/// Web Mercator scaled to fit a bounding box into a picture `width` pixels wide, y downwards.
/// Conformal, so the shapes of provinces and districts look as people know them from maps.
public struct MapProjection: Sendable {
    /// The bounding box in degrees the projection was fitted to.
    public let box: BoundingBox
    /// Picture width in pixels, margins included.
    public let width: Double
    /// Picture height in pixels that keeps the box's Mercator aspect, margins included.
    public let height: Double
    private let scale: Double
    private let originX: Double
    private let originY: Double

    /// `box` in degrees; latitudes are clamped to ±85.05° (where Web Mercator ends).
    public init(fitting box: BoundingBox, width: Double, margin: Double = 10) {
        self.box = box
        let minX = Self.mercatorX(box.minX), maxX = Self.mercatorX(box.maxX)
        let minY = Self.mercatorY(box.minY), maxY = Self.mercatorY(box.maxY)
        let spanX = max(maxX - minX, 1e-12), spanY = max(maxY - minY, 1e-12)
        scale = (width - 2 * margin) / spanX
        self.width = width
        height = spanY * scale + 2 * margin
        originX = minX - margin / scale
        originY = maxY + margin / scale
    }

    static func mercatorX(_ longitude: Double) -> Double { longitude * .pi / 180 }

    static func mercatorY(_ latitude: Double) -> Double {
        let φ = min(max(latitude, -85.05112878), 85.05112878) * .pi / 180
        return log(tan(.pi / 4 + φ / 2))
    }

    /// Pixel position of a longitude/latitude.
    public func point(longitude: Double, latitude: Double) -> (x: Double, y: Double) {
        ((Self.mercatorX(longitude) - originX) * scale, (originY - Self.mercatorY(latitude)) * scale)
    }

    /// Pixels per metre on the ground at `latitude` (Mercator stretches by 1/cos φ).
    public func pixelsPerMetre(atLatitude latitude: Double) -> Double {
        scale / (Geodesy.earthRadius * cos(min(abs(latitude), 85.05112878) * .pi / 180))
    }
}
