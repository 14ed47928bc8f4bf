import Foundation
import RoquaTestSupport
import Testing

/// One server for the read-only tests of this process (its store stays empty).
enum SharedServer {
    static let started = Task { try await TestServer.start() }
    static func get() async throws -> TestServer { try await started.value }
}

@Suite struct NominatimTests {
    func address(_ object: [String: Any]) -> [String: String] { object["address"] as? [String: String] ?? [:] }

    @Test func kadikoyInNominatimsShape() async throws {
        let server = try await SharedServer.get()
        let reply = try await server.get("/reverse?lat=40.9879&lon=29.0281&format=json")
        #expect(reply.status == 200)
        #expect(reply.headers["content-type"]?.hasPrefix("application/json") == true)
        let object = try reply.object()
        #expect(
            address(object) == [
                "town": "Kadıköy", "province": "İstanbul", "ISO3166-2-lvl4": "TR-34",
                "country": "Türkiye", "country_code": "tr",
            ])
        #expect(object["display_name"] as? String == "Kadıköy, İstanbul, Türkiye")
        #expect(object["name"] as? String == "Kadıköy")
        #expect(object["addresstype"] as? String == "town")
        #expect(object["class"] as? String == "boundary" && object["type"] as? String == "administrative")
        #expect(object["place_id"] is Int && (object["licence"] as? String)?.contains("HGK") == true)
        let lat = Double(object["lat"] as? String ?? ""), lon = Double(object["lon"] as? String ?? "")
        #expect(lat.map { abs($0 - 40.98) < 0.1 } == true && lon.map { abs($0 - 29.06) < 0.15 } == true)
        let box = (object["boundingbox"] as? [String])?.compactMap(Double.init) ?? []
        #expect(box.count == 4 && box[0] < 40.9879 && box[1] > 40.9879 && box[2] < 29.0281 && box[3] > 29.0281)
        // The same unit, the same place_id, in every run and format.
        let again = try await server.get("/reverse?lat=40.99&lon=29.03&format=jsonv2").object()
        #expect(again["place_id"] as? Int == object["place_id"] as? Int)
        #expect(again["category"] as? String == "boundary" && again["class"] == nil)
    }

    /// At district zoom the answer names the locality as `roqua resolve` does (the same names,
    /// deepest first) and in the address by its size; the place answered stays the district.
    /// Coarser zooms leave it out. Cape Town (4.7 M people) is a `city`.
    @Test func theLocalityAsTheCLINamesIt() async throws {
        let server = try await SharedServer.get()
        let sultanahmet = try await server.get("/reverse?lat=41.0082&lon=28.9784&format=jsonv2").object()
        #expect(sultanahmet["display_name"] as? String == "Sultanahmet, Fatih, İstanbul, Türkiye")
        #expect(sultanahmet["name"] as? String == "Fatih" && sultanahmet["addresstype"] as? String == "town")
        let key = address(sultanahmet).first { $0.value == "Sultanahmet" }?.key
        #expect(key == "village" || key == "city", "\(address(sultanahmet))")
        #expect(address(sultanahmet)["town"] == "Fatih")
        let coarse = try await server.get("/reverse?lat=41.0082&lon=28.9784&zoom=7").object()
        #expect(coarse["display_name"] as? String == "İstanbul, Türkiye" && !address(coarse).values.contains("Sultanahmet"))
        // No district level in South Africa: the answer is the province, and the city still named.
        let cape = try await server.get("/reverse?lat=-33.9249&lon=18.4241").object()
        #expect(address(cape)["city"] == "Cape Town" && address(cape)["state"] == "Western Cape", "\(cape)")
        #expect(cape["display_name"] as? String == "Cape Town, Western Cape, South Africa" && cape["boundingbox"] != nil)
        let capeCoarse = try await server.get("/reverse?lat=-33.9249&lon=18.4241&zoom=7").object()
        #expect(address(capeCoarse)["city"] == nil)
        let geocode = try await server.get("/reverse?lat=41.0082&lon=28.9784&format=geocodejson").text
        #expect(geocode.contains("\"city\":\"Sultanahmet\""), "\(geocode)")
    }

    @Test func languageZoomAndAddressDetails() async throws {
        let server = try await SharedServer.get()
        let english = try await server.get("/reverse?lat=40.9879&lon=29.0281&accept-language=en").object()
        #expect(address(english)["province"] == "Istanbul")
        let header = try await server.get("/reverse?lat=40.9879&lon=29.0281", headers: ["Accept-Language": "en-GB,en;q=0.8"]).object()
        #expect(address(header)["province"] == "Istanbul")
        let province = try await server.get("/reverse?lat=40.9879&lon=29.0281&zoom=5").object()
        #expect(address(province)["town"] == nil && address(province)["province"] == "İstanbul")
        #expect(province["display_name"] as? String == "İstanbul, Türkiye" && province["addresstype"] as? String == "province")
        let country = try await server.get("/reverse?lat=40.9879&lon=29.0281&zoom=3").object()
        #expect(address(country) == ["country": "Türkiye", "country_code": "tr"])
        let bare = try await server.get("/reverse?lat=40.9879&lon=29.0281&addressdetails=0").object()
        #expect(bare["address"] == nil && bare["display_name"] as? String == "Kadıköy, İstanbul, Türkiye")
    }

    @Test func berlinIsAStateOfGermany() async throws {
        let server = try await SharedServer.get()
        let object = try await server.get("/reverse?lat=52.5200&lon=13.4050&format=json&accept-language=en").object()
        #expect(address(object)["state"] == "Berlin")
        #expect(address(object)["country_code"] == "de" && address(object)["country"] == "Germany")
        #expect(address(object)["town"] == nil && address(object)["province"] == nil)
        #expect((object["licence"] as? String)?.contains("Natural Earth") == true)
    }

    @Test func geoJSONAndGeocodeJSON() async throws {
        let server = try await SharedServer.get()
        let geo = try await server.get("/reverse?lat=40.9879&lon=29.0281&format=geojson")
        #expect(geo.headers["content-type"]?.hasPrefix("application/geo+json") == true)
        let collection = try geo.object()
        let feature = (collection["features"] as? [[String: Any]])?.first
        #expect(collection["type"] as? String == "FeatureCollection" && collection["licence"] is String)
        #expect((feature?["properties"] as? [String: Any])?["display_name"] as? String == "Kadıköy, İstanbul, Türkiye")
        #expect((feature?["geometry"] as? [String: Any])?["type"] as? String == "Point")
        #expect((feature?["bbox"] as? [Double])?.count == 4)
        let geocode = try await server.get("/reverse?lat=40.9879&lon=29.0281&format=geocodejson").object()
        #expect((geocode["geocoding"] as? [String: Any])?["version"] as? String == "0.1.0")
        let properties = ((geocode["features"] as? [[String: Any]])?.first?["properties"] as? [String: Any])?["geocoding"] as? [String: Any]
        #expect(properties?["label"] as? String == "Kadıköy, İstanbul, Türkiye")
        #expect(properties?["admin"] as? [String: String] == ["level2": "Türkiye", "level4": "İstanbul", "level6": "Kadıköy"])
        #expect(properties?["country_code"] as? String == "tr")
    }

    @Test func openSeaIsUnableToGeocode() async throws {
        let server = try await SharedServer.get()
        for format in ["json", "jsonv2", "geojson", "geocodejson"] {
            let reply = try await server.get("/reverse?lat=0&lon=-30&format=\(format)")
            #expect(reply.status == 200)
            #expect(reply.text == #"{"error":"Unable to geocode"}"#)
        }
    }

    @Test(arguments: [
        ("/reverse?lat=91&lon=0", "Invalid coordinates."),
        ("/reverse?lat=10&lon=180.5", "Invalid coordinates."),
        ("/reverse?lat=abc&lon=0", "Floating-point number expected for parameter 'lat'"),
        ("/reverse?lat=nan&lon=0", "Floating-point number expected for parameter 'lat'"),
        ("/reverse?lon=0", "Need coordinates or OSM object to lookup."),
        ("/reverse?lat=1&lon=1&format=xml", "Parameter 'format' must be one of: json, jsonv2, geojson, geocodejson (not \"xml\")"),
        ("/reverse?lat=1&lon=1&zoom=x", "Integer number expected for parameter 'zoom'"),
        ("/reverse?lat=%ZZ&lon=1", "malformed percent escape in the query string near \"%ZZ\""),
        ("/reverse?lat=%FF&lon=1", "the query string is not valid UTF-8"),
        ("/reverse?lat=1&lon=1&addressdetails=2", "Parameter 'addressdetails' must be 0 or 1"),
    ])
    func malformedQueriesAre400WithNominatimsErrorShape(target: String, message: String) async throws {
        let server = try await SharedServer.get()
        let reply = try await server.get(target)
        #expect(reply.status == 400)
        let error = try reply.object()["error"] as? [String: Any]
        #expect(error?["code"] as? Int == 400)
        #expect(error?["message"] as? String == message)
    }

    @Test func status() async throws {
        let server = try await SharedServer.get()
        let text = try await server.get("/status")
        #expect(text.status == 200 && text.text == "OK")
        let json = try await server.get("/status?format=json").object()
        #expect(json["status"] as? Int == 0 && json["message"] as? String == "OK" && json["data_updated"] is String)
    }
}
