import Foundation
import RoquaProjection
import Testing

@Suite struct ReprojectionTests {
    static let utm17ESRI = """
        PROJCS["NAD_1983_UTM_Zone_17N",GEOGCS["GCS_North_American_1983",DATUM["D_North_American_1983",\
        SPHEROID["GRS_1980",6378137.0,298.257222101]],PRIMEM["Greenwich",0.0],UNIT["Degree",0.0174532925199433]],\
        PROJECTION["Transverse_Mercator"],PARAMETER["False_Easting",500000.0],PARAMETER["False_Northing",0.0],\
        PARAMETER["Central_Meridian",-81.0],PARAMETER["Scale_Factor",0.9996],PARAMETER["Latitude_Of_Origin",0.0],UNIT["Meter",1.0]]
        """

    static func lonLat(_ definition: String, _ x: Double, _ y: Double) throws -> (lon: Double, lat: Double) {
        var xs = [x], ys = [y]
        try Reprojection(from: definition).transform(x: &xs, y: &ys)
        return (xs[0], ys[0])
    }

    @Test func utmComesBackAsLongitudeLatitude() throws {
        let origin = try Self.lonLat("EPSG:32617", 500_000, 0)
        #expect(abs(origin.lon + 81) < 1e-9 && abs(origin.lat) < 1e-9)
        // Downtown Atlanta (west of zone 17's central meridian, as Georgia's county files have
        // it), the same from an EPSG code, a PROJ string and a shapefile's ESRI .prj.
        let code = try Self.lonLat("EPSG:26917", 186_000, 3_740_000)
        #expect(code.lon > -84.5 && code.lon < -84.3 && code.lat > 33.6 && code.lat < 33.9, "\(code)")
        for definition in ["+proj=utm +zone=17 +datum=NAD83 +units=m +no_defs", Self.utm17ESRI] {
            let other = try Self.lonLat(definition, 186_000, 3_740_000)
            #expect(abs(other.lon - code.lon) < 1e-7 && abs(other.lat - code.lat) < 1e-7, "\(definition.prefix(30)): \(other)")
        }
        let reprojection = try Reprojection(from: "EPSG:26917")
        #expect(reprojection.sourceName == "NAD83 / UTM zone 17N" && !reprojection.sourceIsGeographic)
    }

    @Test func theTokyoDatumIsShiftedAbout450Metres() throws {
        // Tokyo datum → WGS 84 near Shinjuku: +0.0032° latitude, −0.0032° longitude (the
        // Geospatial Information Authority of Japan's published approximation).
        let shifted = try Self.lonLat("EPSG:4301", 139.7, 35.69)
        #expect(shifted.lat - 35.69 > 0.0028 && shifted.lat - 35.69 < 0.0036, "\(shifted)")
        #expect(shifted.lon - 139.7 > -0.0036 && shifted.lon - 139.7 < -0.0028, "\(shifted)")
        #expect(try Reprojection(from: "EPSG:4301").sourceIsGeographic)
        // Japan Plane Rectangular CS VI on the Tokyo datum: its origin is 36° N 136° E there.
        let origin = try Self.lonLat("EPSG:30166", 0, 0)
        #expect(abs(origin.lat - 36.0032) < 0.0006 && abs(origin.lon - 135.9968) < 0.0006, "\(origin)")
    }

    @Test func whatPROJCannotReadOrTransformIsNamed() throws {
        for definition in ["EPSG:999999", "not a coordinate system", "GEOGCS[broken"] {
            #expect {
                _ = try Reprojection(from: definition)
            } throws: { error in
                "\(error)".contains("CRS \"\(definition)\"")
            }
        }
        var xs = [741_600, 1e300], ys = [3_737_000, 1e300]
        #expect {
            try Reprojection(from: "EPSG:26917").transform(x: &xs, y: &ys)
        } throws: { error in
            "\(error)".contains("point 2")
        }
        #expect(xs == [741_600, 1e300], "left as they were")
    }

    @Test func densifyingCutsLongEdgesAndKeepsTheRingsPoints() {
        let ring: [(x: Double, y: Double)] = [(0, 0), (10, 0), (10, 1), (0, 0)]
        let dense = Reprojection.densified(ring, step: 3)
        #expect(dense.map(\.x) == [0, 2.5, 5, 7.5, 10, 10, 7.5, 5, 2.5, 0])
        #expect(dense.first! == (0, 0) && dense.last! == (0, 0))
        #expect(Reprojection.densified(ring, step: 100).count == 4)
    }
}
