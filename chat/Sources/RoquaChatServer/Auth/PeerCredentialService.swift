import Crypto
import Foundation
import RoquaChatCore

/// Issues peer credentials: the server's Ed25519 signature over a device's user, keys, groups
/// and role, which peers check offline. The signing key is derived from the server secret, so
/// every instance sharing the secret signs with the same key and restarts keep it.
package struct PeerCredentialService: EnvironmentService {
    package let environment: ServiceEnvironment
    let signingKey: Curve25519.Signing.PrivateKey

    package init(_ environment: ServiceEnvironment, secret: ServerSecret) {
        self.environment = environment
        // 32 derived bytes are a valid Ed25519 seed, so this cannot fail.
        signingKey = secret.key(for: .peerCredential).withUnsafeBytes { bytes in
            (try? Curve25519.Signing.PrivateKey(rawRepresentation: Data(bytes))) ?? Curve25519.Signing.PrivateKey()
        }
    }

    /// A credential for the actor's device, valid for `settings.peerCredentialLifetime`.
    /// - Throws: `invalidField` when the device registered no public key at sign-in.
    package func issue(actor: Actor) async throws -> SignedPeerCredential {
        let device = DeviceRef(userID: actor.userID, deviceID: actor.deviceID)
        guard let key = try await store.deviceKeys([device])[device] else {
            throw ChatServerError.invalidField(field: "device_public_key", reason: "sign in with a device public key to get a peer credential")
        }
        let groups = try await store.groups(memberID: actor.userID).map(\.id)
        let credential = PeerCredential(userID: actor.userID, deviceID: actor.deviceID, signingKey: key.base64EncodedString(),
                                        groups: groups, role: actor.role,
                                        expiresAt: ChatTime.rounded(clock.now().addingTimeInterval(settings.peerCredentialLifetime)))
        return try SignedPeerCredential.issue(credential, key: signingKey)
    }
}
