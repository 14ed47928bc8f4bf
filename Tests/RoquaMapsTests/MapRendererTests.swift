import Foundation
import RoquaBoundaries
import RoquaMaps
import RoquaProgress
import RoquaRegions
import RoquaTestSupport
import Testing

/// Maps drawn from the real bundled boundaries with the fixture's visits.
@Suite struct MapRendererTests {
    @Test func istanbulHasOneShapePerDistrictWithTheVisitedMarked() throws {
        let map = try MapFixtures.renderer().render(
            unit: "istanbul", regions: try MapFixtures.regions(),
            options: MapOptions(timeZone: TimeZone(identifier: "UTC")!))
        let document = try #require(SVGDocument.parse(map.svg), "the SVG is not well-formed XML")
        #expect(document.elements.first?.name == "svg")
        let units = document.units
        #expect(units.count == 39)
        #expect(Set(units.compactMap { $0.attributes["data-code"] }).count == 39)
        #expect(units.allSatisfy { $0.classes.contains("unit") && !($0.attributes["d"] ?? "").isEmpty })
        let visited = Set(units.filter { $0.classes.contains("visited") }.compactMap { $0.attributes["data-code"] })
        #expect(visited == MapFixtures.visitedIstanbulDistricts)
        #expect(units.filter { $0.classes.contains("unvisited") }.count == 31)
        #expect(map.visited == 8 && map.total == 39)
        // Visited districts are labelled, and nothing else is.
        let labels = document.elements.filter { $0.name == "text" && $0.classes.contains("label") }
        #expect(labels.count == 8)
        #expect(map.svg.contains(">Kadıköy</text>") && map.svg.contains(">Üsküdar</text>"))
        #expect(!map.svg.contains(">Adalar</text>"))
        // A legend with x/N and the date range; a title; the CSS classes.
        #expect(map.svg.contains("Visited 8/39 districts"))
        #expect(map.svg.contains("Visits 1 May 2024 – 9 May 2024"))  // the 9 İstanbul regions, a day apart
        #expect(map.svg.contains(#"<text class="title" x="16" y="30">İstanbul</text>"#))
        for css in [".unit{", ".visited{", ".unvisited{", ".label{", ".fog{", ".legend{"] { #expect(map.svg.contains(css)) }
        #expect(document.fogCircles.isEmpty)  // no fog unless asked
    }

    @Test func fogHasOneLitCirclePerRegionInThePicture() throws {
        let regions = try MapFixtures.regions()
        let map = try MapFixtures.renderer().render(unit: "TR-34", regions: regions, options: MapOptions(fog: true))
        let document = try #require(SVGDocument.parse(map.svg))
        let circles = document.fogCircles
        #expect(circles.count == MapFixtures.istanbulRegions)  // Ankara and Athens lie outside the picture
        #expect(map.fogCircles == circles.count)
        // The mask: a white rectangle with black circles, used by one dark .fog rectangle.
        let mask = try #require(document.elements.first { $0.name == "mask" })
        #expect(document.elements.contains { $0.name == "rect" && $0.groups.contains("fog") && $0.attributes["fill"] == "white" })
        #expect(circles.allSatisfy { $0.attributes["fill"] == "black" })
        let fog = try #require(document.elements.first { $0.name == "rect" && $0.classes.contains("fog") && $0.groups.contains("fog") })
        #expect(fog.attributes["mask"] == "url(#\(mask.attributes["id"] ?? ""))")
        // True radius: 1500 m at Kadıköy's latitude, in pixels.
        let kadikoy = regions[5]
        let expected = Double(kadikoy.radius) * map.projection.pixelsPerMetre(atLatitude: kadikoy.latitude)
        let p = map.projection.point(longitude: kadikoy.longitude, latitude: kadikoy.latitude)
        let circle = try #require(
            circles.first {
                abs(Double($0.attributes["cx"] ?? "")! - p.x) < 0.06 && abs(Double($0.attributes["cy"] ?? "")! - p.y - map.mapTop) < 0.06
            })
        #expect(abs(Double(circle.attributes["r"] ?? "")! - expected) < 0.06)
        #expect(expected > 5)  // visible at 1200 px
        // On the world map every region is lit: inside a drawn circle, though regions closer than a
        // quarter pixel share one.
        let world = try MapFixtures.renderer().render(unit: "world", regions: regions, options: MapOptions(fog: true))
        let dots = try #require(SVGDocument.parse(world.svg)).fogCircles.map {
            (x: Double($0.attributes["cx"] ?? "")!, y: Double($0.attributes["cy"] ?? "")!, r: Double($0.attributes["r"] ?? "")!)
        }
        #expect(world.fogCircles == regions.count && dots.count < regions.count && !dots.isEmpty)
        for region in regions {
            let p = world.projection.point(longitude: region.longitude, latitude: region.latitude)
            #expect(dots.contains { hypot($0.x - p.x, $0.y - p.y - world.mapTop) <= $0.r / 4 }, "\(region.id ?? -1) is not lit")
        }
    }

    /// A million regions on a walk make a few thousand circles on the world map, each region within
    /// a quarter pixel of one.
    @Test func regionsSmallerThanAPixelShareCircles() throws {
        var regions: [VisitedRegion] = []
        var latitude = 41.0, longitude = 29.0
        for i in 0..<20_000 {
            latitude += i % 7 == 0 ? 0.002 : -0.0007
            longitude += 0.0021
            regions.append(
                VisitedRegion(
                    latitude: latitude, longitude: longitude, radius: 150, timestampStart: Date(timeIntervalSince1970: 1e9),
                    geohash: "sxk9byz"))
        }
        let world = try MapFixtures.renderer().render(unit: "world", regions: regions, options: MapOptions(fog: true))
        let dots = try #require(SVGDocument.parse(world.svg)).fogCircles
        #expect(world.fogCircles == regions.count && dots.count > 100 && dots.count < 2_000, "\(dots.count)")
        // Close up (Istanbul's provinces), the same regions are circles of their own.
        let close = try MapFixtures.renderer().render(unit: "TR-34", regions: Array(regions.prefix(200)), options: MapOptions(fog: true))
        #expect(try #require(SVGDocument.parse(close.svg)).fogCircles.count == close.fogCircles)
    }

    @Test func istanbulMapIsSmallAndCoordinatesAreRounded() throws {
        let map = try MapFixtures.renderer().render(unit: "TR-34", regions: try MapFixtures.regions(), options: MapOptions(fog: true))
        #expect(map.svg.utf8.count < 1_000_000)
        // Every number in an attribute has at most one decimal.
        #expect(map.svg.range(of: #"="[^"]*[0-9]\.[0-9]{2}"#, options: .regularExpression) == nil)
        #expect(map.svg.contains(#" d="M"#))
    }

    @Test func turkiyeProvincesAndDistricts() throws {
        let renderer = try MapFixtures.renderer()
        let regions = try MapFixtures.regions()
        let provinces = try renderer.render(unit: "Türkiye", regions: regions)
        let provinceShapes = try #require(SVGDocument.parse(provinces.svg)).units
        #expect(provinceShapes.count == 81)
        #expect(
            Set(provinceShapes.filter { $0.classes.contains("visited") }.compactMap { $0.attributes["data-code"] })
                == ["TR-34", "TR-06"])
        let districts = try renderer.render(
            unit: "TR", regions: regions,
            options: MapOptions(width: 1600, fog: true, level: .district))
        #expect(districts.svg.utf8.count < 2_000_000)
        let document = try #require(SVGDocument.parse(districts.svg))
        #expect(document.units.count == 973)
        #expect(document.units.filter { $0.classes.contains("visited") }.count == 9)  // 8 in İstanbul, Çankaya
        #expect(districts.svg.contains("Visited 9/973 districts"))
        #expect(document.fogCircles.count == 10)  // all but Athens
    }

    @Test func worldHasEveryCountry() throws {
        let database = try Bundled.database()
        let countries = try BoundaryHierarchy(database: database).units.values.filter { $0.level == .country }.count
        let map = try MapFixtures.renderer().render(unit: "world", regions: try MapFixtures.regions())
        let units = try #require(SVGDocument.parse(map.svg)).units
        #expect(units.count == countries)
        #expect(Set(units.filter { $0.classes.contains("visited") }.compactMap { $0.attributes["data-code"] }) == ["TR", "GR"])
        #expect(map.svg.contains("Visited 2/\(countries) countries"))
    }

    @Test func unknownUnitsGetSuggestionsAndDistrictsHaveNoChildren() throws {
        let renderer = try MapFixtures.renderer()
        #expect {
            _ = try renderer.render(unit: "Istanbull", regions: [])
        } throws: { error in
            guard case let .unknown(_, suggestions)? = error as? BoundaryHierarchy.LookupError else { return false }
            return suggestions.first == "İstanbul (TR-34)"
        }
        #expect(throws: MapError.levelAbove(name: "İstanbul", code: "TR-34", unitLevel: "province", level: "country")) {
            try renderer.render(unit: "TR-34", regions: [], options: MapOptions(level: .country))
        }
        #expect(throws: MapError.nothingAtLevel(name: "Greece", code: "GR", level: "district", deepest: "province")) {
            try renderer.render(unit: "GR", regions: [], options: MapOptions(level: .district))
        }
    }

    /// A district has nothing below it: it is drawn alone (as it is when asked at its own level),
    /// the walk through it lit — the map the old advice pointed at but never drew.
    @Test func aDistrictIsDrawnAlone() throws {
        let renderer = try MapFixtures.renderer()
        let walk = try MapFixtures.regions().filter { $0.districtCode == "TUR034023" }
        for level in [nil, AdminLevel.district] {
            let map = try renderer.render(unit: "Kadıköy", regions: walk, options: MapOptions(fog: true, level: level))
            #expect(map.scope.children == ["TUR034023"] && map.visited == 1 && map.total == 1)
            let document = try #require(SVGDocument.parse(map.svg))
            #expect(document.units.count == 1 && document.units[0].classes.contains("visited"))
            #expect(document.fogCircles.count == 2)
        }
        let province = try renderer.render(unit: "TR-34", regions: [], options: MapOptions(level: .province))
        #expect(province.scope.children == ["TR-34"])
    }

    /// Under fog the legend shows each state as the map paints it (a visited unit under the fog is
    /// not the plain visited colour), and a walk stays visible on a country's map.
    @Test func fogLegendMatchesTheMapAndWalksStayVisible() throws {
        let map = try MapFixtures.renderer().render(unit: "TR", regions: try MapFixtures.regions(), options: MapOptions(fog: true))
        let document = try #require(SVGDocument.parse(map.svg))
        let legend = document.elements.filter { $0.groups.contains("legend") && $0.name == "rect" }
        func fogged(_ state: String) -> [Bool] {
            legend.enumerated().filter { $0.element.classes.contains(state) }.map { i, swatch in
                legend.indices.contains(i + 1) && legend[i + 1].classes == ["fog"]
                    && legend[i + 1].attributes["x"] == swatch.attributes["x"]
            }
        }
        #expect(fogged("visited") == [false, true])  // lit, then visited but unexplored
        #expect(fogged("unvisited") == [true])
        let radii = document.fogCircles.compactMap { $0.attributes["r"].flatMap(Double.init) }
        #expect(!radii.isEmpty && radii.allSatisfy { $0 >= MapRenderer.minimumLitRadius })
        #expect(map.svg.contains("regions lit"))
    }

    @Test func noVisitsStillDrawsTheMap() throws {
        let map = try MapFixtures.renderer().render(unit: "TR-34", regions: [], options: MapOptions(fog: true))
        let document = try #require(SVGDocument.parse(map.svg))
        #expect(document.units.count == 39 && document.units.allSatisfy { $0.classes.contains("unvisited") })
        #expect(document.fogCircles.isEmpty)
        #expect(map.svg.contains("Visited 0/39 districts") && map.svg.contains("No visits here yet"))
    }

    @Test func pngPathAndMissingConverter() throws {
        #expect(PNGConverter.pngPath(for: "/tmp/a/istanbul.svg") == "/tmp/a/istanbul.png")
        #expect(PNGConverter.pngPath(for: "map") == "map.png")
        #expect(throws: PNGConversionError.converterMissing) {
            try PNGConverter.convert(svg: "/nonexistent.svg", to: "/nonexistent.png", environment: ["PATH": "/nonexistent"])
        }
        #expect(PNGConversionError.converterMissing.description.contains("librsvg2-bin"))
    }
}

/// Visited localities on the maps: a dot and the place's name below the world's scale.
@Suite struct MapLocalityTests {
    @Test func visitedTownsAreDottedAndNamedOnCountryMapsNotOnTheWorld() throws {
        let regions = try MapFixtures.regions()
        let athens = try #require(regions.last?.locality, "the Athens fixture has a locality")
        let greece = try MapFixtures.renderer().render(unit: "GR", regions: regions)
        let document = try #require(SVGDocument.parse(greece.svg))
        let dots = document.elements.filter { $0.name == "circle" && $0.classes.contains("place") }
        #expect(dots.count == 1)
        let names = document.elements.filter { $0.name == "text" && $0.classes.contains("place-label") }
        #expect(names.count == 1 && greece.svg.contains(#">\#(athens)</text>"#))
        // The dot is where GeoNames puts the place, within the visited region's reach of it.
        let dot = try #require(dots.first)
        let p = greece.projection.point(longitude: regions.last!.longitude, latitude: regions.last!.latitude)
        let dx = Double(dot.attributes["cx"] ?? "")! - p.x, dy = Double(dot.attributes["cy"] ?? "")! - p.y - greece.mapTop
        #expect((dx * dx + dy * dy).squareRoot() < 10)
        let world = try MapFixtures.renderer().render(unit: "world", regions: regions)
        #expect(!world.svg.contains(#"class="place-label""#) && !world.svg.contains(#"<g id="localities">"#))
        // No visits, no places.
        #expect(!(try MapFixtures.renderer().render(unit: "GR", regions: []).svg.contains(#"<g id="localities">"#)))
    }
}
