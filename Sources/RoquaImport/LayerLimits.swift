import Foundation

/// How much of an added layer's file is read before it is refused. A GeoJSON or GeoPackage layer
/// is held in memory while it becomes a shapefile, and a GeoPackage's values are read whole: a
/// file of a few kilobytes could otherwise ask for gigabytes (a view repeating rows, a value of
/// `randomblob(…)`). The defaults are well above any real layer: a country's districts in full
/// detail are tens of thousands of features and a few million vertices.
package struct LayerLimits: Sendable {
    package var features = 1_000_000
    package var vertices = 50_000_000
    /// The largest value read from a GeoPackage (a geometry blob, a text), in bytes.
    package var valueBytes = 256 << 20

    package init() {}

    /// - Throws: `AddedLayers.Failure` naming `file` once it holds more features or vertices than allowed.
    func check(features: Int, vertices: Int, file: String) throws {
        if features > self.features {
            throw AddedLayers.Failure(description: "\(file): more than \(self.features) features; a layer this large is refused")
        }
        if vertices > self.vertices {
            throw AddedLayers.Failure(description: "\(file): more than \(self.vertices) vertices; a layer this large is refused")
        }
    }
}
