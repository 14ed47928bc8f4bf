import Testing

@testable import RoquaRegions

/// Expected hashes and neighbour lists were produced by an independent implementation (the classic bit-by-bit
/// encoder and Dave Troy's lookup-table neighbour algorithm, in Python), not by the code under test.
struct GeohashTests {
    @Test func knownVectorEncodesAndDecodes() throws {
        #expect(Geohash.encode(latitude: 57.64911, longitude: 10.40744, precision: 11) == "u4pruydqqvj")
        let box = try #require(Geohash.decode("u4pruydqqvj"))
        #expect(abs(box.latitude - 57.64911) < 1e-5)
        #expect(abs(box.longitude - 10.40744) < 1e-5)
        #expect(box.contains(latitude: 57.64911, longitude: 10.40744))
    }

    @Test func kadikoy() throws {
        #expect(Geohash.encode(latitude: 40.9879, longitude: 29.0281) == "sxk9ht9")
        #expect(Geohash.encode(latitude: 40.9879, longitude: 29.0281, precision: 9) == "sxk9ht9eg")
        let box = try #require(Geohash.decode("sxk9ht9"))
        #expect(box.contains(latitude: 40.9879, longitude: 29.0281))
        // Precision 7: 180 / 2^17 degrees tall, 360 / 2^18 wide.
        #expect(box.latitudeError * 2 == 180.0 / 131_072)
        #expect(box.longitudeError * 2 == 360.0 / 262_144)
    }

    @Test func decodeOfEncodeContainsThePoint() throws {
        let points: [(Double, Double)] = [
            (0, 0), (-33.8688, 151.2093), (64.1466, -21.9426), (-54.8019, -68.303),
            (89.9999, 179.9999), (-90, -180), (90, 180), (40.9879, 29.0281),
        ]
        for (lat, lon) in points {
            for precision in 1...12 {
                let box = try #require(Geohash.decode(Geohash.encode(latitude: lat, longitude: lon, precision: precision)))
                #expect(box.contains(latitude: lat, longitude: lon), "\(lat), \(lon) @ \(precision)")
            }
        }
    }

    @Test func neighboursMatchIndependentVectors() {
        #expect(Geohash.neighbours("ezs42") == ["ezs48", "ezs49", "ezs43", "ezs41", "ezs40", "ezefp", "ezefr", "ezefx"])
        #expect(Geohash.neighbours("sxk9ht9") == ["sxk9htc", "sxk9htf", "sxk9htd", "sxk9ht6", "sxk9ht3", "sxk9ht2", "sxk9ht8", "sxk9htb"])
    }

    @Test func neighboursShareAnEdge() throws {
        let hash = "sxk9ht9"
        let box = try #require(Geohash.decode(hash))
        let north = try #require(Geohash.neighbour(hash, .north).flatMap(Geohash.decode))
        #expect(north.minLatitude == box.maxLatitude)
        #expect(north.minLongitude == box.minLongitude && north.maxLongitude == box.maxLongitude)
        let east = try #require(Geohash.neighbour(hash, .east).flatMap(Geohash.decode))
        #expect(east.minLongitude == box.maxLongitude)
        #expect(east.minLatitude == box.minLatitude && east.maxLatitude == box.maxLatitude)
        let southWest = try #require(Geohash.neighbour(hash, .southWest).flatMap(Geohash.decode))
        #expect(southWest.maxLatitude == box.minLatitude && southWest.maxLongitude == box.minLongitude)
    }

    @Test func neighboursAcrossTheAntimeridian() {
        #expect(Geohash.encode(latitude: 0.01, longitude: 179.99, precision: 5) == "xbpbp")
        #expect(Geohash.neighbours("xbpbp") == ["xbpbr", "80002", "80000", "2pbpb", "rzzzz", "rzzzy", "xbpbn", "xbpbq"])
        #expect(Geohash.neighbours("2pbpb") == ["80000", "80001", "2pbpc", "2pbp9", "2pbp8", "rzzzx", "rzzzz", "xbpbp"])
        // Each is the other's neighbour across the line.
        #expect(Geohash.neighbour("xbpbp", .east) == "80000")
        #expect(Geohash.neighbour("80000", .west) == "xbpbp")
    }

    @Test func nothingBeyondThePoles() {
        // Top row: the lookup-table algorithm would wrap "north" to the south pole (h0000); we leave those out.
        #expect(Geohash.encode(latitude: 89.99, longitude: 0.01, precision: 5) == "upbpb")
        #expect(Geohash.neighbour("upbpb", .north) == nil)
        #expect(Geohash.neighbour("upbpb", .northEast) == nil)
        #expect(Geohash.neighbours("upbpb") == ["upbpc", "upbp9", "upbp8", "gzzzx", "gzzzz"])
        #expect(Geohash.neighbours("5bpbp") == ["5bpbr", "h0002", "h0000", "5bpbn", "5bpbq"])
        #expect(Geohash.neighbour("5bpbp", .south) == nil)
        #expect(Geohash.neighbours("zzzzz")?.count == 5)  // north-east corner: wraps east, stops north
        #expect(Geohash.neighbour("zzzzz", .east) == "bpbpb")
    }

    @Test func invalidInput() {
        #expect(Geohash.decode("") == nil)
        #expect(Geohash.decode("u4pa") == nil)  // a, i, l, o are not in the alphabet
        #expect(Geohash.decode("sxk9 ht9") == nil)
        #expect(Geohash.decode("u4pruydqqvjzz") == nil)  // 13 characters: over the maximum
        #expect(Geohash.neighbours("ilo") == nil)
        #expect(Geohash.isValid("SXK9HT9"))
        #expect(Geohash.decode("SXK9HT9") == Geohash.decode("sxk9ht9"))
        #expect(Geohash.neighbour("SXK9HT9", .north) == "sxk9htc")
    }

    @Test func encodeClampsAndWraps() {
        #expect(Geohash.encode(latitude: 0, longitude: 180, precision: 3) == "xbp")
        #expect(Geohash.encode(latitude: 90, longitude: 180, precision: 3) == "zzz")
        #expect(Geohash.encode(latitude: -90, longitude: -180, precision: 3) == "000")
        #expect(Geohash.encode(latitude: 40.9879, longitude: 29.0281 + 360) == "sxk9ht9")
        #expect(Geohash.encode(latitude: 95, longitude: 0, precision: 4) == Geohash.encode(latitude: 90, longitude: 0, precision: 4))
        #expect(Geohash.encode(latitude: 1, longitude: 1, precision: 0).count == 1)
        #expect(Geohash.encode(latitude: 1, longitude: 1, precision: 40).count == 12)
    }
}
