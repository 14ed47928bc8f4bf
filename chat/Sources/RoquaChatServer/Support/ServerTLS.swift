import Foundation
import NIOSSL

/// The server's TLS from PEM files (swift-nio-ssl): its certificate chain and its private key,
/// which must be readable by its owner only (0600 or stricter), like every key Roqua keeps.
package enum ServerTLS {
    /// Why the files cannot be used, naming the file.
    package struct Failure: Error, CustomStringConvertible {
        package let description: String
    }

    /// - Throws: `Failure` naming the file: unreadable, not PEM, a key others may read.
    package static func configuration(certificate: String, key: String) throws -> TLSConfiguration {
        var info = stat()
        guard stat(key, &info) == 0 else {
            throw Failure(description: "\(key): cannot read the TLS key: \(String(cString: strerror(errno)))")
        }
        guard info.st_mode & S_IFMT == S_IFREG else { throw Failure(description: "\(key): the TLS key is not a regular file") }
        guard info.st_mode & 0o077 == 0 else {
            throw Failure(
                description: "\(key): the TLS key is readable by others (mode \(String(info.st_mode & 0o777, radix: 8))); chmod 600 it")
        }
        let chain: [NIOSSLCertificate]
        do { chain = try NIOSSLCertificate.fromPEMFile(certificate) } catch {
            throw Failure(description: "\(certificate): not a PEM certificate chain (\(error))")
        }
        guard !chain.isEmpty else { throw Failure(description: "\(certificate): no certificate in it") }
        let privateKey: NIOSSLPrivateKey
        do { privateKey = try NIOSSLPrivateKey(file: key, format: .pem) } catch {
            throw Failure(description: "\(key): not a PEM private key (\(error))")
        }
        var configuration = TLSConfiguration.makeServerConfiguration(
            certificateChain: chain.map { .certificate($0) },
            privateKey: .privateKey(privateKey))
        configuration.minimumTLSVersion = .tlsv12
        return configuration
    }
}
