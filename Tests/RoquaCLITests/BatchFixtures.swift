/// Inputs and expected answers shared by the `ResolveBatch…Tests` suites; a suite gets them as
/// `Self.name` by conforming.
protocol BatchFixtures {}

extension BatchFixtures {
    static var resultHeader: String { "country_code,country,province_code,province,district_code,district,approximate" }
    static var kadikoy: String { "TR,Türkiye,TR-34,İstanbul,TUR034023,Kadıköy,false" }

    /// A quoted name with a comma, doubled quotes and Turkish letters, as written in the file.
    static var quotedName: String { "\"Kadıköy, rıhtım \"\"eski\"\"\"" }
    static var namedCSV: String {
        [
            "name,lat,lon",
            quotedName + ",40.9879,29.0281",
            "Çankaya,39.9208,32.8541",
            "\"Şişli, Mecidiyeköy\", 41.0602 ,28.9877",
            "Açık deniz,0.0,-30.0",
        ].joined(separator: "\n") + "\n"
    }

    static var badCSV: String {
        [
            "",  // 1 skipped
            "name,lat,lon",  // 2 header
            "kadikoy,40.9879,29.0281",  // 3
            "letters,abc,29.0",  // 4 bad: not a number
            "nan,NaN,29.0",  // 5 bad: NaN
            "",  // 6 skipped
            "   \t  ",  // 7 skipped
            "north,91,29.0",  // 8 bad: latitude 91
            "west,40.0,-181",  // 9 bad: longitude -181
            "short,40.0",  // 10 bad: 2 columns
            "long,40.0,29.0,extra",  // 11 bad: 4 columns
            "cankaya,39.9208,32.8541",  // 12
            "sea,0.0,-30.0",  // 13
            "konak,38.4237,27.1428",  // 14
            "",  // 15 skipped
        ].joined(separator: "\n") + "\n"
    }
    static var badRows: [Int] { [4, 5, 8, 9, 10, 11] }

    static var ndjson: String {
        [
            #"{"lat":40.9879,"lon":29.0281}"#,  // 1
            #"{"latitude":39.9208,"longitude":32.8541,"name":"Çankaya"}"#,  // 2
            #"{"lat":41.06,"lon":"#,  // 3 broken
            "",  // 4 skipped
            #"{"lat":0,"lon":-30}"#,  // 5 open sea
            #"{"lon":29.0070,"lat":41.0430}"#,  // 6, no final newline
        ].joined(separator: "\n")
    }

    static var geojson: String {
        """
        {
          "type": "FeatureCollection",
          "features": [
            {"type": "Feature", "properties": {"name": "Kadıköy iskelesi", "id": 7, "tags": ["a", "b"]},
             "geometry": {"type": "Point", "coordinates": [29.0281, 40.9879]}},
            {"type": "Feature", "properties": null, "geometry": {"type": "Point", "coordinates": [32.8541, 39.9208, 900]}},
            {"type": "Feature", "properties": {"name": "a road"},
             "geometry": {"type": "LineString", "coordinates": [[29.0, 41.0], [30.0, 41.0]]}},
            {"type": "Feature", "properties": {"name": "açık deniz", "depth": 4200.5},
             "geometry": {"type": "Point", "coordinates": [-30, 0]}}
          ]
        }

        """
    }
}
