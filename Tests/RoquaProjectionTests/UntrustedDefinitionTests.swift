import Foundation
import RoquaProjection
import Testing

/// A CRS definition comes from a layer's files (a `.prj`, a GeoJSON's `crs`, a GeoPackage's SRS
/// table): whatever file it names, PROJ must not open it, and Roqua must not read it.
@Suite struct UntrustedDefinitionTests {
    /// A directory with an init file defining a CRS and a copy of one of proj-data's grids (NTF →
    /// RGF93 over France), outside PROJ's data directories.
    struct Files {
        let directory = NSTemporaryDirectory() + "roqua-crs-\(UUID().uuidString)"
        var initFile: String { directory + "/myinit" }
        var grid: String { directory + "/grid.gsb" }
        var wkt: String { directory + "/crs.wkt" }

        init() throws {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            try "<mycrs> +proj=utm +zone=33 +datum=WGS84 +type=crs <>\n".write(toFile: initFile, atomically: true, encoding: .utf8)
            try FileManager.default.copyItem(atPath: "/usr/share/proj/ntf_r93.gsb", toPath: grid)
            try ReprojectionTests.utm17ESRI.write(toFile: wkt, atomically: true, encoding: .utf8)
        }

        func remove() { try? FileManager.default.removeItem(atPath: directory) }
    }

    /// Paris on the NTF datum (Clarke 1880 IGN), through the grid `nadgrids` names.
    static func paris(nadgrids: String) throws -> (lon: Double, lat: Double) {
        try ReprojectionTests.lonLat("+proj=longlat +ellps=clrk80ign +nadgrids=\(nadgrids) +type=crs", 2.3522, 48.8566)
    }

    @Test func filesNamedByADefinitionAreNotOpened() throws {
        let files = try Files()
        defer { files.remove() }
        // PROJ would read the init file and answer with its UTM zone 33.
        #expect(throws: Reprojection.Failure.self) { _ = try Reprojection(from: "+init=\(files.initFile):mycrs") }
        // A grid by path, in a PROJ string and in WKT 2: not opened, so no transformation.
        #expect(throws: Reprojection.Failure.self) { _ = try Self.paris(nadgrids: files.grid) }
        let wkt = """
            BOUNDCRS[SOURCECRS[GEOGCRS["NTF",DATUM["NTF",ELLIPSOID["Clarke 1880 (IGN)",6378249.2,293.466021293627]],\
            CS[ellipsoidal,2],AXIS["longitude",east],AXIS["latitude",north],ANGLEUNIT["degree",0.0174532925199433]]],\
            TARGETCRS[GEOGCRS["WGS 84",DATUM["World Geodetic System 1984",ELLIPSOID["WGS 84",6378137,298.257223563]],\
            CS[ellipsoidal,2],AXIS["latitude",north],AXIS["longitude",east],ANGLEUNIT["degree",0.0174532925199433],ID["EPSG",4326]]],\
            ABRIDGEDTRANSFORMATION["NTF to WGS 84",METHOD["NTv2",ID["EPSG",9615]],\
            PARAMETERFILE["Latitude and longitude difference file","\(files.grid)"]]]
            """
        #expect(throws: Reprojection.Failure.self) { _ = try ReprojectionTests.lonLat(wkt, 2.3522, 48.8566) }
        // …nor a relative path climbing out of PROJ's directory.
        let climbing = String(repeating: "../", count: 12) + files.grid.dropFirst()
        #expect(throws: Reprojection.Failure.self) { _ = try Self.paris(nadgrids: climbing) }
        // A definition as long as a GeoPackage value may be is not handed to PROJ.
        #expect {
            _ = try Reprojection(from: "EPSG:4326" + String(repeating: " ", count: 100_000))
        } throws: { error in
            "\(error)".contains("longer than 64 KiB")
        }
        // A definition that is a path is not read either; the error says so.
        #expect {
            _ = try Reprojection(from: files.wkt)
        } throws: { error in
            "\(error)".contains("a file's path is not read as one")
        }
    }

    @Test func proj_datasOwnGridsAndDatabaseStillWork() throws {
        // The same grid found by name in PROJ's data directory: Paris moves by the NTF shift (~ 0.0007°).
        let shifted = try Self.paris(nadgrids: "ntf_r93.gsb")
        #expect(abs(shifted.lon - 2.3522) > 0.0004 && abs(shifted.lat - 48.8566) < 0.001, "\(shifted)")
        #expect(try Reprojection(from: "EPSG:2154").sourceName == "RGF93 v1 / Lambert-93")
    }

    @Test func theResolvedDefinitionStandsAlone() throws {
        let files = try Files()
        let resolved = try Reprojection(from: ReprojectionTests.utm17ESRI).resolvedDefinition
        files.remove()
        #expect(resolved.hasPrefix("{") && !resolved.contains("\n") && resolved.contains("Transverse Mercator"), "\(resolved)")
        let again = try ReprojectionTests.lonLat(resolved, 741_600, 3_737_000)
        let original = try ReprojectionTests.lonLat(ReprojectionTests.utm17ESRI, 741_600, 3_737_000)
        #expect(abs(again.lon - original.lon) < 1e-9 && abs(again.lat - original.lat) < 1e-9)
    }
}
