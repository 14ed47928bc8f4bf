import Foundation

/// Every threshold of the visited-region clustering , with the product's defaults.
public struct ClusteringSettings: Sendable, Equatable, Codable {
    /// Radius of a new region, metres (150 m by default), used unless `speedBasedRadius` is on.
    public var radius: Int
    /// Off by default. When on, a new region's radius is `walkingRadius` or `vehicleRadius` by the fix's speed.
    public var speedBasedRadius: Bool
    /// Radius of a new region made from a walking fix, metres (100 by default), with `speedBasedRadius` on.
    public var walkingRadius: Int
    /// Radius of a new region made from a vehicle fix, metres (200 by default), with `speedBasedRadius` on.
    public var vehicleRadius: Int
    /// Speeds at or above this (m/s) count as a vehicle. 6 m/s = 21.6 km/h: above running and most
    /// cycling-in-town speeds, below any motorised traffic that is actually moving.
    public var vehicleSpeedThreshold: Double
    /// A speed is derived from the previous accepted fix (distance / |time difference|) only when the two are at
    /// most this far apart in time; over longer gaps the quotient says nothing about how the user moved.
    /// With no usable speed the fix counts as walking: the smaller circle never claims ground not seen.
    public var speedDerivationMaxInterval: TimeInterval
    /// Fixes whose horizontal accuracy is worse (larger) than this, metres, are dropped; nil accuracy is accepted.
    public var maxAccuracy: Double
    /// Two fixes in one region at most this far apart (seconds) belong to the same visit (30 min by default).
    public var visitGap: TimeInterval
    /// Characters of the centre's geohash (7 by default ≈ 153 m × 153 m at the equator).
    public var geohashPrecision: Int
    /// The radius each region lights — what the explored area, the fog and the maps draw —
    /// when it is not the clustering radius (nil: a region lights its clustering radius).
    public var explorationRadius: Int?
    /// No new region starts closer than this to a region's centre, metres: a fix beyond every
    /// radius but this close joins that region (0: off, the radius alone decides).
    public var minDistance: Int

    /// Creates settings; the defaults are the product's, and `validate()` checks any others.
    public init(
        radius: Int = 150, speedBasedRadius: Bool = false, walkingRadius: Int = 100, vehicleRadius: Int = 200,
        vehicleSpeedThreshold: Double = 6, speedDerivationMaxInterval: TimeInterval = 300,
        maxAccuracy: Double = 50, visitGap: TimeInterval = 30 * 60, geohashPrecision: Int = 7,
        explorationRadius: Int? = nil, minDistance: Int = 0
    ) {
        self.radius = radius
        self.speedBasedRadius = speedBasedRadius
        self.walkingRadius = walkingRadius
        self.vehicleRadius = vehicleRadius
        self.vehicleSpeedThreshold = vehicleSpeedThreshold
        self.speedDerivationMaxInterval = speedDerivationMaxInterval
        self.maxAccuracy = maxAccuracy
        self.visitGap = visitGap
        self.geohashPrecision = geohashPrecision
        self.explorationRadius = explorationRadius
        self.minDistance = minDistance
    }

    /// The product's defaults.
    public static let `default` = ClusteringSettings()

    /// Radii a region may have, metres. A "region" is a place seen, not a city: beyond 5 km a
    /// circle claims ground never seen, and statistics over 0.001° cells grow with its square.
    public static let radiusRange = 10...5000
    /// Accuracy thresholds accepted, metres.
    public static let accuracyRange = 1.0...100_000
    /// Visit gaps accepted, seconds (one minute to one week).
    public static let visitGapRange = 60.0...(7 * 86_400)

    /// Checks every value against its range, so nothing is stored that a later command refuses.
    /// - Throws: `ClusteringSettingsError` naming the setting, its value and its range.
    public func validate() throws(ClusteringSettingsError) {
        for (name, value) in [
            ("radius", radius), ("walking radius", walkingRadius), ("vehicle radius", vehicleRadius),
            ("exploration radius", explorationRadius ?? radius),
        ]
        where !Self.radiusRange.contains(value) {
            throw ClusteringSettingsError("\(name) \(value) m is outside \(Self.radiusRange.lowerBound)…\(Self.radiusRange.upperBound) m")
        }
        guard (0...Self.radiusRange.upperBound).contains(minDistance) else {
            throw ClusteringSettingsError("minimum distance \(minDistance) m is outside 0…\(Self.radiusRange.upperBound) m")
        }
        guard maxAccuracy.isFinite, Self.accuracyRange.contains(maxAccuracy) else {
            throw ClusteringSettingsError("accuracy threshold \(maxAccuracy) m is outside 1…100000 m")
        }
        guard visitGap.isFinite, Self.visitGapRange.contains(visitGap) else {
            throw ClusteringSettingsError("visit gap \(visitGap / 60) min is outside 1…10080 min")
        }
        guard vehicleSpeedThreshold.isFinite, vehicleSpeedThreshold > 0, speedDerivationMaxInterval.isFinite,
            speedDerivationMaxInterval > 0
        else {
            throw ClusteringSettingsError("speed settings must be finite and positive")
        }
        guard (1...Geohash.maxPrecision).contains(geohashPrecision) else {
            throw ClusteringSettingsError("geohash precision \(geohashPrecision) is outside 1…\(Geohash.maxPrecision)")
        }
    }

    /// The largest distance from a centre at which a fix can join a region made under these
    /// settings (sizes the spatial index).
    var largestNewRadius: Int { max(minDistance, speedBasedRadius ? max(walkingRadius, vehicleRadius) : radius) }

    /// How far from its centre a fix joins a stored region of `radius`: the radius it was made
    /// with — unknown once an exploration radius is what the store keeps, then this run's
    /// clustering radius — or the minimum distance, whichever is larger.
    func joiningRadius(_ radius: Int) -> Int { max(explorationRadius == nil ? radius : self.radius, minDistance) }

    /// Radius for a new region given the fix's speed in m/s (nil = unknown).
    func newRegionRadius(speed: Double?) -> Int {
        guard speedBasedRadius else { return radius }
        guard let speed, speed >= vehicleSpeedThreshold else { return walkingRadius }
        return vehicleRadius
    }
}

/// A clustering setting outside its range.
public struct ClusteringSettingsError: Error, CustomStringConvertible, Equatable, Sendable {
    /// What is out of range: the setting, its value and the accepted range.
    public var description: String
    /// Creates an error with `description`.
    public init(_ description: String) { self.description = description }
}
