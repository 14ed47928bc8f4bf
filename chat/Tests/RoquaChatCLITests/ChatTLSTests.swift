import Crypto
import Foundation
import RoquaTestKit
import SwiftASN1
import Testing
import X509

/// `roqua-chat-server --tls-cert --tls-key` serves HTTPS; a client trusts it through the system's
/// store or `auth request --ca-cert` (a private CA), and nothing else.
@Suite struct ChatTLSTests {
    /// A throwaway CA and a certificate for 127.0.0.1 it signed, as PEM files in `directory`.
    static func certificates(in directory: TempDirectory) throws -> (ca: String, certificate: String, key: String) {
        let now = Date()
        let caKey = P256.Signing.PrivateKey()
        let caName = try DistinguishedName { CommonName("Roqua test CA") }
        let ca = try Certificate(
            version: .v3, serialNumber: .init(), publicKey: .init(caKey.publicKey),
            notValidBefore: now - 3600, notValidAfter: now + 3600, issuer: caName, subject: caName,
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.isCertificateAuthority(maxPathLength: nil))
                Critical(KeyUsage(keyCertSign: true))
            },
            issuerPrivateKey: .init(caKey))
        let serverKey = P256.Signing.PrivateKey()
        let server = try Certificate(
            version: .v3, serialNumber: .init(), publicKey: .init(serverKey.publicKey),
            notValidBefore: now - 3600, notValidAfter: now + 3600, issuer: caName,
            subject: try DistinguishedName { CommonName("127.0.0.1") },
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.notCertificateAuthority)
                try ExtendedKeyUsage([.serverAuth])
                SubjectAlternativeNames([.ipAddress(ASN1OctetString(contentBytes: [127, 0, 0, 1]))])
            },
            issuerPrivateKey: .init(caKey))
        let paths = (ca: directory.file("ca.pem"), certificate: directory.file("server.pem"), key: directory.file("server.key"))
        try ca.serializeAsPEM().pemString.write(toFile: paths.ca, atomically: true, encoding: .utf8)
        try server.serializeAsPEM().pemString.write(toFile: paths.certificate, atomically: true, encoding: .utf8)
        guard
            FileManager.default.createFile(
                atPath: paths.key, contents: Data(serverKey.pemRepresentation.utf8),
                attributes: [.posixPermissions: 0o600])
        else { throw CocoaError(.fileWriteUnknown) }
        return paths
    }

    @Test func httpsServesATrustedClientAndRefusesTheRest() throws {
        let fixture = try ChatCLIFixture()
        let files = try Self.certificates(in: fixture.directory)
        try fixture.startServer(tls: (files.certificate, files.key))
        #expect(fixture.url.hasPrefix("https://127.0.0.1:"))
        let phone = "+905553330000"
        // Trusting the private CA: signed in, and every later verb reaches the server over TLS.
        try fixture.ok("guide", ["auth", "request", "--server", fixture.url, "--phone", phone, "--ca-cert", files.ca])
        let verified = try fixture.ok("guide", ["auth", "verify", "--code", try fixture.lastCode(for: phone)])
        #expect(verified.contains("signed in as \(phone)"), "\(verified)")
        try fixture.ok("guide", ["sync"])
        // Without it, the server's certificate is not trusted: nothing is sent.
        let untrusted = try fixture.run("other", ["auth", "request", "--server", fixture.url, "--phone", "+905553330001"])
        #expect(untrusted.status != 0 && untrusted.stderr.contains("TLS certificate is not trusted here"), "\(untrusted.stderr)")
        // Plain HTTP to the TLS port gets no answer.
        let plain = try fixture.run(
            "other", ["auth", "request", "--server", "http://127.0.0.1:\(fixture.port)", "--phone", "+905553330001"])
        #expect(plain.status != 0, "\(plain.stdout)")
        // A file that is no certificate is named.
        let notPEM = try fixture.run(
            "other", ["auth", "request", "--server", fixture.url, "--phone", "+905553330001", "--ca-cert", files.key])
        #expect(
            notPEM.status != 0 && notPEM.stderr.contains("server.key") && notPEM.stderr.contains("no PEM certificate"), "\(notPEM.stderr)")
    }

    @Test func aTLSKeyOthersCanReadIsRefused() throws {
        let directory = try TempDirectory("roqua-chat-tls")
        let files = try Self.certificates(in: directory)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: files.key)
        let result = try CommandRunner.run(
            ProductsDirectory.product("roqua-chat-server"),
            [
                "--db", directory.file("s.sqlite"), "--sms-outbox", directory.file("o.jsonl"), "--listen", "127.0.0.1:0",
                "--tls-cert", files.certificate, "--tls-key", files.key,
            ])
        #expect(result.status != 0 && result.stderr.contains("server.key") && result.stderr.contains("chmod 600"), "\(result.stderr)")
        let alone = try CommandRunner.run(
            ProductsDirectory.product("roqua-chat-server"),
            [
                "--db", directory.file("s.sqlite"), "--sms-outbox", directory.file("o.jsonl"), "--tls-cert", files.certificate,
            ])
        #expect(alone.status != 0 && alone.stderr.contains("--tls-cert and --tls-key go together"), "\(alone.stderr)")
    }
}
