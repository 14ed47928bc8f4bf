import Crypto
import Foundation
import RoquaChatCore
import Testing

@testable import RoquaChatServer

/// The server proves its key on a fresh nonce; the peer credential route is gone.
enum ServerIdentityScenarios {
    static var all: [Scenario] {
        [
            Scenario("server identity: a signature over the client's nonce by one stable key; no other nonce verifies; bad nonces 400") {
                h in
                let user = try await h.signIn("+905550000001")
                let challenge = ServerIdentityChallenge()
                let proof: ServerIdentityProof = try await user.post("/v1/server-identity", challenge).decode()
                let key = try #require(Data(base64Encoded: proof.serverKey))
                #expect(proof.verifies(nonce: try #require(challenge.bytes), trusted: key))
                #expect(!proof.verifies(nonce: try #require(ServerIdentityChallenge().bytes), trusted: key))
                let again: ServerIdentityProof = try await user.post("/v1/server-identity", ServerIdentityChallenge()).decode()
                #expect(again.serverKey == proof.serverKey)
                for nonce in ["", "c2hvcnQ=", String(repeating: "A", count: 200), "not base64!"] {
                    #expect(try await user.post("/v1/server-identity", ServerIdentityChallenge(nonce: nonce)).status == 400, "\(nonce)")
                }
                #expect(try await h.http.send(.POST, "/v1/server-identity", json: challenge).status == 401)
                // Peers never read the server-signed credential: the route is gone.
                #expect(try await user.get("/v1/peer-credential").status == 404)
            }
        ]
    }
}
