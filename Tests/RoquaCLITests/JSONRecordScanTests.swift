import Foundation
import RoquaBatch
import RoquaBoundaries
import Testing

/// NDJSON rows and GeoJSON features are read by an allocation-free fast path that gives up on
/// anything unusual; whenever it answers, the answer (point, error, kept properties) must be
/// the full parse's, byte for byte.
@Suite struct JSONRecordScanTests {
    static let plainRows = [
        #"{"lat":41.0054000,"lon":28.9768000,"id":0}"#,
        #"  {"latitude": "41.1" , "lng":29,"lat":40.5}  "#,
        #"{"lat":1,"lon":2,"x":[1,{"a":null}],"y":"text ] } \" \/ \u00e7"}"#,
        #"{"lon":-180,"lat":-90}"#,
        #"{"lat":95,"lon":1}"#,  // out of range: the same error both ways
        #"{"lat":" 41.5 ","lon":"29"}"#,
        #"{"lat":41,"lon":29,"lat":42}"#,  // repeated: the last one
    ]

    static let unusualRows = [
        #"{"lat":"4\u0031","lon":29}"#, #"{"l\u0061t":41,"lon":29}"#, #"{"lat":true,"lon":29}"#, #"{"lat":41}"#,
        #"{"lat":41,"lon":29,}"#, #"{"lat":41 "lon":29}"#, #"[41,29]"#, #"{"lat":41,"lon":29} x"#, #"{"lat":0x10,"lon":1}"#,
        #"{"lat":41,"lon":29,"x":[1,]}"#, #"{"lat":41,"lon":29,"x":tru}"#, "{\"lat\":41,\"lon\":29,\"s\":\"a\u{01}b\"}",
        #"{"lat":"north","lon":29}"#, #"{"lat":41,"lon":29,"n":"#, "", "{}", #"{"lat":1e400,"lon":2}"#,
        #"{"lat":41,"lon":29,"s":"\q"}"#, #"{"lat":41,"lon":29,"s":"\u12"}"#, #"{"lat":41,"lon":29,"s":"\ud83d\ude00"}"#,
        "{\"lat\":41,\"lon\":29,\"deep\":" + String(repeating: "[", count: 100) + String(repeating: "]", count: 100) + "}",
    ]

    @Test func ndjsonRowsAgreeWithTheFullParse() throws {
        for row in Self.plainRows {
            let (fast, full) = BatchRowParser.ndjsonBothWays(Array(row.utf8))
            #expect(fast != nil, "the fast path should read \(row)")
            #expect(fast == full, "\(row)")
        }
        for row in Self.unusualRows {
            let (fast, full) = BatchRowParser.ndjsonBothWays(Array(row.utf8))
            if let fast { #expect(fast == full, "\(row)") }
        }
        // Invalid UTF-8 in a string it skips.
        let (fast, full) = BatchRowParser.ndjsonBothWays(Array(#"{"lat":41,"lon":29,"s":""#.utf8) + [0xFF, 0x22, 0x7D])
        if let fast { #expect(fast == full) }
        // "lat" is 42 at the end: the fast path took the last of the repeated keys.
        #expect(BatchRowParser.ndjsonBothWays(Array(Self.plainRows[6].utf8)).fast?.hasPrefix("\(42.0.bitPattern),") == true)
    }

    static func feature(properties: String, geometry: String = #"{"type":"Point","coordinates":[28.9768,41.0054]}"#) -> String {
        #"{"type":"Feature","properties":\#(properties),"geometry":\#(geometry)}"#
    }

    @Test func featuresAgreeWithTheFullParseAndKeepTheirProperties() throws {
        let canonical = [
            #"{"id":0}"#, #"{"name":"Kadıköy","tags":[1,2.5,-3,true,null,{}],"n":{"a":[]}}"#, "{}", "null",
            #"{"a":1,"a":2}"#, #""not an object""#, "[1,2]",
        ]
        let rewritten = [
            #"{ "id": 0 }"#, #"{"x":1.50}"#, #"{"x":1e3}"#, #"{"x":-0}"#, #"{"x":007}"#, #"{"x":1E-7}"#,
            #"{"x":"a\"b"}"#, #"{"x":"\u00e7\/"}"#, #"{"x":[ 1,2]}"#, #"{"x":1000000000000000}"#, "{\n\"x\":1}",
        ]
        for properties in canonical + rewritten {
            let text = Self.feature(properties: properties)
            let (fast, full) = BatchChunk.featureBothWays(Array(text.utf8))
            #expect(full != nil, "\(text)")
            #expect(fast != nil, "the fast path should read \(text)")
            #expect(fast == full, "\(text)")
        }
        // As written, or as jsonText rewrites it.
        #expect(
            BatchChunk.featureBothWays(Array(Self.feature(properties: #"{ "x" : 1.50, "y":1e3 }"#).utf8)).fast?
                .hasSuffix(#" | "x":1.5,"y":1000,"#) == true)
        #expect(
            BatchChunk.featureBothWays(Array(Self.feature(properties: #"{"name":"Kadıköy"}"#).utf8)).fast?
                .hasSuffix(#" | "name":"Kadıköy","#) == true)

        let geometries = [
            #"{"coordinates":[28.97,41.0,12],"type":"Point"}"#, #"{"type":"LineString","coordinates":[[0,0],[1,1]]}"#,
            #"{"type":"Point","coordinates":[28.97]}"#, #"{"type":"Point","coordinates":["28.97",41]}"#,
            #"{"type":"Point","coordinates":[]}"#, "null", #"{"type":"Po\u0069nt","coordinates":[1,2]}"#,
            #"{"type":"Point","type":"Line","coordinates":[1,2]}"#, #"{"type":"Point","coordinates":[1,2],"coordinates":[3,4]}"#,
            #"{"type":"Point","coordinates":[200,2]}"#,
        ]
        for geometry in geometries {
            let text = Self.feature(properties: #"{"id":1}"#, geometry: geometry)
            let (fast, full) = BatchChunk.featureBothWays(Array(text.utf8))
            if let fast { #expect(fast == full, "\(text)") }
        }
        #expect(BatchChunk.featureBothWays(Array(Self.feature(properties: "{}", geometry: geometries[0]).utf8)).fast != nil)
    }

    /// Seeded random records: members drawn from a pool (numbers in every form, escapes,
    /// repeated keys, nested values, points and not), then one time in three broken by a
    /// random token put in or a byte taken out. Every answer of the fast path is the full parse's.
    @Test func randomRecordsAgree() throws {
        var seed: UInt64 = 0x5EED_2026_1123
        func next(_ n: Int) -> Int {
            seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((seed >> 33) % UInt64(n))
        }
        let members = [
            #""lat":41.5"#, #""lon":-29"#, #""latitude":"41.1""#, #""lng":29"#, #""longitude":1e1"#, #""lat":" 7 ""#,
            #""x":[1,{"a":null}]"#, #""s":"a\"b\/\u00e7""#, #""u":"\ud83d\ude00""#, #""type":"Feature""#,
            #""geometry":{"type":"Point","coordinates":[28.9,41.0]}"#, #""geometry":{"coordinates":[1,2,3],"type":"Point"}"#,
            #""geometry":{"type":"LineString","coordinates":[[1,2]]}"#, #""properties":{"id":1,"n":"ç"}"#,
            #""properties":null"#, #""properties":{ "sp" : 1.50 }"#, #""properties":{"e":1e3,"z":-0,"k":007}"#,
            #""properties":[1]"#, #""coordinates":[1,2]"#, #""lat":true"#, #""d":-0"#, #""big":123456789012345678"#,
            #""l\u0061t":5"#, #""lat":95"#, #""w":"\q""#,
        ]
        let breakers = ["{", "}", "[", "]", ",", ":", " ", "\"", "\\", "\u{01}", "\n", "tru", "1.", "-", #""\u12""#]
        var answered = 0
        for _ in 0..<20_000 {
            let separator = next(5) == 0 ? " , " : ","
            var text = "{" + (0..<next(7)).map { _ in members[next(members.count)] }.joined(separator: separator) + "}"
            if next(3) == 0 {
                var scalars = Array(text.unicodeScalars)
                let at = next(scalars.count + 1)
                if next(2) == 0, at < scalars.count {
                    scalars.remove(at: at)
                } else {
                    scalars.insert(contentsOf: breakers[next(breakers.count)].unicodeScalars, at: at)
                }
                text = String(String.UnicodeScalarView(scalars))
            }
            let bytes = Array(text.utf8)
            let row = BatchRowParser.ndjsonBothWays(bytes)
            if let fast = row.fast {
                answered += 1
                #expect(fast == row.full, "\(text)")
            }
            let feature = BatchChunk.featureBothWays(bytes)
            if let fast = feature.fast {
                answered += 1
                #expect(fast == feature.full, "\(text)")
            }
        }
        #expect(answered > 2_000, "the fast path answered only \(answered) random records")
    }
}
