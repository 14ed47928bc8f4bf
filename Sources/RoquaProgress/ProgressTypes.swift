import Foundation
import RoquaBoundaries

/// A circle the user has explored: a visited region's centre and radius (metres).
public struct ExploredCircle: Sendable, Equatable {
    public var latitude: Double
    public var longitude: Double
    public var radius: Double

    public init(latitude: Double, longitude: Double, radius: Double) {
        self.latitude = latitude
        self.longitude = longitude
        self.radius = radius
    }
}
