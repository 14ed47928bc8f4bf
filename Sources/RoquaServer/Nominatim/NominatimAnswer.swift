import RoquaBoundaries
import RoquaServeInput

/// `/reverse`'s answer in the format asked for, with Nominatim's keys in Nominatim's order
/// (`OrderedJSONEncoder` keeps the order written here; geopy and other clients read these).
/// `NominatimFormatter` decides what goes in.
enum NominatimAnswer: OrderedJSON, Equatable {
    /// `format=json` and `jsonv2` (they differ in one key: `class` or `category`).
    case place(Place)
    /// `format=geojson`: a FeatureCollection of the place.
    case geoJSON(GeoJSON)
    /// `format=geocodejson`: the GeocodeJSON draft's FeatureCollection.
    case geocodeJSON(GeocodeJSON)
    /// `{"error":"Unable to geocode"}`: no level left for the point (open sea, or a zoom above every unit).
    case unableToGeocode

    /// What every format says of the place.
    struct Summary: Equatable {
        var placeID: UInt32
        var licence: String
        var rank: Int
        var addressType: String
        var name: String
        var displayName: String
        /// `address` (json, jsonv2, geojson) with `addressdetails=1`.
        var address: OrderedFields?
        /// The label point, degrees with seven decimals as Nominatim prints them.
        var latitude: String
        var longitude: String
    }

    struct Place: Encodable, Equatable {
        var summary: Summary
        /// `jsonv2` says `category` where `json` says `class`.
        var categoryKey: String
        /// South, north, west, east, as Nominatim's `boundingbox` strings.
        var boundingBox: [String]

        func encode(to encoder: any Encoder) throws {
            var object = encoder.container(keyedBy: JSONKey.self)
            try object.encode(summary.placeID, forKey: "place_id")
            try object.encode(summary.licence, forKey: "licence")
            try object.encode(summary.latitude, forKey: "lat")
            try object.encode(summary.longitude, forKey: "lon")
            try object.encode("boundary", forKey: JSONKey(categoryKey))
            try object.encode("administrative", forKey: "type")
            try object.encode(summary.rank, forKey: "place_rank")
            try object.encode(summary.addressType, forKey: "addresstype")
            try object.encode(summary.name, forKey: "name")
            try object.encode(summary.displayName, forKey: "display_name")
            try object.encodeIfPresent(summary.address, forKey: "address")
            try object.encode(boundingBox, forKey: "boundingbox")
        }
    }

    struct GeoJSON: Encodable, Equatable {
        var summary: Summary
        /// West, south, east, north.
        var bbox: [Double]

        func encode(to encoder: any Encoder) throws {
            var collection = encoder.container(keyedBy: JSONKey.self)
            try collection.encode("FeatureCollection", forKey: "type")
            try collection.encode(summary.licence, forKey: "licence")
            var features = collection.nestedUnkeyedContainer(forKey: "features")
            var feature = features.nestedContainer(keyedBy: JSONKey.self)
            try feature.encode("Feature", forKey: "type")
            var properties = feature.nestedContainer(keyedBy: JSONKey.self, forKey: "properties")
            try properties.encode(summary.placeID, forKey: "place_id")
            try properties.encode(summary.rank, forKey: "place_rank")
            try properties.encode("boundary", forKey: "category")
            try properties.encode("administrative", forKey: "type")
            try properties.encode(summary.addressType, forKey: "addresstype")
            try properties.encode(summary.name, forKey: "name")
            try properties.encode(summary.displayName, forKey: "display_name")
            try properties.encodeIfPresent(summary.address, forKey: "address")
            try feature.encode(bbox, forKey: "bbox")
            try feature.encode(PointGeometry(summary), forKey: "geometry")
        }
    }

    struct GeocodeJSON: Encodable, Equatable {
        var summary: Summary
        /// The query's point as written back (`"52.52,13.405"`).
        var query: String
        /// `geocodejson`'s type of the place's level (`country`, `state`, `county`).
        var type: String
        /// With `addressdetails=1`: `city`, `state`, `county`, `country`, `country_code`, in that order.
        var details: OrderedFields?
        /// With `addressdetails=1`: the names by OSM admin level (`level2`, `level4`, `level6`).
        var admin: OrderedFields?

        func encode(to encoder: any Encoder) throws {
            var collection = encoder.container(keyedBy: JSONKey.self)
            try collection.encode("FeatureCollection", forKey: "type")
            var geocoding = collection.nestedContainer(keyedBy: JSONKey.self, forKey: "geocoding")
            try geocoding.encode("0.1.0", forKey: "version")
            try geocoding.encode(summary.licence, forKey: "attribution")
            try geocoding.encode(summary.licence, forKey: "licence")
            try geocoding.encode(query, forKey: "query")
            var features = collection.nestedUnkeyedContainer(forKey: "features")
            var feature = features.nestedContainer(keyedBy: JSONKey.self)
            try feature.encode("Feature", forKey: "type")
            var properties = feature.nestedContainer(keyedBy: JSONKey.self, forKey: "properties")
            var place = properties.nestedContainer(keyedBy: JSONKey.self, forKey: "geocoding")
            try place.encode(summary.placeID, forKey: "place_id")
            try place.encode("boundary", forKey: "osm_key")
            try place.encode("administrative", forKey: "osm_value")
            try place.encode(type, forKey: "type")
            try place.encode(summary.displayName, forKey: "label")
            try place.encode(summary.name, forKey: "name")
            for (key, value) in details?.fields ?? [] { try place.encode(value, forKey: JSONKey(key)) }
            try place.encodeIfPresent(admin, forKey: "admin")
            try feature.encode(PointGeometry(summary), forKey: "geometry")
        }
    }

    /// `{"type":"Point","coordinates":[lon,lat]}` at the label point, seven decimals.
    struct PointGeometry: Encodable {
        var coordinates: [JSONNumber]
        var type = "Point"

        init(_ summary: Summary) {
            coordinates = [JSONNumber(text: summary.longitude), JSONNumber(text: summary.latitude)]
        }

        func encode(to encoder: any Encoder) throws {
            var object = encoder.container(keyedBy: JSONKey.self)
            try object.encode(type, forKey: "type")
            try object.encode(coordinates, forKey: "coordinates")
        }
    }

    func encode(to encoder: any Encoder) throws {
        switch self {
        case let .place(place): try place.encode(to: encoder)
        case let .geoJSON(geoJSON): try geoJSON.encode(to: encoder)
        case let .geocodeJSON(geocodeJSON): try geocodeJSON.encode(to: encoder)
        case .unableToGeocode:
            var object = encoder.container(keyedBy: JSONKey.self)
            try object.encode("Unable to geocode", forKey: "error")
        }
    }
}

/// Text fields whose keys depend on the place (Nominatim names an address's parts by country
/// and size), as an object in the order given.
struct OrderedFields: Encodable, Equatable {
    var fields: [(key: String, value: String)] = []

    mutating func append(_ key: String, _ value: String) {
        fields.append((key, value))
    }

    func encode(to encoder: any Encoder) throws {
        var object = encoder.container(keyedBy: JSONKey.self)
        for (key, value) in fields { try object.encode(value, forKey: JSONKey(key)) }
    }

    static func == (a: OrderedFields, b: OrderedFields) -> Bool {
        a.fields.elementsEqual(b.fields) { $0.key == $1.key && $0.value == $1.value }
    }
}
