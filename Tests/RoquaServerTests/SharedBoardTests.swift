import Foundation
import Logging
import RoquaRegions
import RoquaTestSupport
import Testing

@testable import RoquaServer

/// `/api/profile` and `/api/achievements`, asked together by the page, share one evaluation of the
/// achievement board; a change of the store evaluates it again.
@Suite struct SharedBoardTests {
    @Test func routesAskingTogetherShareOneEvaluation() async throws {
        let directory = try TempDirectory("roqua-shared-board")
        let leaflet = try directory.subdirectory("leaflet")
        try "/* leaflet */".write(toFile: leaflet + "/leaflet.js", atomically: true, encoding: .utf8)
        try ".leaflet-container {}".write(toFile: leaflet + "/leaflet.css", atomically: true, encoding: .utf8)
        let options = try ServerOptions(
            listen: ListenAddress(host: "127.0.0.1", port: 0), boundaries: Bundled.path(),
            store: directory.file("regions.sqlite"), token: nil, maxUploadMegabytes: 10,
            leaflet: leaflet, allowHosts: [])
        let state = try ServerState(options: options, logger: Logger(label: "test"))
        func insert(_ latitude: Double) throws {
            try state.store.write { db in
                try VisitedRegion(
                    latitude: latitude, longitude: 29.0, radius: 150, timestampStart: Date(timeIntervalSince1970: 1.7e9),
                    province: "İstanbul", country: "Türkiye", countryCode: "TR", provinceCode: "TR-34", geohash: "sxk9byz"
                )
                .insert(db)
            }
        }
        try insert(41.0)
        async let first = state.boards.board(state)
        async let second = state.boards.board(state)
        async let third = state.boards.board(state)
        let boards = try await [first, second, third]
        #expect(state.boards.evaluations == 1)
        #expect(Set(boards.map { $0.unlocks.map(\.id) }).count == 1 && !boards[0].statuses.isEmpty)
        _ = try await state.boards.board(state)
        #expect(state.boards.evaluations == 1)  // the same store, within the minute
        try insert(41.1)
        _ = try await state.boards.board(state)
        #expect(state.boards.evaluations == 2)  // the store changed
    }
}
