import Foundation
import RoquaBoundaries

/// A circle the user has explored: a visited region's centre and radius (metres).
public struct ExploredCircle: Sendable, Equatable {
    /// Centre latitude, degrees.
    public var latitude: Double
    /// Centre longitude, degrees.
    public var longitude: Double
    /// Radius in metres.
    public var radius: Double

    /// Creates a circle without checking it; `ExploredArea` and `WorldGrid` validate.
    public init(latitude: Double, longitude: Double, radius: Double) {
        self.latitude = latitude
        self.longitude = longitude
        self.radius = radius
    }
}
