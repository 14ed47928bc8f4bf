import Foundation
import RoquaBoundaries

/// The offline address of a point ("Moda, Kadıköy, İstanbul, Türkiye": the names `roqua resolve`
/// prints, deepest first) from Roqua's boundary DB, found as `roqua` finds it: `--boundaries PATH`, else `$ROQUA_BOUNDARIES`, else
/// `boundaries.sqlite` in the data home.
enum LocationAddress {
    /// Why no address could be looked up.
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// Checks the point, then resolves it: nil when it lies outside every boundary (open sea).
    /// - Throws: `ResolveError.invalidCoordinate` for impossible coordinates (before any file is
    ///   opened); `Failure` when the DB is missing; the DB's own errors when it cannot be read.
    static func resolve(latitude: Double, longitude: Double, boundaries: String?) throws -> String? {
        let point = try Coordinate(latitude: latitude, longitude: longitude).validated()
        let path = boundaries ?? RoquaPaths.boundaries()
        guard FileManager.default.fileExists(atPath: path) else {
            throw Failure(description: "no boundary database at \(path): build it with `roqua import` or pass --boundaries PATH")
        }
        let index = try ResolverIndex(path: path)
        return try index.withLocality(Resolver(index: index).resolve(latitude: point.latitude, longitude: point.longitude))
            .address(language: .local)
    }
}
