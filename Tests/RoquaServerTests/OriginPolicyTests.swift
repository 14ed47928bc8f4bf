import RoquaServeInput
import Testing

/// The `Host` / `Origin` rules on their own, including what no HTTP client should send but a
/// hostile one might (the fuzzer found the NUL case).
@Suite struct OriginPolicyTests {
    let policy = OriginPolicy(listenHost: "127.0.0.1", port: 8080, allowedNames: ["Roqua.Example"], csrfToken: "t")

    @Test func hosts() {
        for host in [
            "127.0.0.1:8080", "localhost:8080", "LOCALHOST:8080", "[::1]:8080", "127.9.9.9:8080", "roqua.example", "roqua.example:443",
        ] {
            #expect(policy.allowsHost(host), "\(host)")
        }
        for host in [
            "[::1\u{0}\u{1}]:8080", "127.0.0.1\u{0}.evil.example:8080", "localhost\u{0}:8080", "127.0.0.1 :8080", "127.0.0.1:8080 ",
            "évil.example:8080", "127.0.0.1:+8080", "127.0.0.1:08080x", "[::1", "[::1]x:8080", "[::ffff:7f00:1]:8080x", ":8080",
            "user@127.0.0.1:8080", "127.0.0.1:8080/x", "0.0.0.0:8080", "10.0.0.1:8080", "evil.example:8080",
        ] {
            #expect(!policy.allowsHost(host), "\(host.debugDescription)")
        }
    }

    @Test func origins() {
        #expect(policy.refusesWrite(origin: "http://127.0.0.1:8080", referer: nil, authority: "127.0.0.1:8080", token: "t") == nil)
        #expect(policy.refusesWrite(origin: nil, referer: "http://localhost:8080/x?y", authority: "localhost:8080", token: "t") == nil)
        #expect(policy.refusesWrite(origin: "https://roqua.example", referer: nil, authority: "roqua.example", token: "t") == nil)
        for origin in [
            "http://127.0.0.1:8081", "http://localhost:8080", "null", "file://", "http://127.0.0.1:8080\u{0}", "ftp://127.0.0.1:8080",
            "http://127.0.0.1:8080@evil.example", "http://evil.example",
        ] {
            #expect(
                policy.refusesWrite(origin: origin, referer: nil, authority: "127.0.0.1:8080", token: "t") != nil,
                "\(origin.debugDescription)")
        }
        #expect(policy.refusesWrite(origin: "http://127.0.0.1:8080", referer: nil, authority: "127.0.0.1:8080", token: "T") != nil)
        #expect(policy.refusesWrite(origin: "http://127.0.0.1:8080", referer: nil, authority: "127.0.0.1:8080", token: nil) != nil)
    }
}
