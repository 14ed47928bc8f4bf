import RoquaBoundaries

/// `NominatimAnswer` written straight into the encoder's buffer: `/reverse` answers thousands of
/// requests a second, and the encoder's containers cost as much again as the text (2.0 µs per
/// answer written by hand, 2.8 µs through the containers). The same keys in the same order as
/// `encode(to:)`, which stays the reference: `NominatimAnswerTests` compares the two.
extension NominatimAnswer: JSONWrittenDirectly {
    func write(to writer: inout JSONWriter) throws {
        switch self {
        case let .place(place): place.write(to: &writer)
        case let .geoJSON(geoJSON): try geoJSON.write(to: &writer)
        case let .geocodeJSON(geocodeJSON): geocodeJSON.write(to: &writer)
        case .unableToGeocode:
            writer.raw("{")
            writer.key("error", first: true)
            writer.string("Unable to geocode")
            writer.raw("}")
        }
    }
}

extension NominatimAnswer.Place {
    func write(to writer: inout JSONWriter) {
        writer.raw("{")
        writer.key("place_id", first: true)
        writer.number(UInt64(summary.placeID))
        writer.key("licence")
        writer.string(summary.licence)
        writer.key("lat")
        writer.string(summary.latitude)
        writer.key("lon")
        writer.string(summary.longitude)
        writer.key(text: categoryKey)
        writer.string("boundary")
        writer.key("type")
        writer.string("administrative")
        writer.key("place_rank")
        writer.number(Int64(summary.rank))
        summary.writeNames(to: &writer)
        writer.key("boundingbox")
        writer.raw("[")
        for (i, edge) in boundingBox.enumerated() {
            if i > 0 { writer.raw(",") }
            writer.string(edge)
        }
        writer.raw("]}")
    }
}

extension NominatimAnswer.GeoJSON {
    func write(to writer: inout JSONWriter) throws {
        NominatimAnswer.writeCollectionStart(to: &writer)
        writer.key("licence")
        writer.string(summary.licence)
        NominatimAnswer.writeFeatureStart(to: &writer)
        writer.key("place_id", first: true)
        writer.number(UInt64(summary.placeID))
        writer.key("place_rank")
        writer.number(Int64(summary.rank))
        writer.key("category")
        writer.string("boundary")
        writer.key("type")
        writer.string("administrative")
        summary.writeNames(to: &writer)
        writer.raw("}")
        writer.key("bbox")
        writer.raw("[")
        for (i, edge) in bbox.enumerated() {
            if i > 0 { writer.raw(",") }
            try writer.number(edge)
        }
        writer.raw("]")
        summary.writeFeatureEnd(to: &writer)
    }
}

extension NominatimAnswer.GeocodeJSON {
    func write(to writer: inout JSONWriter) {
        NominatimAnswer.writeCollectionStart(to: &writer)
        writer.key("geocoding")
        writer.raw("{")
        writer.key("version", first: true)
        writer.string("0.1.0")
        writer.key("attribution")
        writer.string(summary.licence)
        writer.key("licence")
        writer.string(summary.licence)
        writer.key("query")
        writer.string(query)
        writer.raw("}")
        NominatimAnswer.writeFeatureStart(to: &writer)
        writer.key("geocoding", first: true)
        writer.raw("{")
        writer.key("place_id", first: true)
        writer.number(UInt64(summary.placeID))
        writer.key("osm_key")
        writer.string("boundary")
        writer.key("osm_value")
        writer.string("administrative")
        writer.key("type")
        writer.string(type)
        writer.key("label")
        writer.string(summary.displayName)
        writer.key("name")
        writer.string(summary.name)
        for (key, value) in details?.fields ?? [] {
            writer.key(text: key)
            writer.string(value)
        }
        if let admin {
            writer.key("admin")
            admin.write(to: &writer)
        }
        writer.raw("}}")
        summary.writeFeatureEnd(to: &writer)
    }
}

extension NominatimAnswer {
    /// `{"type":"FeatureCollection"`, the start of geojson and geocodejson.
    static func writeCollectionStart(to writer: inout JSONWriter) {
        writer.raw("{")
        writer.key("type", first: true)
        writer.string("FeatureCollection")
    }

    /// `,"features":[{"type":"Feature","properties":{`: the one feature and its properties.
    static func writeFeatureStart(to writer: inout JSONWriter) {
        writer.key("features")
        writer.raw("[{")
        writer.key("type", first: true)
        writer.string("Feature")
        writer.key("properties")
        writer.raw("{")
    }
}

extension NominatimAnswer.Summary {
    /// `,"geometry":{"type":"Point",…}}]}`: the feature's point, and the feature and the collection closed.
    func writeFeatureEnd(to writer: inout JSONWriter) {
        writer.key("geometry")
        NominatimAnswer.PointGeometry(self).write(to: &writer)
        writer.raw("}]}")
    }

    /// `,"addresstype":…,"name":…,"display_name":…` and the address when there is one.
    func writeNames(to writer: inout JSONWriter) {
        writer.key("addresstype")
        writer.string(addressType)
        writer.key("name")
        writer.string(name)
        writer.key("display_name")
        writer.string(displayName)
        if let address {
            writer.key("address")
            address.write(to: &writer)
        }
    }
}

extension NominatimAnswer.PointGeometry {
    func write(to writer: inout JSONWriter) {
        writer.raw("{")
        writer.key("type", first: true)
        writer.string(type)
        writer.key("coordinates")
        writer.raw("[")
        for (i, number) in coordinates.enumerated() {
            if i > 0 { writer.raw(",") }
            writer.raw(number: number.text)
        }
        writer.raw("]}")
    }
}

extension OrderedFields {
    func write(to writer: inout JSONWriter) {
        writer.raw("{")
        for (i, field) in fields.enumerated() {
            writer.key(text: field.key, first: i == 0)
            writer.string(field.value)
        }
        writer.raw("}")
    }
}
