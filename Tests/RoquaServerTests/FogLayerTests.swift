import Foundation
import RoquaIO
import RoquaServeInput
import RoquaTestSupport
import Testing

@testable import RoquaServer

/// The page's fog layer: the circles of the view, thinned for the zoom, bounded whatever the store.
@Suite struct FogLayerTests {
    /// A long walk (a region every ~250 m; 200,000 of them go round the world once and a bit).
    static func walk(_ count: Int, from start: (Double, Double) = (41.0, 29.0)) -> [FogLayer.Circle] {
        var circles: [FogLayer.Circle] = []
        var latitude = start.0, longitude = start.1
        for i in 0..<count {
            latitude += i % 9 < 4 ? 0.0022 : -0.0017
            longitude += 0.0021
            circles.append(FogLayer.Circle(longitude: longitude, latitude: latitude, radius: 150))
        }
        return circles
    }

    @Test func theWorldAtLowZoomIsAFewCirclesAndCloseUpEveryOne() {
        let circles = Self.walk(200_000)
        let world = FogLayer(circles, view: .init(zoom: 2, west: -257, south: -90, east: 257, north: 90))
        #expect(world.regionsInView == circles.count && world.grid == 0.5)
        #expect(world.circles.count < 5_000 && world.circles.count > 50, "\(world.circles.count)")
        // Every region lies within a pixel of a circle sent (the page draws each at least 1 px wide).
        let scale = 256 * 4.0
        func pixel(_ c: FogLayer.Circle) -> (Double, Double) {
            let φ = c.latitude * .pi / 180
            return ((c.longitude + 180) / 360 * scale, (1 - log(tan(φ) + 1 / cos(φ)) / .pi) / 2 * scale)
        }
        let sent = world.circles.map(pixel)
        for circle in circles.enumerated().filter({ $0.offset % 997 == 0 }).map(\.element) {
            let p = pixel(circle)
            #expect(sent.contains { hypot($0.0 - p.0, $0.1 - p.1) <= 0.71 })
        }
        // Zoomed in on the start of the walk: every circle in the view is sent, no other.
        let close = FogLayer(circles, view: .init(zoom: 16, west: 29.0, south: 40.99, east: 29.02, north: 41.02))
        let expected = circles.filter { $0.longitude >= 28.998 && $0.longitude <= 29.022 && $0.latitude >= 40.988 && $0.latitude <= 41.022 }
        #expect(close.circles == expected && !expected.isEmpty)
        #expect(FogLayer(circles, view: .init(zoom: 16, west: -10, south: -10, east: 10, north: 10)).circles.isEmpty)
    }

    @Test func tooManyCirclesCoarsenTheGridUntilTheyFit() {
        // Scattered, every circle its own pixel at the first grid.
        var random = SeededGenerator(state: 4)
        let circles = (0..<30_000).map { _ in
            FogLayer.Circle(
                longitude: Double.random(in: -180...180, using: &random), latitude: Double.random(in: -80...80, using: &random),
                radius: 150)
        }
        let layer = FogLayer(circles, view: .init(zoom: 6, west: -180, south: -90, east: 180, north: 90), maxCircles: 5_000)
        #expect(layer.circles.count <= 5_000 && layer.circles.count > 1_000 && layer.grid > 0.5, "\(layer.circles.count) \(layer.grid)")
        #expect(layer.jsonText.utf8.count < 5_000 * 30)
    }

    @Test func aViewAcrossTheAntimeridianHasBothSides() {
        let circles = [
            FogLayer.Circle(longitude: 179.99, latitude: -17, radius: 150), FogLayer.Circle(longitude: -179.99, latitude: -17, radius: 150),
            FogLayer.Circle(longitude: 170, latitude: -17, radius: 150),
        ]
        let layer = FogLayer(circles, view: .init(zoom: 12, west: 179.9, south: -17.1, east: 180.1, north: -16.9))
        #expect(layer.circles == Array(circles.prefix(2)))
        #expect(layer.jsonText == #"{"grid":0.5,"regions_in_view":2,"circles":[[179.99000,-17.00000,150],[-179.99000,-17.00000,150]]}"#)
    }

    @Test func badViewsAreRefusedNamingTheParameter() throws {
        for query in [
            "zoom=2", "bbox=0,0,1,1", "zoom=25&bbox=0,0,1,1", "zoom=x&bbox=0,0,1,1", "zoom=3&bbox=0,0,1", "zoom=3&bbox=0,1,1,0",
            "zoom=3&bbox=1,0,0,1", "zoom=3&bbox=0,-91,1,1", "zoom=3&bbox=nan,0,1,1", "zoom=3&bbox=0,0,1,inf",
        ] {
            #expect(throws: APIError.self, "\(query)") { try FogLayer.View(try QueryParameters(query)) }
        }
        #expect(try FogLayer.View(try QueryParameters("zoom=3&bbox=-200.5,-90,200.5,90")).east == 200.5)
    }
}

extension FogLayer {
    /// The layer as `GET /api/fog` sends it.
    var jsonText: String { (try? OrderedJSONEncoder().encode(self)).map { String(decoding: $0, as: UTF8.self) } ?? "not encodable" }
}
